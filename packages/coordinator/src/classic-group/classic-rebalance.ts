import { ErrorCode, type JoinGroupResponseMember, type PartitionsByTopic, topicPartitionsOf, tpKey } from "@kcsim/protocol";
import type { MemberRemovalReason } from "../observations.js";
import { groupMetadataRecord } from "../records/classic-group-records.js";
import type { CoordinatorEnv } from "../runtime/coordinator-env.js";
import {
  classicHeartbeatTimerName,
  classicJoinTimerName,
  classicSyncTimerName,
  type InitialRebalanceDelay,
} from "../runtime/group-timers.js";
import { classicMemberObservation, memberRemovedObservation, targetObservation } from "../runtime/observation-builders.js";
import type { WriteOp } from "../runtime/write-op.js";
import type { ClassicGroup } from "./classic-group.js";
import { type ClassicGroupMember, EMPTY_ASSIGNMENT } from "./classic-group-member.js";
import { type JoinGroupAnswer, joinGroupResponse, type SyncGroupAnswer, syncGroupResponse } from "./classic-responses.js";
import { assignedPartitionsOf } from "./embedded-consumer-protocol.js";

/**
 * The classic group state machine (spec 4.2; GMM `prepareRebalance`,
 * `completeClassicGroupJoin`, `propagateAssignment`, ...). Every function
 * runs inside one write operation: parked JoinGroup/SyncGroup requests are
 * answered through `op.respond` (released with the operation's batch),
 * timers are (re-)armed on the shared GroupTimers.
 */

/** `group.classic.new.member.join.timeout.ms`: a new member's JoinGroup may wait this long (a constant in Kafka). */
export const CLASSIC_NEW_MEMBER_JOIN_TIMEOUT_MS = 300_000;

// ---- timers ----

/** (Re-)arms the member's heartbeat expiration (its session timeout unless told otherwise). */
export function rescheduleHeartbeat(
  op: WriteOp,
  env: CoordinatorEnv,
  group: ClassicGroup,
  member: ClassicGroupMember,
  timeoutMs = member.sessionTimeoutMs,
): void {
  env.timers.schedule(op.ctx, { kind: "classic-heartbeat", groupId: group.groupId, memberId: member.memberId }, timeoutMs);
}

export function cancelHeartbeat(op: WriteOp, env: CoordinatorEnv, groupId: string, memberId: string): void {
  env.timers.cancel(op.ctx, classicHeartbeatTimerName(groupId, memberId));
}

function scheduleJoinTimer(
  op: WriteOp,
  env: CoordinatorEnv,
  group: ClassicGroup,
  afterMs: number,
  initialDelay: InitialRebalanceDelay | null,
): void {
  env.timers.schedule(op.ctx, { kind: "classic-join", groupId: group.groupId, initialDelay }, afterMs);
}

// ---- answering parked requests ----

/** Answers the member's parked JoinGroup, if any. */
export function completeJoinFuture(op: WriteOp, group: ClassicGroup, member: ClassicGroupMember, answer: JoinGroupAnswer): boolean {
  const parked = group.takeParkedJoin(member);
  if (parked === null) return false;
  op.respond(parked.from, joinGroupResponse(parked.request, answer));
  return true;
}

/** Answers the member's parked SyncGroup, if any. */
export function completeSyncFuture(
  op: WriteOp,
  group: ClassicGroup,
  member: ClassicGroupMember,
  errorCode: number,
  answer?: SyncGroupAnswer,
): boolean {
  const parked = group.takeParkedSync(member);
  if (parked === null) return false;
  op.respond(parked.from, syncGroupResponse(parked.request, errorCode, answer));
  return true;
}

/** The member list the leader gets: every member with its metadata for the selected protocol. */
export function leaderMemberList(group: ClassicGroup): JoinGroupResponseMember[] {
  const protocolName = group.protocolName;
  if (protocolName === null) return [];
  return [...group.members().values()].map((member) => ({
    memberId: member.memberId,
    groupInstanceId: member.instanceId,
    metadata: member.metadata(protocolName),
  }));
}

/** The current generation's JoinGroup answer for a member (the leader gets the member list). */
export function currentGenerationAnswer(group: ClassicGroup, memberId: string, withMemberList: boolean): JoinGroupAnswer {
  return {
    memberId,
    generationId: group.generationId,
    protocolType: group.protocolType,
    protocolName: group.protocolName,
    leader: group.leaderId,
    skipAssignment: false,
    members: withMemberList && group.isLeader(memberId) ? leaderMemberList(group) : [],
  };
}

// ---- removing members ----

/** Removes a member (cancelling its heartbeat) and reports it; the caller moves the state machine on. */
export function removeClassicMember(
  op: WriteOp,
  env: CoordinatorEnv,
  group: ClassicGroup,
  member: ClassicGroupMember,
  reason: MemberRemovalReason,
): void {
  op.observe(
    memberRemovedObservation(
      group.groupId,
      { memberId: member.memberId, instanceId: member.instanceId, memberEpoch: group.generationId },
      reason,
    ),
  );
  cancelHeartbeat(op, env, group.groupId, member.memberId);
  group.remove(member.memberId);
}

/**
 * A member failed (session or new-member join deadline expired): its
 * parked JoinGroup gets UNKNOWN_MEMBER_ID, then a rebalance starts (from
 * STABLE/COMPLETING) or the join phase completes if everyone else is in.
 */
export function removeMemberAndUpdateGroup(
  op: WriteOp,
  env: CoordinatorEnv,
  group: ClassicGroup,
  member: ClassicGroupMember,
  reason: MemberRemovalReason,
): void {
  completeJoinFuture(op, group, member, { memberId: "", errorCode: ErrorCode.UNKNOWN_MEMBER_ID });
  removeClassicMember(op, env, group, member, reason);
  if (group.isInState("STABLE") || group.isInState("COMPLETING_REBALANCE")) {
    maybePrepareRebalanceOrCompleteJoin(op, env, group, `removing member ${member.memberId} (${reason})`);
  } else if (group.isInState("PREPARING_REBALANCE") && group.hasAllMembersJoined()) {
    completeJoin(op, env, group);
  }
}

/** A KIP-394 pending member vanished: the join phase may now complete. */
export function removePendingMemberAndUpdateGroup(op: WriteOp, env: CoordinatorEnv, group: ClassicGroup, memberId: string): void {
  group.remove(memberId);
  if (group.isInState("PREPARING_REBALANCE") && group.hasAllMembersJoined()) completeJoin(op, env, group);
}

// ---- the join phase ----

/** Starts a rebalance if the state allows it (EMPTY/STABLE/COMPLETING), else tries to finish the join phase. */
export function maybePrepareRebalanceOrCompleteJoin(op: WriteOp, env: CoordinatorEnv, group: ClassicGroup, reason: string): void {
  if (group.canRebalance()) prepareRebalance(op, env, group, reason);
  else maybeCompleteJoinPhase(op, env, group);
}

/** Completes the join phase when every member rejoined, except during the initial rebalance (its delay decides). */
export function maybeCompleteJoinPhase(op: WriteOp, env: CoordinatorEnv, group: ClassicGroup): void {
  if (!group.isInState("PREPARING_REBALANCE")) return;
  if (group.previousState === "EMPTY") return;
  if (!group.hasAllMembersJoined()) return;
  completeJoin(op, env, group);
}

/**
 * `prepareRebalance`: parked SyncGroups of an interrupted COMPLETING phase
 * get REBALANCE_IN_PROGRESS, the sync deadline is dropped, and the group
 * enters PREPARING_REBALANCE. From EMPTY the initial delay starts
 * (group.initial.rebalance.delay.ms, re-armed per new member up to the
 * rebalance timeout); otherwise the join phase completes at once if every
 * member is in, else at the join deadline (the group's rebalance timeout).
 */
export function prepareRebalance(op: WriteOp, env: CoordinatorEnv, group: ClassicGroup, reason: string): void {
  if (group.isInState("COMPLETING_REBALANCE")) resetAndPropagateAssignmentWithError(op, env, group, ErrorCode.REBALANCE_IN_PROGRESS);
  removeSyncExpiration(op, env, group);
  const isInitialRebalance = group.isInState("EMPTY");
  if (isInitialRebalance) {
    const delayMs = env.broker["group.initial.rebalance.delay.ms"];
    const remainingMs = Math.max(group.rebalanceTimeoutMs() - delayMs, 0);
    scheduleJoinTimer(op, env, group, delayMs, { delayMs, remainingMs });
  }
  group.transitionTo("PREPARING_REBALANCE", op.nowMs);
  op.ctx.log.info("preparing to rebalance classic group", { groupId: group.groupId, generationId: group.generationId, reason });
  if (!isInitialRebalance) maybeCompleteJoinElseSchedule(op, env, group);
}

function maybeCompleteJoinElseSchedule(op: WriteOp, env: CoordinatorEnv, group: ClassicGroup): void {
  if (group.hasAllMembersJoined()) completeJoin(op, env, group);
  else scheduleJoinTimer(op, env, group, group.rebalanceTimeoutMs(), null);
}

/**
 * The initial delay expired (`tryCompleteInitialRebalanceElseSchedule`):
 * when a member joined meanwhile and time is left, wait
 * min(delay, remaining) more; otherwise complete the join phase.
 */
export function onInitialDelayExpired(op: WriteOp, env: CoordinatorEnv, group: ClassicGroup, delay: InitialRebalanceDelay): void {
  if (group.newMemberAdded && delay.remainingMs !== 0) {
    group.newMemberAdded = false;
    const delayMs = Math.min(env.broker["group.initial.rebalance.delay.ms"], delay.remainingMs);
    const remainingMs = Math.max(delay.remainingMs - delay.delayMs, 0);
    scheduleJoinTimer(op, env, group, delayMs, { delayMs, remainingMs });
    return;
  }
  completeJoin(op, env, group);
}

/**
 * `completeClassicGroupJoin`: dynamic members that did not rejoin are
 * removed (static ones stay); a leader that did not rejoin is replaced by
 * one that did (none did: wait another rebalance timeout); then the next
 * generation: EMPTY (with its GroupMetadata record) or COMPLETING_REBALANCE
 * with every parked JoinGroup answered (only the leader gets the member
 * list) and the sync deadline armed.
 */
export function completeJoin(op: WriteOp, env: CoordinatorEnv, group: ClassicGroup): void {
  env.timers.cancel(op.ctx, classicJoinTimerName(group.groupId));
  for (const member of group.notYetRejoinedMembers()) {
    if (!member.isStaticMember) removeClassicMember(op, env, group, member, "rebalance-timeout");
  }
  if (group.isInState("DEAD")) return;
  if (!group.maybeElectNewJoinedLeader() && group.numMembers > 0) {
    op.ctx.log.warn("classic group could not complete its rebalance: no member rejoined", { groupId: group.groupId });
    scheduleJoinTimer(op, env, group, group.rebalanceTimeoutMs(), null);
    return;
  }
  group.initNextGeneration(op.nowMs);
  if (group.isInState("EMPTY")) {
    op.appendWithoutReplay(groupMetadataRecord(group, new Map()));
    return;
  }
  for (const member of group.members().values()) {
    completeJoinFuture(op, group, member, currentGenerationAnswer(group, member.memberId, true));
    rescheduleHeartbeat(op, env, group, member);
    member.isNew = false;
    group.addPendingSyncMember(member.memberId);
  }
  env.timers.schedule(
    op.ctx,
    { kind: "classic-sync", groupId: group.groupId, generationId: group.generationId },
    group.rebalanceTimeoutMs(),
  );
}

// ---- the sync phase ----

function removeSyncExpiration(op: WriteOp, env: CoordinatorEnv, group: ClassicGroup): void {
  group.clearPendingSyncMembers();
  env.timers.cancel(op.ctx, classicSyncTimerName(group.groupId));
}

/** The member has synced: the sync deadline goes once nobody is missing (or the group left the sync phase). */
export function removePendingSyncMember(op: WriteOp, env: CoordinatorEnv, group: ClassicGroup, memberId: string): void {
  group.removePendingSyncMember(memberId);
  const syncPhase = group.isInState("COMPLETING_REBALANCE") || group.isInState("STABLE");
  if (!syncPhase || group.hasReceivedSyncFromAllMembers()) env.timers.cancel(op.ctx, classicSyncTimerName(group.groupId));
}

/** An interrupted sync phase: every assignment is dropped and the parked SyncGroups get the error. */
function resetAndPropagateAssignmentWithError(op: WriteOp, env: CoordinatorEnv, group: ClassicGroup, errorCode: number): void {
  for (const member of group.members().values()) member.assignment = EMPTY_ASSIGNMENT;
  propagateAssignment(op, env, group, errorCode);
}

/** Answers every parked SyncGroup; a member that got its answer has its session restarted. */
function propagateAssignment(op: WriteOp, env: CoordinatorEnv, group: ClassicGroup, errorCode: number): void {
  const answerOf = (member: ClassicGroupMember): SyncGroupAnswer | undefined =>
    errorCode === ErrorCode.NONE
      ? { protocolType: group.protocolType, protocolName: group.protocolName, assignment: member.assignment }
      : undefined;
  for (const member of group.members().values()) {
    if (completeSyncFuture(op, group, member, errorCode, answerOf(member))) rescheduleHeartbeat(op, env, group, member);
  }
}

/**
 * The leader's assignment is stored (the caller wrote its GroupMetadata
 * record): members it left out get an empty assignment, every parked
 * SyncGroup is answered, the group is STABLE. Reported as one gc.target
 * (moved = partitions whose owner changed) and a gc.member per member.
 */
export function installAssignment(
  op: WriteOp,
  env: CoordinatorEnv,
  group: ClassicGroup,
  assignments: ReadonlyMap<string, Uint8Array>,
): void {
  const reported: { member: ClassicGroupMember; assigned: PartitionsByTopic }[] = [];
  let moved = 0;
  for (const member of group.members().values()) {
    member.assignment = assignments.get(member.memberId) ?? EMPTY_ASSIGNMENT;
    const assigned = assignedPartitionsOf(member.assignment);
    moved += countGained(member.reportedAssignment, assigned);
    reported.push({ member, assigned });
  }
  propagateAssignment(op, env, group, ErrorCode.NONE);
  group.transitionTo("STABLE", op.nowMs);
  op.observe(targetObservation(group.groupId, group.generationId, group.protocolName ?? "", group.numMembers, moved));
  for (const { member, assigned } of reported) reportClassicAssignment(op, group, member, assigned);
}

/** gc.member for a classic member's assignment at the current generation. */
export function reportClassicAssignment(
  op: WriteOp,
  group: ClassicGroup,
  member: ClassicGroupMember,
  assigned: PartitionsByTopic = member.reportedAssignment,
): void {
  op.observe(classicMemberObservation(group.groupId, member, group.generationId, member.lastReportedGeneration, assigned));
  member.lastReportedGeneration = group.generationId;
  member.reportedAssignment = assigned;
}

/** Partitions in `next` that were not in `previous`. */
function countGained(previous: PartitionsByTopic, next: PartitionsByTopic): number {
  const before = new Set<string>();
  for (const { topic, partition } of topicPartitionsOf(previous)) before.add(tpKey(topic, partition));
  let gained = 0;
  for (const { topic, partition } of topicPartitionsOf(next)) if (!before.has(tpKey(topic, partition))) gained++;
  return gained;
}
