import { type ConsumerGroupHeartbeatRequest, ErrorCode } from "@kcsim/protocol";
import { CoordinatorError, invalidRequest } from "../runtime/coordinator-error.js";
import { LEAVE_GROUP_MEMBER_EPOCH, LEAVE_GROUP_STATIC_MEMBER_EPOCH } from "./consumer-group-member.js";

/** ConsumerGroupHeartbeat v1 (KIP-1082): the client generates its member id. */
const CONSUMER_GENERATED_MEMBER_ID_REQUIRED_VERSION = 1;

/** Kafka's `throwIfEmptyString`: null passes, blank (whitespace only) does not. */
function throwIfBlank(value: string | null, message: string): void {
  if (value !== null && value.trim().length === 0) throw invalidRequest(message);
}

/**
 * Request validation of ConsumerGroupHeartbeat (spec 1.2; Kafka's
 * `throwIfConsumerGroupHeartbeatRequestIsInvalid`, done by the service
 * before the request reaches the group's shard). Throws INVALID_REQUEST or
 * UNSUPPORTED_ASSIGNOR.
 */
export function validateConsumerGroupHeartbeat(request: ConsumerGroupHeartbeatRequest, assignors: readonly string[]): void {
  const epoch = request.memberEpoch;
  if (
    request.apiVersion >= CONSUMER_GENERATED_MEMBER_ID_REQUIRED_VERSION ||
    epoch > 0 ||
    epoch === LEAVE_GROUP_MEMBER_EPOCH ||
    epoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH
  ) {
    throwIfBlank(request.memberId, "MemberId can't be empty.");
  }
  throwIfBlank(request.groupId, "GroupId can't be empty.");
  throwIfBlank(request.instanceId, "InstanceId can't be empty.");
  throwIfBlank(request.rackId, "RackId can't be empty.");

  if (epoch === 0) {
    if (request.rebalanceTimeoutMs === -1) throw invalidRequest("RebalanceTimeoutMs must be provided in first request.");
    if (request.topicPartitions === null || request.topicPartitions.length > 0) {
      throw invalidRequest("TopicPartitions must be empty when (re-)joining.");
    }
    // Kafka 4.x: an empty list of names is accepted (a member subscribed to nothing).
    if (request.subscribedTopicNames === null && request.subscribedTopicRegex === null) {
      throw invalidRequest("Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.");
    }
  } else if (epoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
    if (request.instanceId === null) throw invalidRequest("InstanceId can't be null.");
  } else if (epoch < LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
    throw invalidRequest("MemberEpoch is invalid.");
  }

  if (request.serverAssignor !== null && !assignors.includes(request.serverAssignor)) {
    throw new CoordinatorError(
      ErrorCode.UNSUPPORTED_ASSIGNOR,
      `ServerAssignor ${request.serverAssignor} is not supported. Supported assignors: ${assignors.join(", ")}.`,
    );
  }
  // Broker-side regex subscriptions (KIP-848 v1, RE2J) are not simulated: "" (no regex) is all that is accepted.
  if (request.subscribedTopicRegex !== null && request.subscribedTopicRegex !== "") {
    throw invalidRequest("SubscribedTopicRegex is not supported by the kcsim group coordinator (use SubscribedTopicNames).");
  }
}
