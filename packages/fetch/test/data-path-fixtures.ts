import {
  type FetchRequest,
  type JsonValue,
  type ListOffsetsRequest,
  type Message,
  type ProduceRequest,
  type RecordBatch,
  topicIdFor,
} from "@kcsim/protocol";
import { createBroker } from "../src/broker/broker-actor.js";
import { createController } from "../src/controller/controller-actor.js";
import { createProducer } from "../src/producer/producer-actor.js";
import { SimNetwork } from "./sim-network.js";

/** Shared set-up of the data-path tests (not a test file itself). */

export interface TopicSpec {
  readonly name: string;
  readonly partitions: number;
  readonly replicationFactor: number;
}

export interface ClusterSpec {
  readonly brokers: number;
  readonly topics: readonly TopicSpec[];
  readonly broker?: Record<string, JsonValue>;
  readonly latencyMs?: number;
  readonly seed?: number;
  /** Transaction coordinators the brokers verify transactional produce with (KIP-890); none by default. */
  readonly txnCoordinators?: readonly string[];
}

export const brokerId = (n: number) => `broker-${n}`;

export function clusterJson(spec: ClusterSpec): { brokers: JsonValue[]; topics: JsonValue[] } {
  return {
    brokers: Array.from({ length: spec.brokers }, (_, n) => ({ nodeId: n, host: brokerId(n) })),
    topics: spec.topics.map((t) => ({ name: t.name, partitions: t.partitions, replicationFactor: t.replicationFactor })),
  };
}

/** A network with a controller and `brokers` brokers (not started). */
export function cluster(spec: ClusterSpec): SimNetwork {
  const net = new SimNetwork({ latencyMs: spec.latencyMs ?? 1, seed: spec.seed ?? 1 });
  const layout = clusterJson(spec);
  const broker = spec.broker ?? {};
  net.add("controller", createController, { ...layout, broker });
  for (let n = 0; n < spec.brokers; n++) {
    const verification = spec.txnCoordinators === undefined ? {} : { txnCoordinators: [...spec.txnCoordinators] };
    net.add(brokerId(n), createBroker, { brokerId: n, controller: "controller", ...layout, broker, ...verification });
  }
  return net;
}

export function addProducer(
  net: SimNetwork,
  id: string,
  spec: ClusterSpec,
  producer: Record<string, JsonValue>,
  workload: Record<string, JsonValue>,
): void {
  net.add(id, createProducer, {
    bootstrap: Array.from({ length: spec.brokers }, (_, n) => brokerId(n)),
    topics: spec.topics.map((t) => ({ name: t.name, partitions: t.partitions })),
    producer,
    workload,
  });
}

let correlationId = 1000;
export function nextCorrelationId(): number {
  return ++correlationId;
}

/** A batch of `records` records totalling `sizeInBytes`, as a producer sends it. */
export function producerBatch(sizeInBytes: number, records = 1, valuePrefix = "v"): RecordBatch {
  return {
    baseOffset: 0,
    lastOffsetDelta: records - 1,
    partitionLeaderEpoch: -1,
    sizeInBytes,
    baseTimestamp: 0,
    producerId: -1,
    producerEpoch: -1,
    baseSequence: -1,
    isTransactional: false,
    isControl: false,
    records: Array.from({ length: records }, (_, i) => ({
      offsetDelta: i,
      timestampDelta: 0,
      key: null,
      value: `${valuePrefix}${i}`,
      sizeInBytes: Math.floor(sizeInBytes / records),
    })),
  };
}

export function produceRequest(topic: string, partition: number, batch: RecordBatch, acks = 1, timeoutMs = 30_000): ProduceRequest {
  return {
    type: "ProduceRequest",
    correlationId: nextCorrelationId(),
    apiVersion: 9,
    clientId: "client",
    transactionalId: null,
    acks,
    timeoutMs,
    topicData: [{ name: topic, partitionData: [{ index: partition, records: batch }] }],
  };
}

export interface FetchPartitionSpec {
  readonly topic: string;
  readonly partition: number;
  readonly fetchOffset: number;
  readonly partitionMaxBytes?: number;
  readonly currentLeaderEpoch?: number;
}

/** A sessionless consumer fetch (epoch -1), partitions in the given order. */
export function fetchRequest(
  partitions: readonly FetchPartitionSpec[],
  options: { maxWaitMs?: number; minBytes?: number; maxBytes?: number; sessionEpoch?: number; replicaId?: number } = {},
): FetchRequest {
  const topics: FetchRequest["topics"] = [];
  for (const p of partitions) {
    const topicId = topicIdFor(p.topic);
    let entry = topics[topics.length - 1];
    if (entry === undefined || entry.topicId !== topicId) {
      entry = { topicId, partitions: [] };
      topics.push(entry);
    }
    entry.partitions.push({
      partition: p.partition,
      currentLeaderEpoch: p.currentLeaderEpoch ?? -1,
      fetchOffset: p.fetchOffset,
      lastFetchedEpoch: -1,
      logStartOffset: -1,
      partitionMaxBytes: p.partitionMaxBytes ?? 1_048_576,
    });
  }
  return {
    type: "FetchRequest",
    correlationId: nextCorrelationId(),
    apiVersion: 13,
    clientId: "client",
    replicaId: options.replicaId ?? -1,
    maxWaitMs: options.maxWaitMs ?? 0,
    minBytes: options.minBytes ?? 1,
    maxBytes: options.maxBytes ?? 52_428_800,
    isolationLevel: 0,
    sessionId: 0,
    sessionEpoch: options.sessionEpoch ?? -1,
    topics,
    forgottenTopicsData: [],
    rackId: "",
  };
}

export function listOffsetsRequest(topic: string, partition: number, timestamp: number, currentLeaderEpoch = -1): ListOffsetsRequest {
  return {
    type: "ListOffsetsRequest",
    correlationId: nextCorrelationId(),
    apiVersion: 8,
    clientId: "client",
    replicaId: -1,
    isolationLevel: 0,
    topics: [{ name: topic, partitions: [{ partitionIndex: partition, currentLeaderEpoch, timestamp }] }],
  };
}

/** The single answer to a request the client sent, or undefined if none came yet. */
export function answer<T extends Message["type"]>(
  net: SimNetwork,
  type: T,
  correlationId: number,
): Extract<Message, { type: T }> | undefined {
  return net.received(type, correlationId)[0]?.message;
}

/** The broker snapshot's partition entry. */
export interface PartitionSnapshot {
  topic: string;
  partition: number;
  role: string;
  leader: number;
  leaderEpoch: number;
  isr: number[];
  logStartOffset: number;
  logEndOffset: number;
  highWatermark: number;
}

export function partitionOn(net: SimNetwork, broker: string, topic: string, partition: number): PartitionSnapshot | undefined {
  const snapshot = net.snapshot(broker) as unknown as { partitions: PartitionSnapshot[] };
  return snapshot.partitions.find((p) => p.topic === topic && p.partition === partition);
}
