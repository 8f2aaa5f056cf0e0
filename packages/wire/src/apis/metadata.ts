import { array, bool, defineApi, field, int16, int32, nullableField, string, struct } from "../schema/index.js";

/**
 * Metadata (3), v0-6 (none flexible). KafkaJS 2.2.4 implements v0-6
 * (src/protocol/requests/metadata); librdkafka 2.0.2 asks 0-4
 * (rdkafka_request.c rd_kafka_MetadataRequest). In v0 an empty topic list
 * means all topics; from v1 that is a null list.
 */
const MetadataRequest = struct("MetadataRequest", {
  topics: nullableField(array(struct("MetadataRequestTopic", { name: field(string, "0+") })), "0+", "1+", { default: [] }),
  allowAutoTopicCreation: field(bool, "4+", { default: true }),
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
  replicaNodes: field(array(int32), "0+"),
  isrNodes: field(array(int32), "0+"),
  offlineReplicas: field(array(int32), "5+", { ignorable: true }),
});

const MetadataResponseTopic = struct("MetadataResponseTopic", {
  errorCode: field(int16, "0+"),
  name: field(string, "0+"),
  isInternal: field(bool, "1+", { ignorable: true }),
  partitions: field(array(MetadataResponsePartition), "0+"),
});

const MetadataResponse = struct("MetadataResponse", {
  throttleTimeMs: field(int32, "3+", { ignorable: true }),
  brokers: field(array(MetadataResponseBroker), "0+"),
  clusterId: nullableField(string, "2+", "2+", { ignorable: true }),
  controllerId: field(int32, "1+", { default: -1, ignorable: true }),
  topics: field(array(MetadataResponseTopic), "0+"),
});

export const MetadataApi = defineApi({
  key: 3,
  name: "Metadata",
  minVersion: 0,
  maxVersion: 6,
  flexibleFrom: 9,
  request: MetadataRequest,
  response: MetadataResponse,
});
export type MetadataRequest = ReturnType<typeof MetadataRequest.defaults>;
export type MetadataResponse = ReturnType<typeof MetadataResponse.defaults>;
export type MetadataResponseTopic = ReturnType<typeof MetadataResponseTopic.defaults>;
export type MetadataResponsePartition = ReturnType<typeof MetadataResponsePartition.defaults>;
export type MetadataResponseBroker = ReturnType<typeof MetadataResponseBroker.defaults>;
