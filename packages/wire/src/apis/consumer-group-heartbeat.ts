import { array, defineApi, field, int16, int32, nullableField, nullableStruct, string, struct, uuid } from "../schema/index.js";

/**
 * ConsumerGroupHeartbeat (68, KIP-848), v0-1, all flexible. Neither KafkaJS
 * 2.2.4 nor librdkafka 2.0.2 sends it; @platformatic/kafka 1.35.0 does,
 * with groupProtocol "consumer" (dist/apis/consumer/consumer-group-heartbeat-v<N>.js:
 * v0-1, so v1 here). v1 adds SubscribedTopicRegex. Topic ids are Kafka
 * Uuids in their string form.
 */
const TopicPartitions = struct("TopicPartitions", {
  topicId: field(uuid, "0+"),
  partitions: field(array(int32), "0+"),
});

const ConsumerGroupHeartbeatRequest = struct("ConsumerGroupHeartbeatRequest", {
  groupId: field(string, "0+"),
  memberId: field(string, "0+"),
  memberEpoch: field(int32, "0+"),
  instanceId: nullableField(string, "0+", "0+"),
  rackId: nullableField(string, "0+", "0+"),
  rebalanceTimeoutMs: field(int32, "0+", { default: -1 }),
  subscribedTopicNames: nullableField(array(string), "0+", "0+"),
  subscribedTopicRegex: nullableField(string, "1+", "1+"),
  serverAssignor: nullableField(string, "0+", "0+"),
  topicPartitions: nullableField(array(TopicPartitions), "0+", "0+"),
});

const Assignment = struct("Assignment", { topicPartitions: field(array(TopicPartitions), "0+") });

const ConsumerGroupHeartbeatResponse = struct("ConsumerGroupHeartbeatResponse", {
  throttleTimeMs: field(int32, "0+"),
  errorCode: field(int16, "0+"),
  errorMessage: nullableField(string, "0+", "0+"),
  memberId: nullableField(string, "0+", "0+"),
  memberEpoch: field(int32, "0+"),
  heartbeatIntervalMs: field(int32, "0+"),
  assignment: nullableField(nullableStruct(Assignment), "0+", "0+"),
});

export const ConsumerGroupHeartbeatApi = defineApi({
  key: 68,
  name: "ConsumerGroupHeartbeat",
  minVersion: 0,
  maxVersion: 1,
  flexibleFrom: 0,
  request: ConsumerGroupHeartbeatRequest,
  response: ConsumerGroupHeartbeatResponse,
});
export type ConsumerGroupHeartbeatRequest = ReturnType<typeof ConsumerGroupHeartbeatRequest.defaults>;
export type ConsumerGroupHeartbeatResponse = ReturnType<typeof ConsumerGroupHeartbeatResponse.defaults>;
