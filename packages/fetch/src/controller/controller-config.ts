import { type BrokerConfig, ConfigError, type JsonValue, resolveBrokerConfig } from "@kcsim/protocol";
import { type ClusterLayout, readClusterLayout } from "../cluster/cluster-layout.js";
import { ConfigReader } from "../cluster/config-reader.js";

/**
 * The controller actor's configuration: `{brokers: [{nodeId, host}],
 * topics: [{name, id?, partitions, replicationFactor}], broker: {Kafka
 * broker settings}, coordinators?: [actor ids]}` (broker.session.timeout.ms
 * is what it uses).
 */
export interface ControllerConfig extends ClusterLayout {
  readonly settings: BrokerConfig;
  /** The group coordinator actors, told of every topic created while the cluster runs (they keep their own image). */
  readonly coordinators: readonly string[];
}

export function parseControllerConfig(json: JsonValue): ControllerConfig {
  const config = ConfigReader.of("controller", json).onlyKeys(["brokers", "topics", "broker", "coordinators"]);
  const layout = readClusterLayout(config);
  let settings: BrokerConfig;
  try {
    settings = resolveBrokerConfig(config.raw("broker") ?? {});
  } catch (error) {
    throw new ConfigError(`controller config: 'broker': ${(error as Error).message}`);
  }
  return { ...layout, settings, coordinators: config.has("coordinators") ? config.strings("coordinators") : [] };
}
