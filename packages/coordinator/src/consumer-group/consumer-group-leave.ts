import { type ConsumerGroupHeartbeatRequest, type ConsumerGroupHeartbeatResponse, ErrorCode } from "@kcsim/protocol";
import { currentAssignmentRecord } from "../records/consumer-group-records.js";
import type { CoordinatorEnv } from "../runtime/coordinator-env.js";
import { CoordinatorError } from "../runtime/coordinator-error.js";
import type { WriteOp } from "../runtime/write-op.js";
import type { TopicIdPartitions } from "../topic-id-partitions.js";
import type { ConsumerGroup } from "./consumer-group.js";
import { type ConsumerGroupMember, LEAVE_GROUP_STATIC_MEMBER_EPOCH } from "./consumer-group-member.js";
import { fenceMember } from "./member-fencing.js";

const NO_PARTITIONS: readonly TopicIdPartitions[] = [];

/**
 * A heartbeat with epoch -1 or -2 (GMM `consumerGroupLeave`): -1 fences
 * the member; -2 (static members) keeps it at epoch -2 with its assigned
 * partitions still owned until a replacement or the session expires.
 * The answer echoes the member id and the epoch.
 */
export function consumerGroupLeave(
  op: WriteOp,
  env: CoordinatorEnv,
  request: ConsumerGroupHeartbeatRequest,
): ConsumerGroupHeartbeatResponse {
  const { groupId, memberId, instanceId, memberEpoch } = request;
  const group = op.state.groups.consumerGroup(groupId);
  if (group === undefined) {
    throw new CoordinatorError(
      ErrorCode.GROUP_ID_NOT_FOUND,
      op.state.groups.get(groupId) === undefined ? `Group ${groupId} not found.` : `Group ${groupId} is not a consumer group.`,
    );
  }
  if (instanceId === null) {
    const member = group.member(memberId);
    if (member === undefined)
      throw new CoordinatorError(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${memberId} is not a member of group ${groupId}.`);
    fenceMember(op, env, group, member, "leave");
  } else {
    const member = group.staticMember(instanceId);
    if (member === undefined) throw new CoordinatorError(ErrorCode.UNKNOWN_MEMBER_ID, `Instance id ${instanceId} is unknown.`);
    if (member.memberId !== memberId) {
      throw new CoordinatorError(
        ErrorCode.FENCED_INSTANCE_ID,
        `Static member ${memberId} with instance id ${instanceId} was fenced by member ${member.memberId}.`,
      );
    }
    if (memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH) staticMemberLeave(op, group, member);
    else fenceMember(op, env, group, member, "leave");
  }
  return {
    type: "ConsumerGroupHeartbeatResponse",
    correlationId: request.correlationId,
    throttleTimeMs: 0,
    errorCode: 0,
    errorMessage: null,
    memberId,
    memberEpoch,
    heartbeatIntervalMs: 0,
    assignment: null,
  };
}

/**
 * GMM `consumerGroupStaticMemberGroupLeave`: epoch -2, assigned partitions
 * kept (still owned), pending revocations dropped. No epoch bump; the
 * session timer keeps running, so the member is fenced if no replacement
 * comes in time.
 */
function staticMemberLeave(op: WriteOp, group: ConsumerGroup, member: ConsumerGroupMember): void {
  op.append(
    currentAssignmentRecord(group.groupId, {
      ...member,
      memberEpoch: LEAVE_GROUP_STATIC_MEMBER_EPOCH,
      partitionsPendingRevocation: NO_PARTITIONS,
    }),
  );
}
