import { array, bool, defineApi, field, int16, int32, nullableField, string, struct, uuid } from "../schema/index.js";

/**
 * Metadata (3), v0-12; flexible from v9. KafkaJS 2.2.4 implements v0-6
 * (src/protocol/requests/metadata); librdkafka 2.0.2 asks 0-4
 * (rdkafka_request.c rd_kafka_MetadataRequest); @platformatic/kafka 1.35.0
 * implements v9-12 (dist/apis/metadata/metadata-v<N>.js) and sends the
 * highest the broker allows. In v0 an empty topic list means all topics;
 * from v1 that is a null list. v7 adds the partition leader epoch; v8 the
 * authorized-operations flags and bitfields (the cluster's only in 8-10);
 * v10 topic ids, and a request topic's name may be null from v10 (the spec
 * says so; Kafka serves a topic asked for by id only from v12); v12 lets a
 * response topic's name be null (a topic asked for by an unknown id).
 */
const MetadataRequestTopic = struct("MetadataRequestTopic", {
  topicId: field(uuid, "10+", { ignorable: true }),
  name: nullableField(string, "0+", "10+", { default: "" }),
});

const MetadataRequest = struct("MetadataRequest", {
  topics: nullableField(array(MetadataRequestTopic), "0+", "1+", { default: [] }),
  allowAutoTopicCreation: field(bool, "4+", { default: true }),
  includeClusterAuthorizedOperations: field(bool, "8-10"),
  includeTopicAuthorizedOperations: field(bool, "8+"),
});

const MetadataResponseBroker = struct("MetadataResponseBroker", {
  nodeId: field(int32, "0+"),
  host: field(string, "0+"),
  port: field(int32, "0+"),
  rack: nullableField(string, "1+", "1+", { ignorable: true }),
});

const MetadataResponsePartition = struct("MetadataResponsePartition", {
  errorCode: field(int16, "0+"),
  partitionIndex: field(int32, "0+"),
  leaderId: field(int32, "0+"),
  leaderEpoch: field(int32, "7+", { default: -1, ignorable: true }),
  replicaNodes: field(array(int32), "0+"),
  isrNodes: field(array(int32), "0+"),
  offlineReplicas: field(array(int32), "5+", { ignorable: true }),
});

/** Kafka's "authorized operations not asked for" (Integer.MIN_VALUE), the authorized-operations fields' default. */
export const AUTHORIZED_OPERATIONS_OMITTED = -2147483648;

const MetadataResponseTopic = struct("MetadataResponseTopic", {
  errorCode: field(int16, "0+"),
  name: nullableField(string, "0+", "12+", { default: "" }),
  topicId: field(uuid, "10+", { ignorable: true }),
  isInternal: field(bool, "1+", { ignorable: true }),
  partitions: field(array(MetadataResponsePartition), "0+"),
  topicAuthorizedOperations: field(int32, "8+", { default: AUTHORIZED_OPERATIONS_OMITTED }),
});

const MetadataResponse = struct("MetadataResponse", {
  throttleTimeMs: field(int32, "3+", { ignorable: true }),
  brokers: field(array(MetadataResponseBroker), "0+"),
  clusterId: nullableField(string, "2+", "2+", { ignorable: true }),
  controllerId: field(int32, "1+", { default: -1, ignorable: true }),
  topics: field(array(MetadataResponseTopic), "0+"),
  clusterAuthorizedOperations: field(int32, "8-10", { default: AUTHORIZED_OPERATIONS_OMITTED }),
});

export const MetadataApi = defineApi({
  key: 3,
  name: "Metadata",
  minVersion: 0,
  maxVersion: 12,
  flexibleFrom: 9,
  request: MetadataRequest,
  response: MetadataResponse,
});
export type MetadataRequest = ReturnType<typeof MetadataRequest.defaults>;
export type MetadataRequestTopic = ReturnType<typeof MetadataRequestTopic.defaults>;
export type MetadataResponse = ReturnType<typeof MetadataResponse.defaults>;
export type MetadataResponseTopic = ReturnType<typeof MetadataResponseTopic.defaults>;
export type MetadataResponsePartition = ReturnType<typeof MetadataResponsePartition.defaults>;
export type MetadataResponseBroker = ReturnType<typeof MetadataResponseBroker.defaults>;
