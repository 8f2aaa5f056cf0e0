import { array, bool, defineApi, field, int16, int32, nullableField, string, struct } from "../schema/index.js";

/**
 * CreateTopics (19), v0-4 (none flexible). KafkaJS 2.2.4 implements v0-3
 * (src/protocol/requests/createTopics); librdkafka 2.0.2 asks 0-4
 * (rdkafka_request.c rd_kafka_CreateTopicsRequest). v4 has v3's layout; it
 * only lets NumPartitions/ReplicationFactor be -1 without assignments (KIP-464).
 */
const CreatableTopic = struct("CreatableTopic", {
  name: field(string, "0+"),
  numPartitions: field(int32, "0+"),
  replicationFactor: field(int16, "0+"),
  assignments: field(
    array(struct("CreatableReplicaAssignment", { partitionIndex: field(int32, "0+"), brokerIds: field(array(int32), "0+") })),
    "0+",
  ),
  configs: field(array(struct("CreatableTopicConfig", { name: field(string, "0+"), value: nullableField(string, "0+", "0+") })), "0+"),
});

const CreateTopicsRequest = struct("CreateTopicsRequest", {
  topics: field(array(CreatableTopic), "0+"),
  timeoutMs: field(int32, "0+", { default: 60000 }),
  validateOnly: field(bool, "1+"),
});

const CreatableTopicResult = struct("CreatableTopicResult", {
  name: field(string, "0+"),
  errorCode: field(int16, "0+"),
  errorMessage: nullableField(string, "1+", "0+", { ignorable: true }),
});

const CreateTopicsResponse = struct("CreateTopicsResponse", {
  throttleTimeMs: field(int32, "2+", { ignorable: true }),
  topics: field(array(CreatableTopicResult), "0+"),
});

export const CreateTopicsApi = defineApi({
  key: 19,
  name: "CreateTopics",
  minVersion: 0,
  maxVersion: 4,
  flexibleFrom: 5,
  request: CreateTopicsRequest,
  response: CreateTopicsResponse,
});
export type CreateTopicsRequest = ReturnType<typeof CreateTopicsRequest.defaults>;
export type CreateTopicsResponse = ReturnType<typeof CreateTopicsResponse.defaults>;
