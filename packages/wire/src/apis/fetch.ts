import { array, defineApi, field, int8, int16, int32, int64, nullableField, records, string, struct, uuid } from "../schema/index.js";

/**
 * Fetch (1), v4-13; flexible from v12. KafkaJS 2.2.4 implements v0-11
 * (src/protocol/requests/fetch); librdkafka 2.0.2 asks 0-11
 * (rdkafka_fetcher.c rd_kafka_broker_fetch_toppars); @platformatic/kafka
 * 1.35.0 implements v12-17 (dist/apis/consumer/fetch-v<N>.js), so it sends
 * v13 here (its v12 puts a topic's id where the name goes, which no broker
 * resolves: it is only usable from v13, where topics are named by id). v0-3 are left out: they carry legacy message sets (magic 0/1),
 * which this endpoint does not write; librdkafka's MsgVer2 feature needs v4
 * in the range (rdkafka_feature.c). v7 adds fetch sessions (KIP-227), v11
 * the rack id and preferred replica. v12 (KIP-595) is flexible, adds each
 * partition's LastFetchedEpoch and the tagged ClusterId to the request, and
 * three tagged structs per partition to the response: DivergingEpoch,
 * CurrentLeader and SnapshotId, written only when not at their defaults
 * (every field -1). Topics are named up to v12, by their ids from v13
 * (KIP-516: TopicId, in the request's topics and forgotten topics and in
 * the response's; an id the broker does not know is answered
 * UNKNOWN_TOPIC_ID).
 */
const FetchPartition = struct("FetchPartition", {
  partition: field(int32, "0+"),
  currentLeaderEpoch: field(int32, "9+", { default: -1, ignorable: true }),
  fetchOffset: field(int64, "0+"),
  lastFetchedEpoch: field(int32, "12+", { default: -1 }),
  logStartOffset: field(int64, "5+", { default: -1n, ignorable: true }),
  partitionMaxBytes: field(int32, "0+"),
});

const FetchRequest = struct("FetchRequest", {
  clusterId: nullableField(string, "12+", "12+", { tag: 0, ignorable: true }),
  replicaId: field(int32, "0-14", { default: -1 }),
  maxWaitMs: field(int32, "0+"),
  minBytes: field(int32, "0+"),
  maxBytes: field(int32, "3+", { default: 0x7fffffff, ignorable: true }),
  isolationLevel: field(int8, "4+", { ignorable: true }),
  sessionId: field(int32, "7+", { ignorable: true }),
  sessionEpoch: field(int32, "7+", { default: -1, ignorable: true }),
  topics: field(
    array(
      struct("FetchTopic", {
        topic: field(string, "0-12", { ignorable: true }),
        topicId: field(uuid, "13+", { ignorable: true }),
        partitions: field(array(FetchPartition), "0+"),
      }),
    ),
    "0+",
  ),
  forgottenTopicsData: field(
    array(
      struct("ForgottenTopic", {
        topic: field(string, "7-12", { ignorable: true }),
        topicId: field(uuid, "13+", { ignorable: true }),
        partitions: field(array(int32), "7+"),
      }),
    ),
    "7+",
  ),
  rackId: field(string, "11+", { ignorable: true }),
});

const AbortedTransaction = struct("AbortedTransaction", {
  producerId: field(int64, "4+"),
  firstOffset: field(int64, "4+"),
});

/** v12+: the largest epoch and its end offset such that later records are known to diverge (KIP-595). */
const EpochEndOffset = struct("EpochEndOffset", {
  epoch: field(int32, "12+", { default: -1 }),
  endOffset: field(int64, "12+", { default: -1n }),
});

/** v12+: the partition's current leader as the answering broker knows it (with NOT_LEADER_OR_FOLLOWER or FENCED_LEADER_EPOCH). */
const LeaderIdAndEpoch = struct("LeaderIdAndEpoch", {
  leaderId: field(int32, "12+", { default: -1 }),
  leaderEpoch: field(int32, "12+", { default: -1 }),
});

/** v12+: the snapshot to fetch instead, when the fetch offset is below the log start offset (KRaft replication). */
const SnapshotId = struct("SnapshotId", {
  endOffset: field(int64, "0+", { default: -1n }),
  epoch: field(int32, "0+", { default: -1 }),
});

const PartitionData = struct("PartitionData", {
  partitionIndex: field(int32, "0+"),
  errorCode: field(int16, "0+"),
  highWatermark: field(int64, "0+"),
  lastStableOffset: field(int64, "4+", { default: -1n, ignorable: true }),
  logStartOffset: field(int64, "5+", { default: -1n, ignorable: true }),
  divergingEpoch: field(EpochEndOffset, "12+", { tag: 0 }),
  currentLeader: field(LeaderIdAndEpoch, "12+", { tag: 1 }),
  snapshotId: field(SnapshotId, "12+", { tag: 2 }),
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
        topicId: field(uuid, "13+", { ignorable: true }),
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
  maxVersion: 13,
  flexibleFrom: 12,
  request: FetchRequest,
  response: FetchResponse,
});
export type FetchRequest = ReturnType<typeof FetchRequest.defaults>;
export type FetchResponse = ReturnType<typeof FetchResponse.defaults>;
export type FetchResponsePartitionData = ReturnType<typeof PartitionData.defaults>;
export type FetchEpochEndOffset = ReturnType<typeof EpochEndOffset.defaults>;
export type FetchLeaderIdAndEpoch = ReturnType<typeof LeaderIdAndEpoch.defaults>;
export type FetchSnapshotId = ReturnType<typeof SnapshotId.defaults>;
