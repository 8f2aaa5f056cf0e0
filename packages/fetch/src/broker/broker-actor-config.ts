import { type ActorId, type BrokerConfig, ConfigError, type JsonValue, PlantedBugs, resolveBrokerConfig } from "@kcsim/protocol";
import { type ClusterLayout, readClusterLayout } from "../cluster/cluster-layout.js";
import { ConfigReader } from "../cluster/config-reader.js";

/**
 * A broker actor's configuration:
 * `{brokerId, controller, brokers: [{nodeId, host}], topics: [{name, id?,
 * partitions, replicationFactor}], broker: {Kafka broker settings}}`.
 * `brokerId` must be one of `brokers`; `controller` is the controller's actor id.
 * `plantedBugs` (optional): planted bugs of the broker kind to enable (PLANTED_BUGS in @kcsim/protocol).
 * `txnCoordinators` (optional): the transaction coordinator actor ids, as
 * they list themselves; a transactional produce is verified with them
 * (KIP-890 part 1), or, from a producer of transaction version 2, its
 * partitions added to its transaction there (KIP-890 part 2). Without them
 * the broker appends unverified, as Kafka does with
 * transaction.partition.verification.enable off.
 */
export interface BrokerActorConfig extends ClusterLayout {
  readonly brokerId: number;
  readonly controller: ActorId;
  readonly settings: BrokerConfig;
  readonly plantedBugs: PlantedBugs;
  readonly txnCoordinators: readonly ActorId[];
}

export function parseBrokerActorConfig(json: JsonValue): BrokerActorConfig {
  const config = ConfigReader.of("broker", json).onlyKeys([
    "brokerId",
    "controller",
    "brokers",
    "topics",
    "broker",
    "plantedBugs",
    "txnCoordinators",
  ]);
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
  const txnCoordinators = config.strings("txnCoordinators", { optional: true });
  return { ...layout, brokerId, controller, settings, plantedBugs, txnCoordinators };
}
