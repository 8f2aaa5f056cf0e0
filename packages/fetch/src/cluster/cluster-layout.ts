import { ConfigError, type MetadataBroker, topicIdFor } from "@kcsim/protocol";
import type { ConfigReader } from "./config-reader.js";

/** Port every simulated listener claims (hosts are actor ids). */
export const BROKER_PORT = 9092;

/** A broker of the cluster: its Kafka node id and the actor that hosts it. */
export interface BrokerEndpoint {
  readonly nodeId: number;
  readonly host: string;
}

/** A topic of the cluster as a scenario declares it. */
export interface TopicLayout {
  readonly name: string;
  readonly id: string;
  readonly partitions: number;
  readonly replicationFactor: number;
}

/** The brokers and topics a broker or the controller is configured with. */
export interface ClusterLayout {
  readonly brokers: readonly BrokerEndpoint[];
  readonly topics: readonly TopicLayout[];
}

/**
 * Reads `brokers: [{nodeId, host}]` and `topics: [{name, id?, partitions,
 * replicationFactor}]` (the id defaults to `topicIdFor(name)`); node ids,
 * hosts and topic names must be unique and the replication factor at most
 * the broker count.
 */
export function readClusterLayout(config: ConfigReader): ClusterLayout {
  const brokers = config.objects("brokers", { minItems: 1 }).map((b) => {
    b.onlyKeys(["nodeId", "host"]);
    return { nodeId: b.int("nodeId", { min: 0 }), host: b.string("host") };
  });
  const seenIds = new Set<number>();
  const seenHosts = new Set<string>();
  brokers.forEach((b, i) => {
    if (seenIds.has(b.nodeId)) config.fail(`brokers[${i}].nodeId`, `= ${b.nodeId} is used by another broker`);
    if (seenHosts.has(b.host)) config.fail(`brokers[${i}].host`, `= ${JSON.stringify(b.host)} is used by another broker`);
    seenIds.add(b.nodeId);
    seenHosts.add(b.host);
  });
  const seenTopics = new Set<string>();
  const topics = config.objects("topics").map((t, i) => {
    t.onlyKeys(["name", "id", "partitions", "replicationFactor"]);
    const name = t.string("name");
    if (seenTopics.has(name)) config.fail(`topics[${i}].name`, `= ${JSON.stringify(name)} is declared twice`);
    seenTopics.add(name);
    return {
      name,
      id: t.has("id") ? t.string("id") : topicIdFor(name),
      partitions: t.int("partitions", { min: 1 }),
      replicationFactor: t.int("replicationFactor", { min: 1, max: brokers.length }),
    };
  });
  return { brokers, topics };
}

/** A broker as Metadata and UpdateMetadata list it. */
export function metadataBrokerOf(endpoint: BrokerEndpoint): MetadataBroker {
  return { nodeId: endpoint.nodeId, host: endpoint.host, port: BROKER_PORT, rack: null };
}

/**
 * The replicas of a partition when its topic is created: brokers[(p + i) mod
 * N] for i < replicationFactor, in the order of `brokers`; the first is the
 * leader. Brokers and the controller derive the initial state the same way.
 */
export function initialReplicas(partition: number, brokers: readonly BrokerEndpoint[], replicationFactor: number): number[] {
  if (replicationFactor > brokers.length)
    throw new ConfigError(`replication factor ${replicationFactor} exceeds ${brokers.length} brokers`);
  const replicas: number[] = [];
  for (let i = 0; i < replicationFactor; i++) replicas.push((brokers[(partition + i) % brokers.length] as BrokerEndpoint).nodeId);
  return replicas;
}
