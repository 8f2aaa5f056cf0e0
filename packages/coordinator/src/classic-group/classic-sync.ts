import { type ActorId, ErrorCode, type SyncGroupRequest } from "@kcsim/protocol";
import { groupMetadataRecord } from "../records/classic-group-records.js";
import type { CoordinatorEnv } from "../runtime/coordinator-env.js";
import type { WriteOp } from "../runtime/write-op.js";
import type { ClassicGroup } from "./classic-group.js";
import { EMPTY_ASSIGNMENT } from "./classic-group-member.js";
import { installAssignment, removePendingSyncMember } from "./classic-rebalance.js";
import { syncGroupResponse } from "./classic-responses.js";

/** A request's protocol type or name contradicts the group's (both known and different). */
function isProtocolInconsistent(requested: string | null, current: string | null): boolean {
  return requested !== null && current !== null && requested !== current;
}

/** `validateSyncGroup`: 0 or the error to answer with. */
function validateSyncGroup(group: ClassicGroup, request: SyncGroupRequest): number {
  if (group.isInState("DEAD")) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
  const memberError = group.validateMember(request.memberId, request.groupInstanceId);
  if (memberError !== ErrorCode.NONE) return memberError;
  if (request.generationId !== group.generationId) return ErrorCode.ILLEGAL_GENERATION;
  if (
    isProtocolInconsistent(request.protocolType, group.protocolType) ||
    isProtocolInconsistent(request.protocolName, group.protocolName)
  ) {
    return ErrorCode.INCONSISTENT_GROUP_PROTOCOL;
  }
  return ErrorCode.NONE;
}

/**
 * SyncGroup to a classic group (GMM `classicGroupSyncToClassicGroup`, spec
 * 4.2). PREPARING: REBALANCE_IN_PROGRESS. COMPLETING: the request parks;
 * the leader's brings the assignment (members it left out get an empty
 * one), written as a GroupMetadata record, then every parked SyncGroup is
 * answered and the group is STABLE. STABLE: the stored assignment.
 *
 * Kafka moves to STABLE when the record is committed; here the state
 * changes at once and the answers go out after the flush, like every
 * answer of an operation that wrote records.
 */
export function syncClassicGroup(op: WriteOp, env: CoordinatorEnv, from: ActorId, request: SyncGroupRequest, group: ClassicGroup): void {
  op.touch(group.groupId);
  const error = validateSyncGroup(group, request);
  const member = group.member(request.memberId);
  if (error !== ErrorCode.NONE || member === undefined) {
    op.respond(from, syncGroupResponse(request, error === ErrorCode.NONE ? ErrorCode.UNKNOWN_MEMBER_ID : error));
    return;
  }
  switch (group.state()) {
    case "PREPARING_REBALANCE":
      op.respond(from, syncGroupResponse(request, ErrorCode.REBALANCE_IN_PROGRESS));
      return;
    case "COMPLETING_REBALANCE": {
      member.awaitingSync = { from, request };
      removePendingSyncMember(op, env, group, member.memberId);
      if (!group.isLeader(member.memberId)) return;
      const assignments = new Map<string, Uint8Array>();
      for (const { memberId, assignment } of request.assignments) assignments.set(memberId, assignment);
      const missing = [...group.members().keys()].filter((memberId) => !assignments.has(memberId));
      for (const memberId of missing) assignments.set(memberId, EMPTY_ASSIGNMENT);
      if (missing.length > 0) {
        op.ctx.log.warn("setting empty assignments for members the leader left out", { groupId: group.groupId, members: missing });
      }
      op.appendWithoutReplay(groupMetadataRecord(group, assignments));
      installAssignment(op, env, group, assignments);
      return;
    }
    case "STABLE":
      removePendingSyncMember(op, env, group, member.memberId);
      op.respond(
        from,
        syncGroupResponse(request, ErrorCode.NONE, {
          protocolType: group.protocolType,
          protocolName: group.protocolName,
          assignment: member.assignment,
        }),
      );
      return;
    case "EMPTY":
    case "DEAD":
      // Unreachable: validateMember failed for an empty group, and DEAD answered above.
      op.respond(from, syncGroupResponse(request, ErrorCode.UNKNOWN_MEMBER_ID));
      return;
  }
}
