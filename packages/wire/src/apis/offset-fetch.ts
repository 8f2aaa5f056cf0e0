import { array, bool, defineApi, field, int16, int32, int64, nullableField, string, struct } from "../schema/index.js";

/**
 * OffsetFetch (9), v0-9; flexible from v6. KafkaJS 2.2.4 implements v1-4
 * (src/protocol/requests/offsetFetch); librdkafka 2.0.2 asks 0-7
 * (rdkafka_request.c rd_kafka_OffsetFetchRequest); @platformatic/kafka
 * 1.35.0 implements v8-9 (dist/apis/consumer/offset-fetch-v<N>.js). v0-7
 * ask for one group (from v2 a null topic list means all topics, and the
 * answer has a top-level error); v8 is the batched form (KIP-709): Groups
 * in and out, each group with its own error. v9 adds the member id and
 * epoch a KIP-848 member fetches with.
 */
const OffsetFetchRequestGroup = struct("OffsetFetchRequestGroup", {
  groupId: field(string, "8+"),
  memberId: nullableField(string, "9+", "9+", { ignorable: true }),
  memberEpoch: field(int32, "9+", { default: -1, ignorable: true }),
  topics: nullableField(
    array(struct("OffsetFetchRequestTopics", { name: field(string, "8+"), partitionIndexes: field(array(int32), "8+") })),
    "8+",
    "8+",
    { default: [] },
  ),
});

const OffsetFetchRequest = struct("OffsetFetchRequest", {
  groupId: field(string, "0-7"),
  topics: nullableField(
    array(struct("OffsetFetchRequestTopic", { name: field(string, "0-7"), partitionIndexes: field(array(int32), "0-7") })),
    "0-7",
    "2-7",
    { default: [] },
  ),
  groups: field(array(OffsetFetchRequestGroup), "8+"),
  requireStable: field(bool, "7+"),
});

const OffsetFetchResponsePartition = struct("OffsetFetchResponsePartition", {
  partitionIndex: field(int32, "0-7"),
  committedOffset: field(int64, "0-7"),
  committedLeaderEpoch: field(int32, "5-7", { default: -1, ignorable: true }),
  metadata: nullableField(string, "0-7", "0-7"),
  errorCode: field(int16, "0-7"),
});

const OffsetFetchResponsePartitions = struct("OffsetFetchResponsePartitions", {
  partitionIndex: field(int32, "8+"),
  committedOffset: field(int64, "8+"),
  committedLeaderEpoch: field(int32, "8+", { default: -1, ignorable: true }),
  metadata: nullableField(string, "8+", "8+"),
  errorCode: field(int16, "8+"),
});

const OffsetFetchResponseGroup = struct("OffsetFetchResponseGroup", {
  groupId: field(string, "8+"),
  topics: field(
    array(
      struct("OffsetFetchResponseTopics", { name: field(string, "8+"), partitions: field(array(OffsetFetchResponsePartitions), "8+") }),
    ),
    "8+",
  ),
  errorCode: field(int16, "8+"),
});

const OffsetFetchResponse = struct("OffsetFetchResponse", {
  throttleTimeMs: field(int32, "3+", { ignorable: true }),
  topics: field(
    array(
      struct("OffsetFetchResponseTopic", { name: field(string, "0-7"), partitions: field(array(OffsetFetchResponsePartition), "0-7") }),
    ),
    "0-7",
  ),
  errorCode: field(int16, "2-7", { ignorable: true }),
  groups: field(array(OffsetFetchResponseGroup), "8+"),
});

export const OffsetFetchApi = defineApi({
  key: 9,
  name: "OffsetFetch",
  minVersion: 0,
  maxVersion: 9,
  flexibleFrom: 6,
  request: OffsetFetchRequest,
  response: OffsetFetchResponse,
});
export type OffsetFetchRequest = ReturnType<typeof OffsetFetchRequest.defaults>;
export type OffsetFetchRequestGroup = ReturnType<typeof OffsetFetchRequestGroup.defaults>;
export type OffsetFetchResponse = ReturnType<typeof OffsetFetchResponse.defaults>;
export type OffsetFetchResponseGroup = ReturnType<typeof OffsetFetchResponseGroup.defaults>;
