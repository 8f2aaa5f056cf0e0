import { type ActorId, ErrorCode, type JoinGroupRequest } from "@kcsim/protocol";
import type { ConsumerGroup } from "../consumer-group/consumer-group.js";
import { currentAssignments, emptyGroupMetadataRecord, groupMetadataRecord } from "../records/classic-group-records.js";
import { consumerGroupTombstones } from "../records/consumer-group-records.js";
import type { CoordinatorEnv } from "../runtime/coordinator-env.js";
import { memberRemovedObservation } from "../runtime/observation-builders.js";
import type { WriteOp } from "../runtime/write-op.js";
import type { ClassicGroup } from "./classic-group.js";
import { ClassicGroupMember, type ParkedJoin } from "./classic-group-member.js";
import { generateClassicMemberId } from "./classic-member-id.js";
import {
  CLASSIC_NEW_MEMBER_JOIN_TIMEOUT_MS,
  completeJoinFuture,
  currentGenerationAnswer,
  leaderMemberList,
  maybeCompleteJoinPhase,
  maybePrepareRebalanceOrCompleteJoin,
  prepareRebalance,
  removeClassicMember,
  reportClassicAssignment,
  rescheduleHeartbeat,
} from "./classic-rebalance.js";
import {
  requestedProtocols,
  requestedRebalanceTimeoutMs,
  requiresKnownMemberId,
  supportsSkippingAssignment,
} from "./classic-request-validation.js";
import { joinGroupErrorResponse, joinGroupResponse, syncGroupResponse } from "./classic-responses.js";

/** One JoinGroup being handled: who sent it and what it asks. */
interface JoinContext {
  readonly op: WriteOp;
  readonly env: CoordinatorEnv;
  readonly from: ActorId;
  readonly request: JoinGroupRequest;
}

function reply(join: JoinContext, errorCode: number, memberId: string): void {
  join.op.respond(join.from, joinGroupErrorResponse(join.request, errorCode, memberId));
}

function parkedJoin(join: JoinContext): ParkedJoin {
  return { from: join.from, request: join.request };
}

/**
 * JoinGroup to a classic group, or to a group id that has none yet (GMM
 * `classicGroupJoinToClassicGroup`, spec 4.2). An empty consumer group of
 * that id is deleted first (empty groups convert either way). An unknown
 * member id ("") creates the group; a known one for a missing group is
 * UNKNOWN_MEMBER_ID. A group created here is written at once as an empty
 * GroupMetadata record when the join itself writes nothing.
 */
export function joinClassicGroup(op: WriteOp, env: CoordinatorEnv, from: ActorId, request: JoinGroupRequest): void {
  const join: JoinContext = { op, env, from, request };
  const { groupId, memberId } = request;
  const isUnknownMember = memberId === "";
  const existing = op.state.groups.get(groupId);
  // Kafka drops the empty consumer group's tombstones along with the failed join.
  if (!isUnknownMember && (existing === undefined || existing.protocol === "consumer")) {
    reply(join, ErrorCode.UNKNOWN_MEMBER_ID, memberId);
    return;
  }
  op.touch(groupId);
  if (existing?.protocol === "consumer") deleteEmptyConsumerGroup(op, existing);
  const recordsBefore = op.records.length;
  let group = op.state.groups.classicGroup(groupId);
  const isNewGroup = group === undefined;
  group ??= op.state.groups.createClassicGroup(groupId, op.nowMs);

  if (!acceptJoiningMember(group, memberId, env.broker["group.max.size"])) {
    const member = group.member(memberId);
    if (member !== undefined) removeClassicMember(op, env, group, member, "rebalance-timeout");
    else group.remove(memberId);
    reply(join, ErrorCode.GROUP_MAX_SIZE_REACHED, "");
  } else if (isUnknownMember) {
    joinNewMember(join, group);
  } else {
    joinExistingMember(join, group);
  }

  if (isNewGroup && op.records.length === recordsBefore) op.appendWithoutReplay(emptyGroupMetadataRecord(group));
}

/** The tombstones of an empty consumer group whose id a classic member takes over (replayed: the group is gone). */
function deleteEmptyConsumerGroup(op: WriteOp, group: ConsumerGroup): void {
  for (const record of consumerGroupTombstones(group)) op.append(record);
  op.ctx.log.info("converted the empty consumer group to a classic group", { groupId: group.groupId });
}

/**
 * Capacity (group.max.size): while PREPARING, members already waiting in
 * a JoinGroup and, up to the limit, others; while COMPLETING or STABLE,
 * existing members and, up to the limit, new ones.
 */
function acceptJoiningMember(group: ClassicGroup, memberId: string, maxSize: number): boolean {
  switch (group.state()) {
    case "EMPTY":
    case "DEAD":
      return true;
    case "PREPARING_REBALANCE":
      return group.member(memberId)?.isAwaitingJoin === true || group.numAwaitingJoinResponse < maxSize;
    case "COMPLETING_REBALANCE":
    case "STABLE":
      return group.hasMember(memberId) || group.numMembers < maxSize;
  }
}

function protocolNames(request: JoinGroupRequest): string[] {
  return request.protocols.map((protocol) => protocol.name);
}

function joinNewMember(join: JoinContext, group: ClassicGroup): void {
  const { request } = join;
  if (group.isInState("DEAD")) {
    reply(join, ErrorCode.COORDINATOR_NOT_AVAILABLE, "");
    return;
  }
  if (!group.supportsProtocols(request.protocolType, protocolNames(request))) {
    reply(join, ErrorCode.INCONSISTENT_GROUP_PROTOCOL, "");
    return;
  }
  const newMemberId = generateClassicMemberId(request.groupInstanceId ?? request.clientId, () => join.op.ctx.random());
  if (request.groupInstanceId !== null) {
    const existingMemberId = group.staticMemberId(request.groupInstanceId);
    if (existingMemberId !== undefined) updateStaticMemberThenRebalanceOrCompleteJoin(join, group, existingMemberId, newMemberId);
    else addMemberThenRebalanceOrCompleteJoin(join, group, newMemberId);
    return;
  }
  if (requiresKnownMemberId(request)) {
    // KIP-394: park the id as pending (it expires after the session timeout) and ask the member to rejoin with it.
    group.addPendingMember(newMemberId);
    join.env.timers.schedule(
      join.op.ctx,
      { kind: "classic-heartbeat", groupId: group.groupId, memberId: newMemberId },
      request.sessionTimeoutMs,
    );
    reply(join, ErrorCode.MEMBER_ID_REQUIRED, newMemberId);
    return;
  }
  addMemberThenRebalanceOrCompleteJoin(join, group, newMemberId);
}

function joinExistingMember(join: JoinContext, group: ClassicGroup): void {
  const { request, op } = join;
  const { memberId } = request;
  if (group.isInState("DEAD")) {
    reply(join, ErrorCode.COORDINATOR_NOT_AVAILABLE, memberId);
    return;
  }
  if (!group.supportsProtocols(request.protocolType, protocolNames(request))) {
    reply(join, ErrorCode.INCONSISTENT_GROUP_PROTOCOL, memberId);
    return;
  }
  if (group.isPendingMember(memberId)) {
    // Pending ids are only handed to dynamic members (Kafka throws IllegalStateException: UNKNOWN_SERVER_ERROR).
    if (request.groupInstanceId !== null) reply(join, ErrorCode.UNKNOWN_SERVER_ERROR, memberId);
    else addMemberThenRebalanceOrCompleteJoin(join, group, memberId);
    return;
  }
  const memberError = group.validateMember(memberId, request.groupInstanceId);
  const member = group.member(memberId);
  if (memberError !== ErrorCode.NONE || member === undefined) {
    reply(join, memberError === ErrorCode.NONE ? ErrorCode.UNKNOWN_MEMBER_ID : memberError, memberId);
    return;
  }
  const protocols = requestedProtocols(request);
  switch (group.state()) {
    case "PREPARING_REBALANCE":
      updateMemberThenRebalanceOrCompleteJoin(join, group, member, "rejoining during PREPARING_REBALANCE");
      return;
    case "COMPLETING_REBALANCE":
      if (member.matches(protocols)) {
        // It probably lost the JoinGroup response: answer again with the current generation.
        op.respond(join.from, joinGroupResponse(request, currentGenerationAnswer(group, memberId, true)));
      } else {
        updateMemberThenRebalanceOrCompleteJoin(join, group, member, "metadata changed during COMPLETING_REBALANCE");
      }
      return;
    case "STABLE":
      if (group.isLeader(memberId)) {
        // The leader's JoinGroup always rebalances: it may have seen a change the metadata does not show.
        updateMemberThenRebalanceOrCompleteJoin(join, group, member, "the leader rejoined");
      } else if (!member.matches(protocols)) {
        updateMemberThenRebalanceOrCompleteJoin(join, group, member, "metadata changed during STABLE");
      } else {
        op.respond(join.from, joinGroupResponse(request, currentGenerationAnswer(group, memberId, false)));
      }
      return;
    case "EMPTY":
    case "DEAD":
      // An unexpected state: the member resets its generation and rejoins.
      reply(join, ErrorCode.UNKNOWN_MEMBER_ID, memberId);
      return;
  }
}

function updateMemberThenRebalanceOrCompleteJoin(join: JoinContext, group: ClassicGroup, member: ClassicGroupMember, reason: string): void {
  const { request } = join;
  group.updateMember(member, requestedProtocols(request), requestedRebalanceTimeoutMs(request), request.sessionTimeoutMs, parkedJoin(join));
  maybePrepareRebalanceOrCompleteJoin(join.op, join.env, group, `member ${member.memberId}: ${reason}`);
}

/**
 * A new member, parked in its JoinGroup. It may wait up to the new-member
 * join timeout (300 s): its session does not run while it cannot heartbeat.
 * Joining during the initial delay extends the delay.
 */
function addMemberThenRebalanceOrCompleteJoin(join: JoinContext, group: ClassicGroup, memberId: string): void {
  const { request, op, env } = join;
  const member = new ClassicGroupMember({
    memberId,
    instanceId: request.groupInstanceId,
    clientId: request.clientId,
    clientHost: join.from,
    rebalanceTimeoutMs: requestedRebalanceTimeoutMs(request),
    sessionTimeoutMs: request.sessionTimeoutMs,
    protocolType: request.protocolType,
    supportedProtocols: requestedProtocols(request),
  });
  member.isNew = true;
  if (group.isInState("PREPARING_REBALANCE") && group.previousState === "EMPTY") group.newMemberAdded = true;
  group.add(member, parkedJoin(join));
  rescheduleHeartbeat(op, env, group, member, CLASSIC_NEW_MEMBER_JOIN_TIMEOUT_MS);
  maybePrepareRebalanceOrCompleteJoin(op, env, group, `adding member ${memberId} (instance ${request.groupInstanceId ?? "none"})`);
}

/**
 * KIP-345: a static member rejoins with a new member id and takes over
 * its instance's member, assignment included; the old id is fenced
 * (FENCED_INSTANCE_ID, also for its parked requests). In STABLE, when the
 * selected protocol does not change, there is no rebalance: the group is
 * rewritten and the current generation returned (a v9+ leader gets
 * SkipAssignment=true). In COMPLETING_REBALANCE a rebalance is forced: the
 * leader may already be assigning under the old id.
 */
function updateStaticMemberThenRebalanceOrCompleteJoin(
  join: JoinContext,
  group: ClassicGroup,
  oldMemberId: string,
  newMemberId: string,
): void {
  const { request, op, env } = join;
  const instanceId = request.groupInstanceId;
  if (instanceId === null) return;
  const leaderBefore = group.leaderId;
  const { removed, added } = group.replaceStaticMember(instanceId, oldMemberId, newMemberId);
  if (removed.awaitingJoin !== null) {
    op.respond(removed.awaitingJoin.from, joinGroupErrorResponse(removed.awaitingJoin.request, ErrorCode.FENCED_INSTANCE_ID, oldMemberId));
    removed.awaitingJoin = null;
  }
  if (removed.awaitingSync !== null) {
    op.respond(removed.awaitingSync.from, syncGroupResponse(removed.awaitingSync.request, ErrorCode.FENCED_INSTANCE_ID));
    removed.awaitingSync = null;
  }
  op.observe(
    memberRemovedObservation(group.groupId, { memberId: oldMemberId, instanceId, memberEpoch: group.generationId }, "static-replaced"),
  );
  // The old id's heartbeat timer expires without effect: the group no longer has that member.
  rescheduleHeartbeat(op, env, group, added);
  group.updateMember(added, requestedProtocols(request), requestedRebalanceTimeoutMs(request), request.sessionTimeoutMs, parkedJoin(join));

  switch (group.state()) {
    case "STABLE": {
      if (group.protocolName !== group.selectProtocol()) {
        maybePrepareRebalanceOrCompleteJoin(
          op,
          env,
          group,
          `static member ${newMemberId} (instance ${instanceId}) changed the selected protocol`,
        );
        return;
      }
      op.appendWithoutReplay(groupMetadataRecord(group, currentAssignments(group)));
      if (supportsSkippingAssignment(request)) {
        const isLeader = group.isLeader(newMemberId);
        completeJoinFuture(op, group, added, {
          memberId: newMemberId,
          generationId: group.generationId,
          protocolType: group.protocolType,
          protocolName: group.protocolName,
          leader: group.leaderId,
          skipAssignment: isLeader,
          members: isLeader ? leaderMemberList(group) : [],
        });
      } else {
        completeJoinFuture(op, group, added, {
          memberId: newMemberId,
          generationId: group.generationId,
          protocolType: group.protocolType,
          protocolName: group.protocolName,
          leader: leaderBefore,
        });
      }
      reportClassicAssignment(op, group, added);
      return;
    }
    case "COMPLETING_REBALANCE":
      prepareRebalance(op, env, group, `static member ${newMemberId} (instance ${instanceId}) rejoined during COMPLETING_REBALANCE`);
      return;
    case "PREPARING_REBALANCE":
      maybeCompleteJoinPhase(op, env, group);
      return;
    case "EMPTY":
    case "DEAD":
      // A static member exists, so the group has members: Kafka throws IllegalStateException here.
      return;
  }
}
