import { ErrorCode, type LeaveGroupRequest, type LeaveGroupResponse } from "@kcsim/protocol";
import type { ConsumerGroup } from "../consumer-group/consumer-group.js";
import { appendEpochBumpAfterRemoval, appendMemberTombstones } from "../consumer-group/member-fencing.js";
import type { CoordinatorEnv } from "../runtime/coordinator-env.js";
import { memberRemovedObservation } from "../runtime/observation-builders.js";
import type { WriteOp } from "../runtime/write-op.js";

type LeaveGroupMemberResponse = LeaveGroupResponse["members"][number];

/** JoinGroupRequest.UNKNOWN_MEMBER_ID: an admin removes a static member by instance id alone. */
const UNKNOWN_MEMBER_ID = "";

export function leaveGroupErrorResponse(request: LeaveGroupRequest, errorCode: number): LeaveGroupResponse {
  return { type: "LeaveGroupResponse", correlationId: request.correlationId, throttleTimeMs: 0, errorCode, members: [] };
}

/**
 * LeaveGroup (v3+). On a consumer group (GMM
 * `classicGroupLeaveToConsumerGroup`): per member, consumer-protocol
 * members are UNKNOWN_MEMBER_ID to this classic API, except an admin
 * removal by instance id with an empty member id, which fences the static
 * member; removed members' tombstones, then one epoch bump. On a simple
 * classic group no member exists (UNKNOWN_MEMBER_ID each); a missing group
 * is UNKNOWN_MEMBER_ID. Classic groups proper come in a later issue.
 */
export function leaveGroup(op: WriteOp, env: CoordinatorEnv, request: LeaveGroupRequest): LeaveGroupResponse {
  const group = op.state.groups.get(request.groupId);
  if (group === undefined) return leaveGroupErrorResponse(request, ErrorCode.UNKNOWN_MEMBER_ID);
  const members =
    group.protocol === "consumer"
      ? leaveConsumerGroup(op, env, group, request)
      : request.members.map((identity) => ({
          memberId: identity.memberId,
          groupInstanceId: identity.groupInstanceId,
          errorCode: ErrorCode.UNKNOWN_MEMBER_ID,
        }));
  return { type: "LeaveGroupResponse", correlationId: request.correlationId, throttleTimeMs: 0, errorCode: ErrorCode.NONE, members };
}

function leaveConsumerGroup(
  op: WriteOp,
  env: CoordinatorEnv,
  group: ConsumerGroup,
  request: LeaveGroupRequest,
): LeaveGroupMemberResponse[] {
  const responses: LeaveGroupMemberResponse[] = [];
  let removed = 0;
  for (const identity of request.members) {
    const { groupInstanceId } = identity;
    const failed = (errorCode: number): void => {
      responses.push({ memberId: identity.memberId, groupInstanceId, errorCode });
    };
    if (groupInstanceId === null) {
      // A dynamic member by id: it uses the consumer protocol (or does not exist), so it is unknown to LeaveGroup.
      failed(ErrorCode.UNKNOWN_MEMBER_ID);
      continue;
    }
    const member = group.staticMember(groupInstanceId);
    if (member === undefined) {
      failed(ErrorCode.UNKNOWN_MEMBER_ID);
      continue;
    }
    if (identity.memberId !== UNKNOWN_MEMBER_ID) {
      failed(member.memberId !== identity.memberId ? ErrorCode.FENCED_INSTANCE_ID : ErrorCode.UNKNOWN_MEMBER_ID);
      continue;
    }
    op.observe(memberRemovedObservation(group.groupId, member, "leave"));
    appendMemberTombstones(op, group.groupId, member.memberId);
    env.timers.cancelAll(op.ctx, group.groupId, member.memberId);
    responses.push({ memberId: member.memberId, groupInstanceId, errorCode: ErrorCode.NONE });
    removed++;
  }
  if (removed > 0) appendEpochBumpAfterRemoval(op, group);
  return responses;
}
