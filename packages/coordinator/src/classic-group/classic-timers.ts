import type { CoordinatorEnv } from "../runtime/coordinator-env.js";
import type { InitialRebalanceDelay } from "../runtime/group-timers.js";
import type { WriteOp } from "../runtime/write-op.js";
import {
  completeJoin,
  onInitialDelayExpired,
  prepareRebalance,
  removeClassicMember,
  removeMemberAndUpdateGroup,
  removePendingMemberAndUpdateGroup,
} from "./classic-rebalance.js";

/**
 * The classic group timers. Each finds the group by id and does nothing
 * when it is gone or no longer classic (converted meanwhile).
 */

/**
 * A member's heartbeat expired (`expireClassicGroupMemberHeartbeat`): a
 * pending member vanishes; a new member (its join deadline) or an existing
 * one that is not parked in a JoinGroup/SyncGroup is removed.
 */
export function onClassicHeartbeatExpired(op: WriteOp, env: CoordinatorEnv, groupId: string, memberId: string): void {
  const group = op.state.groups.classicGroup(groupId);
  if (group === undefined || group.isInState("DEAD")) return;
  op.touch(groupId);
  if (group.isPendingMember(memberId)) {
    op.ctx.log.info("pending classic member expired", { groupId, memberId });
    removePendingMemberAndUpdateGroup(op, env, group, memberId);
    return;
  }
  const member = group.member(memberId);
  if (member === undefined || member.hasSatisfiedHeartbeat()) return;
  op.ctx.log.info("classic member failed", { groupId, memberId, isNew: member.isNew });
  removeMemberAndUpdateGroup(op, env, group, member, member.isNew ? "join-timeout" : "session-timeout");
}

/** The join timer: the end of an initial delay, or the join deadline. */
export function onClassicJoinTimer(op: WriteOp, env: CoordinatorEnv, groupId: string, initialDelay: InitialRebalanceDelay | null): void {
  const group = op.state.groups.classicGroup(groupId);
  if (group === undefined || !group.isInState("PREPARING_REBALANCE")) return;
  op.touch(groupId);
  if (initialDelay !== null) onInitialDelayExpired(op, env, group, initialDelay);
  else completeJoin(op, env, group);
}

/**
 * The sync deadline of a generation (`expirePendingSync`): members of that
 * generation that never sent SyncGroup are removed and a new rebalance starts.
 */
export function onClassicSyncExpired(op: WriteOp, env: CoordinatorEnv, groupId: string, generationId: number): void {
  const group = op.state.groups.classicGroup(groupId);
  if (group === undefined || group.generationId !== generationId) return;
  if (!group.isInState("COMPLETING_REBALANCE") && !group.isInState("STABLE")) return;
  if (group.hasReceivedSyncFromAllMembers()) return;
  op.touch(groupId);
  const missing = [...group.pendingSyncMembers()];
  for (const memberId of missing) {
    const member = group.member(memberId);
    if (member !== undefined) removeClassicMember(op, env, group, member, "sync-timeout");
  }
  prepareRebalance(op, env, group, `members ${missing.join(", ")} did not sync in time`);
}
