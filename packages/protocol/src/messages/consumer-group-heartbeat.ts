import type { Static } from "@sinclair/typebox";
import { Int, List, Nullable, request, response, Str, Struct } from "./schema.js";

/** KIP-848 `ConsumerGroupHeartbeat` (API key 68), spec 1.1. */
export const HeartbeatTopicPartitions = Struct({ topicId: Str, partitions: List(Int) });
export type HeartbeatTopicPartitions = Static<typeof HeartbeatTopicPartitions>;

export const ConsumerGroupHeartbeatRequest = request("ConsumerGroupHeartbeatRequest", {
  groupId: Str,
  memberId: Str,
  memberEpoch: Int,
  instanceId: Nullable(Str),
  rackId: Nullable(Str),
  rebalanceTimeoutMs: Int,
  subscribedTopicNames: Nullable(List(Str)),
  subscribedTopicRegex: Nullable(Str),
  serverAssignor: Nullable(Str),
  topicPartitions: Nullable(List(HeartbeatTopicPartitions)),
});
export type ConsumerGroupHeartbeatRequest = Static<typeof ConsumerGroupHeartbeatRequest>;

export const ConsumerGroupHeartbeatResponse = response("ConsumerGroupHeartbeatResponse", {
  throttleTimeMs: Int,
  errorCode: Int,
  errorMessage: Nullable(Str),
  memberId: Nullable(Str),
  memberEpoch: Int,
  heartbeatIntervalMs: Int,
  assignment: Nullable(Struct({ topicPartitions: List(HeartbeatTopicPartitions) })),
});
export type ConsumerGroupHeartbeatResponse = Static<typeof ConsumerGroupHeartbeatResponse>;
