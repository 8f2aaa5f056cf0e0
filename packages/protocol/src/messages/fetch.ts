import type { Static } from "@sinclair/typebox";
import { RecordBatch } from "./records.js";
import { Int, List, Nullable, request, response, Str, Struct } from "./schema.js";

/** Fetch (API key 1), v13+ shape (topic ids), with KIP-227 session fields (spec 6). */
export const FetchPartition = Struct({
  partition: Int,
  currentLeaderEpoch: Int,
  fetchOffset: Int,
  lastFetchedEpoch: Int,
  logStartOffset: Int,
  partitionMaxBytes: Int,
});
export type FetchPartition = Static<typeof FetchPartition>;

/** `FetchRequest.CONSUMER_REPLICA_ID`: -1 for consumers, a broker id for followers. */
export const CONSUMER_REPLICA_ID = -1;

/** Isolation levels as Kafka encodes them. */
export const IsolationLevel = { READ_UNCOMMITTED: 0, READ_COMMITTED: 1 } as const;

export const FetchRequest = request("FetchRequest", {
  replicaId: Int,
  maxWaitMs: Int,
  minBytes: Int,
  maxBytes: Int,
  isolationLevel: Int,
  sessionId: Int,
  sessionEpoch: Int,
  topics: List(Struct({ topicId: Str, partitions: List(FetchPartition) })),
  forgottenTopicsData: List(Struct({ topicId: Str, partitions: List(Int) })),
  rackId: Str,
});
export type FetchRequest = Static<typeof FetchRequest>;

export const AbortedTransaction = Struct({ producerId: Int, firstOffset: Int });
export type AbortedTransaction = Static<typeof AbortedTransaction>;

export const FetchResponsePartition = Struct({
  partitionIndex: Int,
  errorCode: Int,
  highWatermark: Int,
  lastStableOffset: Int,
  logStartOffset: Int,
  abortedTransactions: Nullable(List(AbortedTransaction)),
  preferredReadReplica: Int,
  records: List(RecordBatch),
});
export type FetchResponsePartition = Static<typeof FetchResponsePartition>;

export const FetchResponse = response("FetchResponse", {
  throttleTimeMs: Int,
  errorCode: Int,
  sessionId: Int,
  responses: List(Struct({ topicId: Str, partitions: List(FetchResponsePartition) })),
});
export type FetchResponse = Static<typeof FetchResponse>;
