import type { FetchMetadata } from "./fetch-metadata.js";

/**
 * What a client wants to fetch from one partition (Kafka's
 * `FetchRequest.PartitionData`). Absent epochs are -1, as on the wire.
 */
export interface PartitionFetchData {
  readonly topicId: string;
  readonly fetchOffset: number;
  readonly logStartOffset: number;
  readonly partitionMaxBytes: number;
  readonly currentLeaderEpoch: number;
  readonly lastFetchedEpoch: number;
}

/** A partition of the client's session, by topic name, with what it asks for it. */
export interface SessionPartition {
  readonly topic: string;
  readonly partition: number;
  readonly data: PartitionFetchData;
}

/** A partition by topic name and topic id (Kafka's client-side `TopicIdPartition`). */
export interface NamedTopicIdPartition {
  readonly topicId: string;
  readonly topic: string;
  readonly partition: number;
}

/** The next request of a session, as the handler's builder computed it (Kafka's `FetchRequestData`). */
export interface FetchRequestData {
  /** Partitions to list in the request: all of them (full), or added then altered/replaced (incremental). */
  readonly toSend: readonly SessionPartition[];
  /** Partitions no longer wanted: sent as forgotten topics. */
  readonly toForget: readonly NamedTopicIdPartition[];
  /** Partitions whose topic id changed, under their old id: forgotten too (v13+), and re-sent in `toSend`. */
  readonly toReplace: readonly NamedTopicIdPartition[];
  /** Every partition of the session after this request, in session order. */
  readonly sessionPartitions: readonly SessionPartition[];
  readonly metadata: FetchMetadata;
  /** Every partition involved has a topic id (else Kafka would fall back to Fetch v12). */
  readonly canUseTopicIds: boolean;
}

export function samePartitionFetchData(a: PartitionFetchData, b: PartitionFetchData): boolean {
  return (
    a === b ||
    (a.topicId === b.topicId &&
      a.fetchOffset === b.fetchOffset &&
      a.logStartOffset === b.logStartOffset &&
      a.partitionMaxBytes === b.partitionMaxBytes &&
      a.currentLeaderEpoch === b.currentLeaderEpoch &&
      a.lastFetchedEpoch === b.lastFetchedEpoch)
  );
}
