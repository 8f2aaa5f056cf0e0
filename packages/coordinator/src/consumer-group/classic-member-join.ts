import { type ActorId, ErrorCode, type JoinGroupRequest } from "@kcsim/protocol";
import type { ClassicGroup } from "../classic-group/classic-group.js";
import { CONSUMER_PROTOCOL_TYPE } from "../classic-group/classic-group.js";
import { leaderMemberList, prepareRebalance } from "../classic-group/classic-rebalance.js";
import {
  requestedProtocols,
  requestedRebalanceTimeoutMs,
  requiresKnownMemberId,
  supportsSkippingAssignment,
} from "../classic-group/classic-request-validation.js";
import { joinGroupErrorResponse, joinGroupResponse } from "../classic-group/classic-responses.js";
import { subscriptionOf, toTopicIdPartitions } from "../classic-group/embedded-consumer-protocol.js";
import { canDowngradeAfterStaticReplacement, convertToClassicGroup } from "../migration/online-downgrade.js";
import { memberSubscriptionRecord } from "../records/consumer-group-records.js";
import type { CoordinatorEnv } from "../runtime/coordinator-env.js";
import { CoordinatorError } from "../runtime/coordinator-error.js";
import { classicMemberJoinTimerName } from "../runtime/group-timers.js";
import type { WriteOp } from "../runtime/write-op.js";
import type { ConsumerGroup } from "./consumer-group.js";
import {
  type ConsumerGroupMember,
  canonicalTopicNames,
  newConsumerGroupMember,
  sameMemberMetadata,
  sameTopicNames,
} from "./consumer-group-member.js";
import { maybeBumpGroupEpoch } from "./group-epoch-bump.js";
import { generateMemberId } from "./member-id.js";
import { maybeReconcile } from "./member-reconciliation.js";
import { replaceStaticMember } from "./static-member-replacement.js";
import { updateTargetAssignment } from "./target-assignment-update.js";

/** The member a classic JoinGroup is for, and the static member it replaces (if any). */
interface ResolvedClassicMember {
  readonly member: ConsumerGroupMember;
  readonly replaced: ConsumerGroupMember | null;
}

/**
 * GMM `getOrMaybeSubscribe{Dynamic,Static}ConsumerGroupMember` for a
 * classic member: no epoch check (the generation is checked by
 * SyncGroup/Heartbeat). A dynamic member is created if unknown; a static
 * member with an unknown member id takes over its instance whatever
 * protocol the holder uses; with a known id the instance must be its own.
 */
function resolveClassicMember(
  group: ConsumerGroup,
  memberId: string,
  instanceId: string | null,
  isUnknownMember: boolean,
): ResolvedClassicMember {
  if (instanceId === null) return { member: group.member(memberId) ?? newConsumerGroupMember(memberId), replaced: null };
  const existing = group.staticMember(instanceId);
  if (isUnknownMember) {
    if (existing === undefined) return { member: group.member(memberId) ?? newConsumerGroupMember(memberId), replaced: null };
    return { member: { ...existing, memberId, memberEpoch: 0, previousMemberEpoch: 0 }, replaced: existing };
  }
  if (existing === undefined) throw new CoordinatorError(ErrorCode.UNKNOWN_MEMBER_ID, `Instance id ${instanceId} is unknown.`);
  if (existing.memberId !== memberId) {
    throw new CoordinatorError(
      ErrorCode.FENCED_INSTANCE_ID,
      `Static member ${memberId} with instance id ${instanceId} was fenced by member ${existing.memberId}.`,
    );
  }
  return { member: existing, replaced: null };
}

/**
 * JoinGroup from a classic member to a non-empty consumer group (GMM
 * `classicGroupJoinToConsumerGroup`, spec 8: the mixed group). The member
 * joins like a consumer-protocol member but its subscription comes from
 * the JoinGroup metadata, its assignment from the server assignor, and
 * its answer is a JoinGroup response with generation = its member epoch
 * (no leader: there is nothing to assign client-side). Its session timer
 * uses its classic session timeout and its sync deadline its rebalance
 * timeout. A static classic member replacing the last consumer-protocol
 * member downgrades the group to a classic group (spec 8).
 */
export function classicMemberJoin(op: WriteOp, env: CoordinatorEnv, from: ActorId, request: JoinGroupRequest, group: ConsumerGroup): void {
  const { groupId, groupInstanceId: instanceId } = request;
  const isUnknownMember = request.memberId === "";
  const memberId = isUnknownMember ? generateMemberId(() => op.ctx.random()) : request.memberId;

  const maxSize = env.broker["group.consumer.max.size"];
  if (group.numMembers >= maxSize && !group.hasMember(memberId)) {
    throw new CoordinatorError(
      ErrorCode.GROUP_MAX_SIZE_REACHED,
      `The consumer group has reached its maximum capacity of ${maxSize} members.`,
    );
  }
  if (
    !group.supportsClassicProtocols(
      request.protocolType,
      request.protocols.map((protocol) => protocol.name),
    )
  ) {
    throw new CoordinatorError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, `Member ${memberId}'s protocols are not supported.`);
  }
  if (requiresKnownMemberId(request)) {
    op.respond(from, joinGroupErrorResponse(request, ErrorCode.MEMBER_ID_REQUIRED, memberId));
    return;
  }
  const firstProtocol = request.protocols[0];
  const subscription = firstProtocol === undefined ? null : subscriptionOf(firstProtocol.metadata);
  if (firstProtocol === undefined || subscription === null) {
    throw new CoordinatorError(ErrorCode.UNKNOWN_SERVER_ERROR, "Malformed embedded consumer protocol in subscription deserialization.");
  }

  const { member, replaced } = resolveClassicMember(group, memberId, instanceId, isUnknownMember);
  const holder = instanceId === null ? undefined : group.staticMember(instanceId);
  const downgrade = holder !== undefined && canDowngradeAfterStaticReplacement(env, group, holder);
  op.touch(groupId);
  if (replaced !== null) replaceStaticMember(op, group, replaced, member);

  const updated: ConsumerGroupMember = {
    ...member,
    instanceId: instanceId ?? member.instanceId,
    rackId: subscription.rackId ?? member.rackId,
    rebalanceTimeoutMs: request.rebalanceTimeoutMs !== -1 ? request.rebalanceTimeoutMs : member.rebalanceTimeoutMs,
    subscribedTopicNames: canonicalTopicNames(subscription.topics),
    // Regex subscriptions do not exist for classic members.
    subscribedTopicRegex: "",
    clientId: request.clientId,
    clientHost: from,
    classicMemberMetadata: { sessionTimeoutMs: request.sessionTimeoutMs, supportedProtocols: requestedProtocols(request) },
  };
  const subscriptionChanged =
    !sameTopicNames(updated.subscribedTopicNames, member.subscribedTopicNames) ||
    updated.subscribedTopicRegex !== member.subscribedTopicRegex;
  if (!group.hasMember(memberId) || !sameMemberMetadata(updated, member)) op.append(memberSubscriptionRecord(groupId, updated));
  maybeBumpGroupEpoch(op, group, subscriptionChanged);
  const owned = toTopicIdPartitions(subscription.ownedPartitions, op.state.image);

  if (downgrade) {
    // Without a subscription change the member first converges on the target it inherited.
    const current = group.member(memberId);
    if (!subscriptionChanged && current !== undefined) maybeReconcile(op, env, group, current, owned);
    const classic = convertToClassicGroup(op, env, group, new Set());
    joinDowngradedGroup(op, env, from, request, classic, memberId, subscriptionChanged);
    return;
  }

  if (group.groupEpoch > group.assignmentEpoch) updateTargetAssignment(op, group, env.broker["group.consumer.assignors"]);
  const current = group.member(memberId);
  if (current === undefined) throw new Error(`member ${memberId} vanished from group ${groupId}`);
  const reconciled = maybeReconcile(op, env, group, current, owned);

  env.timers.cancel(op.ctx, classicMemberJoinTimerName(groupId, memberId));
  env.timers.scheduleSession(op.ctx, groupId, memberId, request.sessionTimeoutMs);
  env.timers.schedule(op.ctx, { kind: "classic-member-sync", groupId, memberId }, requestedRebalanceTimeoutMs(request));
  op.respond(
    from,
    joinGroupResponse(request, {
      memberId,
      generationId: reconciled.memberEpoch,
      protocolType: CONSUMER_PROTOCOL_TYPE,
      protocolName: firstProtocol.name,
    }),
  );
}

/**
 * The JoinGroup that downgraded the group is answered by the new classic
 * group. Same subscription: the member continues the generation like a
 * static member rejoining a STABLE group (a v9+ leader skips the
 * assignment). Changed subscription (KAFKA-19546, fixed: Kafka 4.0.0
 * ignored it): the JoinGroup parks and the classic group rebalances.
 */
function joinDowngradedGroup(
  op: WriteOp,
  env: CoordinatorEnv,
  from: ActorId,
  request: JoinGroupRequest,
  classic: ClassicGroup,
  memberId: string,
  subscriptionChanged: boolean,
): void {
  const member = classic.member(memberId);
  if (member === undefined) throw new Error(`member ${memberId} was not carried into classic group ${classic.groupId}`);
  if (subscriptionChanged) {
    classic.updateMember(member, requestedProtocols(request), requestedRebalanceTimeoutMs(request), request.sessionTimeoutMs, {
      from,
      request,
    });
    prepareRebalance(
      op,
      env,
      classic,
      `downgrade: static member ${memberId} replaced the last consumer-protocol member with a new subscription`,
    );
    return;
  }
  const isLeader = classic.isLeader(memberId);
  const skipAssignment = supportsSkippingAssignment(request) && isLeader;
  op.respond(
    from,
    joinGroupResponse(request, {
      memberId,
      generationId: classic.generationId,
      protocolType: classic.protocolType,
      protocolName: classic.protocolName,
      // Before v9 a leader cannot skip the assignment: it is told it follows.
      leader: isLeader && !skipAssignment ? "" : classic.leaderId,
      skipAssignment,
      members: skipAssignment ? leaderMemberList(classic) : [],
    }),
  );
}
