import { array, defineApi, field, int16, int32, int64, nullableField, string, struct } from "../schema/index.js";

/**
 * OffsetCommit (8), v0-9; flexible from v8. KafkaJS 2.2.4 implements v0-5
 * (src/protocol/requests/offsetCommit); librdkafka 2.0.2 asks 0-7
 * (rdkafka_request.c rd_kafka_OffsetCommitRequest); @platformatic/kafka
 * 1.35.0 implements v8-9 (dist/apis/consumer/offset-commit-v<N>.js). v1
 * carries a commit timestamp per partition, v2-4 a retention time, v6 the
 * leader epoch, v7 the group instance id; v8 is v7 made flexible. v9 has
 * v8's layout: only its meaning changes (KIP-848), GenerationIdOrMemberEpoch
 * and MemberId being a consumer-protocol member's epoch and id, checked
 * against the member's current epoch (STALE_MEMBER_EPOCH).
 */
const OffsetCommitRequestPartition = struct("OffsetCommitRequestPartition", {
  partitionIndex: field(int32, "0+"),
  committedOffset: field(int64, "0+"),
  committedLeaderEpoch: field(int32, "6+", { default: -1, ignorable: true }),
  commitTimestamp: field(int64, "1", { default: -1n }),
  committedMetadata: nullableField(string, "0+", "0+"),
});

const OffsetCommitRequest = struct("OffsetCommitRequest", {
  groupId: field(string, "0+"),
  generationIdOrMemberEpoch: field(int32, "1+", { default: -1, ignorable: true }),
  memberId: field(string, "1+", { ignorable: true }),
  groupInstanceId: nullableField(string, "7+", "7+"),
  retentionTimeMs: field(int64, "2-4", { default: -1n, ignorable: true }),
  topics: field(
    array(struct("OffsetCommitRequestTopic", { name: field(string, "0+"), partitions: field(array(OffsetCommitRequestPartition), "0+") })),
    "0+",
  ),
});

const OffsetCommitResponse = struct("OffsetCommitResponse", {
  throttleTimeMs: field(int32, "3+", { ignorable: true }),
  topics: field(
    array(
      struct("OffsetCommitResponseTopic", {
        name: field(string, "0+"),
        partitions: field(
          array(struct("OffsetCommitResponsePartition", { partitionIndex: field(int32, "0+"), errorCode: field(int16, "0+") })),
          "0+",
        ),
      }),
    ),
    "0+",
  ),
});

export const OffsetCommitApi = defineApi({
  key: 8,
  name: "OffsetCommit",
  minVersion: 0,
  maxVersion: 9,
  flexibleFrom: 8,
  request: OffsetCommitRequest,
  response: OffsetCommitResponse,
});
export type OffsetCommitRequest = ReturnType<typeof OffsetCommitRequest.defaults>;
export type OffsetCommitResponse = ReturnType<typeof OffsetCommitResponse.defaults>;
