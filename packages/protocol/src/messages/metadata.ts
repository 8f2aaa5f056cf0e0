import type { Static } from "@sinclair/typebox";
import { Bool, Int, List, Nullable, request, response, Str, Struct } from "./schema.js";

/**
 * Metadata (API key 3): topics, partitions and their leaders. A broker's
 * `host` is its actor id. UpdateMetadata (API key 6) is how the controller
 * pushes topic and leadership changes to brokers.
 */
export const MetadataRequest = request("MetadataRequest", {
  topics: Nullable(List(Struct({ topicId: Nullable(Str), name: Nullable(Str) }))),
});
export type MetadataRequest = Static<typeof MetadataRequest>;

export const MetadataBroker = Struct({ nodeId: Int, host: Str, port: Int, rack: Nullable(Str) });
export type MetadataBroker = Static<typeof MetadataBroker>;

export const MetadataPartition = Struct({
  errorCode: Int,
  partitionIndex: Int,
  leaderId: Int,
  leaderEpoch: Int,
  replicaNodes: List(Int),
  isrNodes: List(Int),
});
export type MetadataPartition = Static<typeof MetadataPartition>;

export const MetadataTopic = Struct({
  errorCode: Int,
  name: Str,
  topicId: Str,
  isInternal: Bool,
  partitions: List(MetadataPartition),
});
export type MetadataTopic = Static<typeof MetadataTopic>;

export const MetadataResponse = response("MetadataResponse", {
  throttleTimeMs: Int,
  brokers: List(MetadataBroker),
  controllerId: Int,
  topics: List(MetadataTopic),
});
export type MetadataResponse = Static<typeof MetadataResponse>;

/**
 * One partition's state in an UpdateMetadata request (Kafka's
 * `UpdateMetadataPartitionState`). `zkVersion` carries the partition epoch
 * (as the KRaft controller does when it speaks UpdateMetadata to brokers in
 * migration mode); it goes up on every leader or ISR change.
 */
export const UpdateMetadataPartitionState = Struct({
  partitionIndex: Int,
  controllerEpoch: Int,
  leader: Int,
  leaderEpoch: Int,
  isr: List(Int),
  zkVersion: Int,
  replicas: List(Int),
  offlineReplicas: List(Int),
});
export type UpdateMetadataPartitionState = Static<typeof UpdateMetadataPartitionState>;

/** `UpdateMetadataRequest.Type` (v8+): what a request covers. */
export const UpdateMetadataType = { UNKNOWN: 0, INCREMENTAL: 1, FULL: 2 } as const;

export const UpdateMetadataRequest = request("UpdateMetadataRequest", {
  controllerId: Int,
  isKRaftController: Bool,
  controllerEpoch: Int,
  brokerEpoch: Int,
  updateType: Int,
  topicStates: List(Struct({ topicName: Str, topicId: Str, partitionStates: List(UpdateMetadataPartitionState) })),
  liveBrokers: List(MetadataBroker),
});
export type UpdateMetadataRequest = Static<typeof UpdateMetadataRequest>;

export const UpdateMetadataResponse = response("UpdateMetadataResponse", {
  errorCode: Int,
});
export type UpdateMetadataResponse = Static<typeof UpdateMetadataResponse>;
