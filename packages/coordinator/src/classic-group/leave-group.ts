import { ErrorCode, type LeaveGroupRequest, type LeaveGroupResponse } from "@kcsim/protocol";
import type { ConsumerGroup } from "../consumer-group/consumer-group.js";
import { type ConsumerGroupMember, usesClassicProtocol } from "../consumer-group/consumer-group-member.js";
import { fenceMembers } from "../consumer-group/member-fencing.js";
import type { CoordinatorEnv } from "../runtime/coordinator-env.js";
import type { WriteOp } from "../runtime/write-op.js";
import type { ClassicGroup } from "./classic-group.js";
import {
  cancelHeartbeat,
  completeJoinFuture,
  maybeCompleteJoinPhase,
  maybePrepareRebalanceOrCompleteJoin,
  removeClassicMember,
} from "./classic-rebalance.js";

type LeaveGroupMemberResponse = LeaveGroupResponse["members"][number];
type LeavingMember = LeaveGroupRequest["members"][number];

/** JoinGroupRequest.UNKNOWN_MEMBER_ID: an admin removes a static member by instance id alone. */
const UNKNOWN_MEMBER_ID = "";

export function leaveGroupErrorResponse(request: LeaveGroupRequest, errorCode: number): LeaveGroupResponse {
  return { type: "LeaveGroupResponse", correlationId: request.correlationId, throttleTimeMs: 0, errorCode, members: [] };
}

function memberResponse(identity: LeavingMember, errorCode: number, memberId = identity.memberId): LeaveGroupMemberResponse {
  return { memberId, groupInstanceId: identity.groupInstanceId, errorCode };
}

/**
 * LeaveGroup (v3+, a batch of members with per-member errors; GMM
 * `classicGroupLeave`). A missing group is UNKNOWN_MEMBER_ID.
 */
export function leaveGroup(op: WriteOp, env: CoordinatorEnv, request: LeaveGroupRequest): LeaveGroupResponse {
  const group = op.state.groups.get(request.groupId);
  if (group === undefined) return leaveGroupErrorResponse(request, ErrorCode.UNKNOWN_MEMBER_ID);
  if (group.protocol === "classic" && group.isInState("DEAD")) return leaveGroupErrorResponse(request, ErrorCode.COORDINATOR_NOT_AVAILABLE);
  const members = group.protocol === "consumer" ? leaveConsumerGroup(op, env, group, request) : leaveClassicGroup(op, env, group, request);
  return { type: "LeaveGroupResponse", correlationId: request.correlationId, throttleTimeMs: 0, errorCode: ErrorCode.NONE, members };
}

/**
 * LeaveGroup on a classic group (GMM `classicGroupLeaveToClassicGroup`):
 * per member, an admin removal by instance id (member id ""), a pending
 * member that simply vanishes, or a member check (UNKNOWN_MEMBER_ID,
 * FENCED_INSTANCE_ID) then removal; a removed member's parked JoinGroup
 * gets UNKNOWN_MEMBER_ID. After valid leaves: a rebalance from STABLE or
 * COMPLETING, or the join phase completes if everyone left is in.
 */
function leaveClassicGroup(op: WriteOp, env: CoordinatorEnv, group: ClassicGroup, request: LeaveGroupRequest): LeaveGroupMemberResponse[] {
  op.touch(group.groupId);
  const removeCurrentMember = (memberId: string): void => {
    const member = group.member(memberId);
    if (member === undefined) return;
    completeJoinFuture(op, group, member, { memberId: UNKNOWN_MEMBER_ID, errorCode: ErrorCode.UNKNOWN_MEMBER_ID });
    removeClassicMember(op, env, group, member, "leave");
  };
  const responses = request.members.map((identity): LeaveGroupMemberResponse => {
    if (identity.memberId === UNKNOWN_MEMBER_ID) {
      const memberId = identity.groupInstanceId === null ? undefined : group.staticMemberId(identity.groupInstanceId);
      if (memberId === undefined) return memberResponse(identity, ErrorCode.UNKNOWN_MEMBER_ID);
      removeCurrentMember(memberId);
      return memberResponse(identity, ErrorCode.NONE);
    }
    if (group.isPendingMember(identity.memberId)) {
      group.remove(identity.memberId);
      cancelHeartbeat(op, env, group.groupId, identity.memberId);
      return memberResponse(identity, ErrorCode.NONE);
    }
    const error = group.validateMember(identity.memberId, identity.groupInstanceId);
    if (error !== ErrorCode.NONE) return memberResponse(identity, error);
    removeCurrentMember(identity.memberId);
    return memberResponse(identity, ErrorCode.NONE);
  });
  const left = responses.filter((response) => response.errorCode === ErrorCode.NONE).map((response) => response.memberId);
  if (left.length > 0) {
    if (group.isInState("STABLE") || group.isInState("COMPLETING_REBALANCE")) {
      maybePrepareRebalanceOrCompleteJoin(op, env, group, `explicit LeaveGroup of ${left.join(", ")}`);
    } else if (group.isInState("PREPARING_REBALANCE")) {
      maybeCompleteJoinPhase(op, env, group);
    }
  }
  return responses;
}

/**
 * LeaveGroup on a consumer group (GMM `classicGroupLeaveToConsumerGroup`):
 * classic members leave by member id (static ones with their instance
 * id); an admin removes any static member by instance id with member id
 * "". Every valid leave fences its member, together (one epoch bump, or
 * the downgrade when only classic members remain).
 *
 * A consumer-protocol member named by its member id is UNKNOWN_MEMBER_ID
 * here (it leaves with its heartbeat at epoch -1); Kafka 4.x fences it.
 */
function leaveConsumerGroup(
  op: WriteOp,
  env: CoordinatorEnv,
  group: ConsumerGroup,
  request: LeaveGroupRequest,
): LeaveGroupMemberResponse[] {
  const responses: LeaveGroupMemberResponse[] = [];
  const leaving = new Map<string, ConsumerGroupMember>();
  for (const identity of request.members) {
    const { groupInstanceId } = identity;
    const member = groupInstanceId === null ? group.member(identity.memberId) : group.staticMember(groupInstanceId);
    if (member === undefined) {
      responses.push(memberResponse(identity, ErrorCode.UNKNOWN_MEMBER_ID));
      continue;
    }
    const adminRemoval = groupInstanceId !== null && identity.memberId === UNKNOWN_MEMBER_ID;
    if (!adminRemoval) {
      if (member.memberId !== identity.memberId) {
        responses.push(memberResponse(identity, ErrorCode.FENCED_INSTANCE_ID));
        continue;
      }
      if (!usesClassicProtocol(member)) {
        responses.push(memberResponse(identity, ErrorCode.UNKNOWN_MEMBER_ID));
        continue;
      }
    }
    leaving.set(member.memberId, member);
    responses.push(memberResponse(identity, ErrorCode.NONE, member.memberId));
  }
  if (leaving.size > 0) op.touch(group.groupId);
  fenceMembers(op, env, group, [...leaving.values()], "leave");
  return responses;
}
