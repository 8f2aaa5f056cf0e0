import type { ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse } from "@kcsim/protocol";
import type { TopicIdPartitions } from "../topic-id-partitions.js";

/** An error answer: no member id, epoch 0, no assignment (Kafka's error response data). */
export function heartbeatErrorResponse(
  request: ConsumerGroupHeartbeatRequest,
  errorCode: number,
  errorMessage: string | null,
): ConsumerGroupHeartbeatResponse {
  return {
    type: "ConsumerGroupHeartbeatResponse",
    correlationId: request.correlationId,
    throttleTimeMs: 0,
    errorCode,
    errorMessage,
    memberId: null,
    memberEpoch: 0,
    heartbeatIntervalMs: 0,
    assignment: null,
  };
}

/** A successful answer; `assignment` null means "no change" (spec 1.1). */
export function heartbeatResponse(
  request: ConsumerGroupHeartbeatRequest,
  memberId: string,
  memberEpoch: number,
  heartbeatIntervalMs: number,
  assignment: readonly TopicIdPartitions[] | null,
): ConsumerGroupHeartbeatResponse {
  return {
    type: "ConsumerGroupHeartbeatResponse",
    correlationId: request.correlationId,
    throttleTimeMs: 0,
    errorCode: 0,
    errorMessage: null,
    memberId,
    memberEpoch,
    heartbeatIntervalMs,
    assignment:
      assignment === null
        ? null
        : { topicPartitions: assignment.map(({ topicId, partitions }) => ({ topicId, partitions: [...partitions] })) },
  };
}
