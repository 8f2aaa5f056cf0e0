import { array, defineApi, field, int8, int16, int32, int64, string, struct } from "../schema/index.js";

/**
 * ListOffsets (2), v0-6; flexible from v6. KafkaJS 2.2.4 implements v0-3
 * (src/protocol/requests/listOffsets); librdkafka 2.0.2 asks 0-2
 * (rdkafka_request.c rd_kafka_ListOffsetsRequest) and needs v1 in the range
 * for its OffsetTime feature (rdkafka_feature.c); @platformatic/kafka 1.35.0
 * implements v5-9 (dist/apis/consumer/list-offsets-v<N>.js), so it sends
 * v6 here. v0 asks for up to MaxNumOffsets offsets and answers a list; v1+
 * answer one offset. v4 adds the current leader epoch (fencing) to the
 * request and the leader epoch to the answer; v5 has v4's layout (it may
 * answer OFFSET_NOT_AVAILABLE); v6 is v5 made flexible.
 */
const ListOffsetsPartition = struct("ListOffsetsPartition", {
  partitionIndex: field(int32, "0+"),
  currentLeaderEpoch: field(int32, "4+", { default: -1, ignorable: true }),
  timestamp: field(int64, "0+"),
  maxNumOffsets: field(int32, "0", { default: 1 }),
});

const ListOffsetsRequest = struct("ListOffsetsRequest", {
  replicaId: field(int32, "0+"),
  isolationLevel: field(int8, "2+"),
  topics: field(
    array(struct("ListOffsetsTopic", { name: field(string, "0+"), partitions: field(array(ListOffsetsPartition), "0+") })),
    "0+",
  ),
});

const ListOffsetsPartitionResponse = struct("ListOffsetsPartitionResponse", {
  partitionIndex: field(int32, "0+"),
  errorCode: field(int16, "0+"),
  oldStyleOffsets: field(array(int64), "0"),
  timestamp: field(int64, "1+", { default: -1n }),
  offset: field(int64, "1+", { default: -1n }),
  leaderEpoch: field(int32, "4+", { default: -1 }),
});

const ListOffsetsResponse = struct("ListOffsetsResponse", {
  throttleTimeMs: field(int32, "2+", { ignorable: true }),
  topics: field(
    array(struct("ListOffsetsTopicResponse", { name: field(string, "0+"), partitions: field(array(ListOffsetsPartitionResponse), "0+") })),
    "0+",
  ),
});

export const ListOffsetsApi = defineApi({
  key: 2,
  name: "ListOffsets",
  minVersion: 0,
  maxVersion: 6,
  flexibleFrom: 6,
  request: ListOffsetsRequest,
  response: ListOffsetsResponse,
});
export type ListOffsetsRequest = ReturnType<typeof ListOffsetsRequest.defaults>;
export type ListOffsetsResponse = ReturnType<typeof ListOffsetsResponse.defaults>;
