import { array, bool, defineApi, field, int16, int32, int64, nullableField, string, struct } from "../schema/index.js";

/**
 * OffsetFetch (9), v0-7; flexible from v6. KafkaJS 2.2.4 implements v1-4
 * (src/protocol/requests/offsetFetch); librdkafka 2.0.2 asks 0-7
 * (rdkafka_request.c rd_kafka_OffsetFetchRequest), so v6-7 are the
 * flexible versions a real client sends here. One group per request (the
 * batched form is v8+); from v2 a null topic list means all topics.
 */
const OffsetFetchRequest = struct("OffsetFetchRequest", {
  groupId: field(string, "0-7"),
  topics: nullableField(
    array(struct("OffsetFetchRequestTopic", { name: field(string, "0-7"), partitionIndexes: field(array(int32), "0-7") })),
    "0-7",
    "2-7",
    { default: [] },
  ),
  requireStable: field(bool, "7+"),
});

const OffsetFetchResponsePartition = struct("OffsetFetchResponsePartition", {
  partitionIndex: field(int32, "0-7"),
  committedOffset: field(int64, "0-7"),
  committedLeaderEpoch: field(int32, "5-7", { default: -1 }),
  metadata: nullableField(string, "0-7", "0-7"),
  errorCode: field(int16, "0-7"),
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
});

export const OffsetFetchApi = defineApi({
  key: 9,
  name: "OffsetFetch",
  minVersion: 0,
  maxVersion: 7,
  flexibleFrom: 6,
  request: OffsetFetchRequest,
  response: OffsetFetchResponse,
});
export type OffsetFetchRequest = ReturnType<typeof OffsetFetchRequest.defaults>;
export type OffsetFetchResponse = ReturnType<typeof OffsetFetchResponse.defaults>;
