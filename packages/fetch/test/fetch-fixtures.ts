import {
  CONSUMER_REPLICA_ID,
  type FetchRequest,
  type FetchResponse,
  type FetchResponsePartition,
  type RecordBatch,
  streamFor,
  topicIdFor,
} from "@kcsim/protocol";
import {
  FETCH_API_VERSION,
  type FetchTarget,
  NO_PREFERRED_READ_REPLICA,
  type PartitionFetchData,
  type PartitionReadResult,
  type TopicIdPartition,
} from "../src/index.js";

/** Shared builders for the fetch-session tests (not a test file itself). */

export const FOO = topicIdFor("foo");
export const BAR = topicIdFor("bar");
export const ZAR = topicIdFor("zar");

/** A deterministic uniform source. */
export function randomFor(name: string, seed = 1): () => number {
  return streamFor(seed, name).next;
}

/**
 * A uniform source whose draws read as the Java ints 0, 1, 2, ... (Kafka's partitioner tests override
 * `randomPartition` the same way, to make weighted draws countable).
 */
export function sequentialInts(): () => number {
  let next = 0;
  return () => next++ / 2 ** 32;
}

export function target(topicId: string, partition: number, fields: Partial<Omit<FetchTarget, "topicId" | "partition">> = {}): FetchTarget {
  return {
    topicId,
    partition,
    currentLeaderEpoch: -1,
    fetchOffset: 0,
    lastFetchedEpoch: -1,
    logStartOffset: 0,
    partitionMaxBytes: 100,
    ...fields,
  };
}

export function fetchData(topicId: string, fields: Partial<Omit<PartitionFetchData, "topicId">> = {}): PartitionFetchData {
  return {
    topicId,
    fetchOffset: 0,
    logStartOffset: -1,
    partitionMaxBytes: 1_048_576,
    currentLeaderEpoch: -1,
    lastFetchedEpoch: -1,
    ...fields,
  };
}

export interface RequestSpec {
  readonly sessionId: number;
  readonly epoch: number;
  readonly partitions?: readonly FetchTarget[];
  readonly forgotten?: readonly TopicIdPartition[];
  readonly replicaId?: number;
  readonly apiVersion?: number;
  readonly correlationId?: number;
}

/** A Fetch request; partitions are grouped under a topic while consecutive, like Kafka's builder. */
export function request(spec: RequestSpec): FetchRequest {
  const topics: FetchRequest["topics"] = [];
  for (const t of spec.partitions ?? []) {
    const last = topics[topics.length - 1];
    const { topicId, ...partition } = t;
    if (last !== undefined && last.topicId === topicId) last.partitions.push(partition);
    else topics.push({ topicId, partitions: [partition] });
  }
  const forgottenTopicsData: FetchRequest["forgottenTopicsData"] = [];
  for (const tp of spec.forgotten ?? []) {
    const entry = forgottenTopicsData.find((f) => f.topicId === tp.topicId);
    if (entry === undefined) forgottenTopicsData.push({ topicId: tp.topicId, partitions: [tp.partition] });
    else entry.partitions.push(tp.partition);
  }
  return {
    type: "FetchRequest",
    correlationId: spec.correlationId ?? 1,
    apiVersion: spec.apiVersion ?? FETCH_API_VERSION,
    clientId: "consumer-1",
    replicaId: spec.replicaId ?? CONSUMER_REPLICA_ID,
    maxWaitMs: 500,
    minBytes: 1,
    maxBytes: 52_428_800,
    isolationLevel: 0,
    sessionId: spec.sessionId,
    sessionEpoch: spec.epoch,
    topics,
    forgottenTopicsData,
    rackId: "",
  };
}

export function batch(sizeInBytes: number, baseOffset = 0): RecordBatch {
  return {
    baseOffset,
    lastOffsetDelta: 0,
    partitionLeaderEpoch: 0,
    sizeInBytes,
    baseTimestamp: 0,
    producerId: -1,
    producerEpoch: -1,
    baseSequence: -1,
    isTransactional: false,
    isControl: false,
    records: [],
  };
}

export interface ReadSpec {
  readonly highWatermark?: number;
  readonly logStartOffset?: number;
  readonly errorCode?: number;
  readonly preferredReadReplica?: number;
  readonly recordBytes?: number;
  readonly divergingEpoch?: boolean;
}

export function read(topicId: string, partition: number, spec: ReadSpec = {}): PartitionReadResult {
  const data: FetchResponsePartition = {
    partitionIndex: partition,
    errorCode: spec.errorCode ?? 0,
    highWatermark: spec.highWatermark ?? 10,
    lastStableOffset: spec.highWatermark ?? 10,
    logStartOffset: spec.logStartOffset ?? 0,
    abortedTransactions: null,
    preferredReadReplica: spec.preferredReadReplica ?? NO_PREFERRED_READ_REPLICA,
    records: spec.recordBytes === undefined ? [] : [batch(spec.recordBytes)],
  };
  return spec.divergingEpoch === undefined ? { topicId, data } : { topicId, data, divergingEpoch: spec.divergingEpoch };
}

/** The (topicId, partition) pairs a response carries, in order. */
export function responsePartitions(response: FetchResponse): TopicIdPartition[] {
  return response.responses.flatMap((t) => t.partitions.map((p) => ({ topicId: t.topicId, partition: p.partitionIndex })));
}

/** The (topicId, partition) pairs of a list of targets, in order. */
export function keysOf(targets: readonly FetchTarget[]): TopicIdPartition[] {
  return targets.map(({ topicId, partition }) => ({ topicId, partition }));
}
