import { type ActorId, type BrokerConfig, ConfigError, type JsonValue, PlantedBugs, resolveBrokerConfig } from "@kcsim/protocol";
import { type ClusterLayout, readClusterLayout } from "../cluster/cluster-layout.js";
import { ConfigReader } from "../cluster/config-reader.js";

/**
 * A broker actor's configuration:
 * `{brokerId, controller, brokers: [{nodeId, host}], topics: [{name, id?,
 * partitions, replicationFactor}], broker: {Kafka broker settings}}`.
 * `brokerId` must be one of `brokers`; `controller` is the controller's actor id.
 * `plantedBugs` (optional): planted bugs of the broker kind to enable (PLANTED_BUGS in @kcsim/protocol).
 */
export interface BrokerActorConfig extends ClusterLayout {
  readonly brokerId: number;
  readonly controller: ActorId;
  readonly settings: BrokerConfig;
  readonly plantedBugs: PlantedBugs;
}

export function parseBrokerActorConfig(json: JsonValue): BrokerActorConfig {
  const config = ConfigReader.of("broker", json).onlyKeys(["brokerId", "controller", "brokers", "topics", "broker", "plantedBugs"]);
  const brokerId = config.int("brokerId", { min: 0 });
  const controller = config.string("controller");
  const layout = readClusterLayout(config);
  if (!layout.brokers.some((b) => b.nodeId === brokerId)) config.fail("brokerId", `= ${brokerId} is not one of the brokers' node ids`);
  let settings: BrokerConfig;
  try {
    settings = resolveBrokerConfig(config.raw("broker") ?? {});
  } catch (error) {
    throw new ConfigError(`broker config: 'broker': ${(error as Error).message}`);
  }
  let plantedBugs = PlantedBugs.NONE;
  try {
    plantedBugs = PlantedBugs.fromField(config.raw("plantedBugs"));
  } catch (error) {
    throw new ConfigError(`broker config: ${(error as Error).message.replace(/^config /, "")}`);
  }
  return { ...layout, brokerId, controller, settings, plantedBugs };
}
