import { array, defineApi, field, int8, int16, int32, int64, nullableField, records, string, struct } from "../schema/index.js";

/**
 * Fetch (1), v4-11 (none flexible). KafkaJS 2.2.4 implements v0-11
 * (src/protocol/requests/fetch); librdkafka 2.0.2 asks 0-11
 * (rdkafka_fetcher.c rd_kafka_broker_fetch_toppars). v0-3 are left out:
 * they carry legacy message sets (magic 0/1), which this endpoint does not
 * write; librdkafka's MsgVer2 feature needs v4 in the range (rdkafka_feature.c).
 * v7 adds fetch sessions (KIP-227), v11 the rack id and preferred replica.
 */
const FetchPartition = struct("FetchPartition", {
  partition: field(int32, "0+"),
  currentLeaderEpoch: field(int32, "9+", { default: -1, ignorable: true }),
  fetchOffset: field(int64, "0+"),
  logStartOffset: field(int64, "5+", { default: -1n, ignorable: true }),
  partitionMaxBytes: field(int32, "0+"),
});

const FetchRequest = struct("FetchRequest", {
  replicaId: field(int32, "0-14", { default: -1 }),
  maxWaitMs: field(int32, "0+"),
  minBytes: field(int32, "0+"),
  maxBytes: field(int32, "3+", { default: 0x7fffffff, ignorable: true }),
  isolationLevel: field(int8, "4+", { ignorable: true }),
  sessionId: field(int32, "7+", { ignorable: true }),
  sessionEpoch: field(int32, "7+", { default: -1, ignorable: true }),
  topics: field(
    array(struct("FetchTopic", { topic: field(string, "0-12", { ignorable: true }), partitions: field(array(FetchPartition), "0+") })),
    "0+",
  ),
  forgottenTopicsData: field(
    array(struct("ForgottenTopic", { topic: field(string, "7-12", { ignorable: true }), partitions: field(array(int32), "7+") })),
    "7+",
  ),
  rackId: field(string, "11+", { ignorable: true }),
});

const AbortedTransaction = struct("AbortedTransaction", {
  producerId: field(int64, "4+"),
  firstOffset: field(int64, "4+"),
});

const PartitionData = struct("PartitionData", {
  partitionIndex: field(int32, "0+"),
  errorCode: field(int16, "0+"),
  highWatermark: field(int64, "0+"),
  lastStableOffset: field(int64, "4+", { default: -1n, ignorable: true }),
  logStartOffset: field(int64, "5+", { default: -1n, ignorable: true }),
  abortedTransactions: nullableField(array(AbortedTransaction), "4+", "4+", { default: [], ignorable: true }),
  preferredReadReplica: field(int32, "11+", { default: -1 }),
  records: nullableField(records, "0+", "0+"),
});

const FetchResponse = struct("FetchResponse", {
  throttleTimeMs: field(int32, "1+", { ignorable: true }),
  errorCode: field(int16, "7+", { ignorable: true }),
  sessionId: field(int32, "7+"),
  responses: field(
    array(
      struct("FetchableTopicResponse", {
        topic: field(string, "0-12", { ignorable: true }),
        partitions: field(array(PartitionData), "0+"),
      }),
    ),
    "0+",
  ),
});

export const FetchApi = defineApi({
  key: 1,
  name: "Fetch",
  minVersion: 4,
  maxVersion: 11,
  flexibleFrom: 12,
  request: FetchRequest,
  response: FetchResponse,
});
export type FetchRequest = ReturnType<typeof FetchRequest.defaults>;
export type FetchResponse = ReturnType<typeof FetchResponse.defaults>;
export type FetchResponsePartitionData = ReturnType<typeof PartitionData.defaults>;
