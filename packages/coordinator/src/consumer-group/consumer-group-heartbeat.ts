import { type ActorId, type ConsumerGroupHeartbeatRequest, type ConsumerGroupHeartbeatResponse, ErrorCode } from "@kcsim/protocol";
import { convertToConsumerGroup, validateOnlineUpgrade } from "../migration/online-upgrade.js";
import { validateMemberEpoch } from "../reconciliation/validate-member-epoch.js";
import { groupMetadataTombstone } from "../records/classic-group-records.js";
import { memberSubscriptionRecord } from "../records/consumer-group-records.js";
import type { CoordinatorEnv } from "../runtime/coordinator-env.js";
import { CoordinatorError } from "../runtime/coordinator-error.js";
import type { WriteOp } from "../runtime/write-op.js";
import { countPartitions, sameAssignment, type TopicIdPartitions } from "../topic-id-partitions.js";
import type { ConsumerGroup } from "./consumer-group.js";
import { consumerGroupLeave } from "./consumer-group-leave.js";
import {
  type ConsumerGroupMember,
  canonicalTopicNames,
  LEAVE_GROUP_MEMBER_EPOCH,
  LEAVE_GROUP_STATIC_MEMBER_EPOCH,
  newConsumerGroupMember,
  sameMemberMetadata,
  sameTopicNames,
  usesClassicProtocol,
} from "./consumer-group-member.js";
import { maybeBumpGroupEpoch } from "./group-epoch-bump.js";
import { heartbeatResponse } from "./heartbeat-responses.js";
import { generateMemberId } from "./member-id.js";
import { maybeReconcile } from "./member-reconciliation.js";
import { replaceStaticMember } from "./static-member-replacement.js";
import { updateTargetAssignment } from "./target-assignment-update.js";

/**
 * ConsumerGroupHeartbeat on the group's shard (GMM `consumerGroupHeartbeat`,
 * spec 1.3), for a request that passed validation: epoch -1 / -2 leave,
 * anything else joins or heartbeats. Throws CoordinatorError for an error
 * answer (the operation is then rolled back).
 */
export function consumerGroupHeartbeat(
  op: WriteOp,
  env: CoordinatorEnv,
  from: ActorId,
  request: ConsumerGroupHeartbeatRequest,
): ConsumerGroupHeartbeatResponse {
  if (request.memberEpoch === LEAVE_GROUP_MEMBER_EPOCH || request.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
    return consumerGroupLeave(op, env, request);
  }
  return consumerGroupJoinOrHeartbeat(op, env, from, request);
}

/** The member the heartbeat is for, and the static member it replaces (if any). */
interface ResolvedMember {
  readonly member: ConsumerGroupMember;
  readonly replaced: ConsumerGroupMember | null;
}

function consumerGroupJoinOrHeartbeat(
  op: WriteOp,
  env: CoordinatorEnv,
  from: ActorId,
  request: ConsumerGroupHeartbeatRequest,
): ConsumerGroupHeartbeatResponse {
  const { groupId, memberEpoch, instanceId } = request;
  const owned: readonly TopicIdPartitions[] | null = request.topicPartitions;
  const joining = memberEpoch === 0;

  // 1. The group: created only by a join (replacing an empty classic group, or upgrading a non-empty one).
  const group = consumerGroupForHeartbeat(op, env, request, joining);

  // 2. Size.
  const maxSize = env.broker["group.consumer.max.size"];
  if (group.numMembers >= maxSize && (request.memberId === "" || !group.hasMember(request.memberId))) {
    throw new CoordinatorError(
      ErrorCode.GROUP_MAX_SIZE_REACHED,
      `The consumer group has reached its maximum capacity of ${maxSize} members.`,
    );
  }

  // 3. The member (every check that can fail comes before the first record).
  const memberId = request.memberId === "" ? generateMemberId(() => op.ctx.random()) : request.memberId;
  const rejoinAtEpochZero = env.broker["kcsim.group.consumer.rejoin.at.epoch.zero"];
  const { member, replaced } =
    instanceId === null
      ? resolveDynamicMember(group, memberId, memberEpoch, owned, joining, rejoinAtEpochZero)
      : resolveStaticMember(group, memberId, memberEpoch, instanceId, owned, joining);

  if (replaced !== null) replaceStaticMember(op, group, replaced, member);

  // 4. Apply the request's non-null fields; write MemberMetadata if anything changed.
  const updated: ConsumerGroupMember = {
    ...member,
    instanceId: instanceId ?? member.instanceId,
    rackId: request.rackId ?? member.rackId,
    rebalanceTimeoutMs: request.rebalanceTimeoutMs !== -1 ? request.rebalanceTimeoutMs : member.rebalanceTimeoutMs,
    serverAssignor: request.serverAssignor ?? member.serverAssignor,
    subscribedTopicNames:
      request.subscribedTopicNames !== null ? canonicalTopicNames(request.subscribedTopicNames) : member.subscribedTopicNames,
    subscribedTopicRegex: request.subscribedTopicRegex ?? member.subscribedTopicRegex,
    clientId: request.clientId,
    clientHost: from,
    // A member heartbeating with the consumer protocol no longer uses the classic one.
    classicMemberMetadata: null,
  };
  const subscriptionChanged =
    !sameTopicNames(updated.subscribedTopicNames, member.subscribedTopicNames) ||
    updated.subscribedTopicRegex !== member.subscribedTopicRegex;
  if (!group.hasMember(memberId) || !sameMemberMetadata(updated, member)) op.append(memberSubscriptionRecord(groupId, updated));

  // 5. Group epoch: bumped for a new subscription (or a group still at epoch 0) or new subscribed-topic metadata.
  // A static replacement takes over the old member's assignment with no bump (unless the planted bug says otherwise).
  const bumpForReplacement = replaced !== null && env.bugs.has("static-rejoin-bumps-epoch");
  maybeBumpGroupEpoch(op, group, group.groupEpoch === 0 || subscriptionChanged || bumpForReplacement);

  // 6. A new target assignment, lazily: only when the group epoch moved past it.
  if (group.groupEpoch > group.assignmentEpoch) updateTargetAssignment(op, group, env.broker["group.consumer.assignors"]);

  // 7. Reconcile this member only.
  const current = group.member(memberId);
  if (current === undefined) throw new Error(`member ${memberId} vanished from group ${groupId}`);
  const reconciled = maybeReconcile(op, env, group, current, owned);

  // 8. Session timer, then the answer.
  env.timers.scheduleSession(op.ctx, groupId, memberId, env.broker["group.consumer.session.timeout.ms"]);
  const fullRequest =
    joining ||
    (request.rebalanceTimeoutMs !== -1 &&
      (request.subscribedTopicNames !== null || request.subscribedTopicRegex !== null) &&
      request.topicPartitions !== null);
  const assignmentChanged =
    member.assignedPartitions !== reconciled.assignedPartitions &&
    (countPartitions(member.assignedPartitions) !== countPartitions(reconciled.assignedPartitions) ||
      !sameAssignment(member.assignedPartitions, reconciled.assignedPartitions));
  return heartbeatResponse(
    request,
    memberId,
    reconciled.memberEpoch,
    env.broker["group.consumer.heartbeat.interval.ms"],
    fullRequest || assignmentChanged ? reconciled.assignedPartitions : null,
  );
}

/**
 * The consumer group to heartbeat in (GMM `getOrMaybeCreateConsumerGroup`,
 * spec 1.3 step 1 and 8). A join creates it when absent; it replaces an
 * offsets-only simple classic group, and an empty classic group (whose
 * tombstone is written: empty groups convert whatever the policy); a
 * non-empty classic group is upgraded online if allowed, else the join is
 * GROUP_ID_NOT_FOUND. Anything else on a missing or classic group is
 * GROUP_ID_NOT_FOUND.
 */
function consumerGroupForHeartbeat(
  op: WriteOp,
  env: CoordinatorEnv,
  request: ConsumerGroupHeartbeatRequest,
  createIfAbsent: boolean,
): ConsumerGroup {
  const { groupId } = request;
  const group = op.state.groups.get(groupId);
  if (group?.protocol === "consumer") return group;
  if (createIfAbsent && group !== undefined && !group.isSimpleGroup()) {
    op.touch(groupId);
    if (!group.isInState("EMPTY")) {
      validateOnlineUpgrade(env, group, request.memberId);
      return convertToConsumerGroup(op, env, group);
    }
    op.append(groupMetadataTombstone(groupId));
    op.ctx.log.info("converted the empty classic group to a consumer group", { groupId });
  }
  if (createIfAbsent) {
    op.touch(groupId);
    return op.state.groups.createConsumerGroup(groupId);
  }
  throw new CoordinatorError(
    ErrorCode.GROUP_ID_NOT_FOUND,
    group === undefined ? `Group ${groupId} not found.` : `Group ${groupId} is not a consumer group.`,
  );
}

/** GMM `getOrMaybeSubscribeDynamicConsumerGroupMember`. */
function resolveDynamicMember(
  group: ConsumerGroup,
  memberId: string,
  memberEpoch: number,
  owned: readonly TopicIdPartitions[] | null,
  joining: boolean,
  rejoinAtEpochZero: boolean,
): ResolvedMember {
  const existing = group.member(memberId);
  if (existing === undefined && !joining) {
    throw new CoordinatorError(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${memberId} is not a member of group ${group.groupId}.`);
  }
  const member = existing ?? newConsumerGroupMember(memberId);
  throwIfMemberEpochIsInvalid(member, memberEpoch, owned, rejoinAtEpochZero);
  return { member, replaced: null };
}

/** GMM `getOrMaybeSubscribeStaticConsumerGroupMember`. */
function resolveStaticMember(
  group: ConsumerGroup,
  memberId: string,
  memberEpoch: number,
  instanceId: string,
  owned: readonly TopicIdPartitions[] | null,
  joining: boolean,
): ResolvedMember {
  const existing = group.staticMember(instanceId);
  if (joining) {
    if (existing === undefined) return { member: group.member(memberId) ?? newConsumerGroupMember(memberId), replaced: null };
    // The instance is taken: a consumer-protocol holder must have left with epoch -2; a classic one is simply replaced.
    if (!usesClassicProtocol(existing) && existing.memberEpoch !== LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
      throw new CoordinatorError(
        ErrorCode.UNRELEASED_INSTANCE_ID,
        `Static member ${memberId} with instance id ${instanceId} cannot join the group because the instance id is owned by ${existing.memberId} member.`,
      );
    }
    // The replacement: the old member under the new id, at epoch 0.
    return { member: { ...existing, memberId, memberEpoch: 0, previousMemberEpoch: 0 }, replaced: existing };
  }
  if (existing === undefined) throw new CoordinatorError(ErrorCode.UNKNOWN_MEMBER_ID, `Instance id ${instanceId} is unknown.`);
  if (existing.memberId !== memberId) {
    throw new CoordinatorError(
      ErrorCode.FENCED_INSTANCE_ID,
      `Static member ${memberId} with instance id ${instanceId} was fenced by member ${existing.memberId}.`,
    );
  }
  // Not joining, so never epoch 0: a static member's join is the replacement above.
  throwIfMemberEpochIsInvalid(existing, memberEpoch, owned, false);
  return { member: existing, replaced: null };
}

/**
 * GMM `throwIfConsumerGroupMemberEpochIsInvalid`. With `rejoinAtEpochZero` (kcsim.group.consumer.rejoin.at.epoch.zero),
 * the early return KAFKA-19233 added for epoch 0: a member the group still holds rejoins instead of being fenced.
 */
function throwIfMemberEpochIsInvalid(
  member: ConsumerGroupMember,
  memberEpoch: number,
  owned: readonly TopicIdPartitions[] | null,
  rejoinAtEpochZero: boolean,
): void {
  if (rejoinAtEpochZero && memberEpoch === 0) return;
  const validation = validateMemberEpoch(memberEpoch, member, owned);
  if (!validation.ok) throw new CoordinatorError(validation.errorCode, validation.message);
}
