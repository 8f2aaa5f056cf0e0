import { type ActorId, ErrorCode, type HeartbeatRequest, type JoinGroupRequest, type SyncGroupRequest } from "@kcsim/protocol";
import { classicMemberHeartbeat } from "../consumer-group/classic-member-heartbeat.js";
import { classicMemberJoin } from "../consumer-group/classic-member-join.js";
import { classicMemberSync } from "../consumer-group/classic-member-sync.js";
import { isMigrationDisabled } from "../migration/migration-policy.js";
import type { CoordinatorEnv } from "../runtime/coordinator-env.js";
import { CoordinatorError } from "../runtime/coordinator-error.js";
import type { WriteOp } from "../runtime/write-op.js";
import { heartbeatClassicGroup } from "./classic-heartbeat.js";
import { joinClassicGroup } from "./classic-join.js";
import { syncClassicGroup } from "./classic-sync.js";

/**
 * The classic group APIs on the group's shard (GMM `classicGroupJoin`,
 * `classicGroupSync`, `classicGroupHeartbeat`): each goes to the classic
 * group, or to a consumer group whose classic members use them (the mixed
 * group, spec 8). Answers are sent through the operation; a thrown
 * CoordinatorError is answered with its error by the caller.
 */

/**
 * JoinGroup: a non-empty consumer group takes the member as a classic
 * member; anything else (no group, a classic group, an empty consumer
 * group) is a classic group join.
 *
 * KAFKA-20640 (fixed): with group.consumer.migration.policy=disabled a
 * consumer group still admitted classic members and then stayed mixed
 * forever (neither direction may convert). Here it refuses them with
 * INCONSISTENT_GROUP_PROTOCOL, the answer a classic member got from a
 * consumer group before mixed groups existed.
 */
export function joinGroup(op: WriteOp, env: CoordinatorEnv, from: ActorId, request: JoinGroupRequest): void {
  const group = op.state.groups.get(request.groupId);
  if (group?.protocol === "consumer" && group.numMembers > 0) {
    if (isMigrationDisabled(env.broker)) {
      throw new CoordinatorError(
        ErrorCode.INCONSISTENT_GROUP_PROTOCOL,
        `Group ${request.groupId} is a consumer group and group.consumer.migration.policy=disabled refuses classic members.`,
      );
    }
    classicMemberJoin(op, env, from, request, group);
    return;
  }
  joinClassicGroup(op, env, from, request);
}

/** SyncGroup: a missing or empty group does not know the member. */
export function syncGroup(op: WriteOp, env: CoordinatorEnv, from: ActorId, request: SyncGroupRequest): void {
  const group = op.state.groups.get(request.groupId);
  const empty = group === undefined || (group.protocol === "classic" ? group.isInState("EMPTY") : group.numMembers === 0);
  if (group === undefined || empty)
    throw new CoordinatorError(ErrorCode.UNKNOWN_MEMBER_ID, `Group ${request.groupId} has no member ${request.memberId}.`);
  if (group.protocol === "classic") syncClassicGroup(op, env, from, request, group);
  else classicMemberSync(op, env, from, request, group);
}

/** Heartbeat: a missing group does not know the member. */
export function heartbeat(op: WriteOp, env: CoordinatorEnv, from: ActorId, request: HeartbeatRequest): void {
  const group = op.state.groups.get(request.groupId);
  if (group === undefined) throw new CoordinatorError(ErrorCode.UNKNOWN_MEMBER_ID, `Group ${request.groupId} not found.`);
  if (group.protocol === "classic") heartbeatClassicGroup(op, env, from, request, group);
  else classicMemberHeartbeat(op, env, from, request, group);
}
