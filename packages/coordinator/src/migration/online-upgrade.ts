import { ErrorCode } from "@kcsim/protocol";
import type { ClassicGroup } from "../classic-group/classic-group.js";
import type { ClassicGroupMember } from "../classic-group/classic-group-member.js";
import { completeJoinFuture, completeSyncFuture } from "../classic-group/classic-rebalance.js";
import { assignmentOf, subscriptionOf, toTopicIdPartitions } from "../classic-group/embedded-consumer-protocol.js";
import type { ConsumerGroup } from "../consumer-group/consumer-group.js";
import { type ConsumerGroupMember, canonicalTopicNames, newConsumerGroupMember } from "../consumer-group/consumer-group-member.js";
import type { MetadataImage } from "../metadata/metadata-image.js";
import { MemberState } from "../reconciliation/member-state.js";
import { groupMetadataTombstone } from "../records/classic-group-records.js";
import {
  currentAssignmentRecord,
  groupEpochRecord,
  memberSubscriptionRecord,
  targetAssignmentMetadataRecord,
  targetAssignmentRecord,
} from "../records/consumer-group-records.js";
import type { CoordinatorEnv } from "../runtime/coordinator-env.js";
import { CoordinatorError, IllegalStateError } from "../runtime/coordinator-error.js";
import { memberRemovedObservation } from "../runtime/observation-builders.js";
import type { WriteOp } from "../runtime/write-op.js";
import type { TopicIdPartitions } from "../topic-id-partitions.js";
import { isUpgradeEnabled } from "./migration-policy.js";

function refuse(group: ClassicGroup, why: string): CoordinatorError {
  return new CoordinatorError(
    ErrorCode.GROUP_ID_NOT_FOUND,
    `Cannot upgrade classic group ${group.groupId} to consumer group because ${why}.`,
  );
}

/**
 * `validateOnlineUpgrade` (spec 8): a non-empty classic group converts
 * when the policy allows upgrades, it uses the embedded consumer protocol
 * and it is no larger than group.consumer.max.size; otherwise the joining
 * consumer gets GROUP_ID_NOT_FOUND (fatal to it).
 *
 * A group exactly at group.consumer.max.size would convert and then refuse
 * the joining member (GROUP_MAX_SIZE_REACHED): kcsim refuses it before
 * converting, so the classic group's parked requests are left alone.
 */
export function validateOnlineUpgrade(env: CoordinatorEnv, group: ClassicGroup, joiningMemberId: string): void {
  if (!isUpgradeEnabled(env.broker)) throw refuse(group, "online upgrade is disabled");
  if (!group.usesConsumerGroupProtocol()) throw refuse(group, "the group does not use the consumer embedded protocol");
  const maxSize = env.broker["group.consumer.max.size"];
  if (group.numMembers > maxSize) throw refuse(group, "the group size exceeds the consumer group maximum size");
  if (group.numMembers >= maxSize && (joiningMemberId === "" || !group.hasMember(joiningMemberId))) {
    throw new CoordinatorError(
      ErrorCode.GROUP_MAX_SIZE_REACHED,
      `The consumer group has reached its maximum capacity of ${maxSize} members.`,
    );
  }
}

/** The subscription and assignment a classic member converts with; throws GROUP_ID_NOT_FOUND when they do not decode. */
function convertedMember(group: ClassicGroup, member: ClassicGroupMember, image: MetadataImage): ConsumerGroupMember {
  // A group still in its first join phase has no selected protocol yet: the member's preferred one stands in.
  const protocolName = group.protocolName ?? member.supportedProtocols[0]?.name;
  const subscription = protocolName === undefined ? null : subscriptionOf(member.metadata(protocolName));
  const assignment = assignmentOf(member.assignment);
  if (subscription === null || assignment === null) throw refuse(group, "the embedded consumer protocol is malformed");
  // KAFKA-18134: user data in an assignment means a custom client-side assignor the server cannot continue.
  if (assignment.userData !== null && assignment.userData.length > 0) throw refuse(group, "an unsupported custom assignor is in use");
  const generation = group.generationId;
  return {
    ...newConsumerGroupMember(member.memberId),
    memberEpoch: generation,
    previousMemberEpoch: generation,
    state: MemberState.STABLE,
    instanceId: member.instanceId,
    rackId: subscription.rackId,
    rebalanceTimeoutMs: member.rebalanceTimeoutMs,
    clientId: member.clientId,
    clientHost: member.clientHost,
    subscribedTopicNames: canonicalTopicNames(subscription.topics),
    assignedPartitions: toTopicIdPartitions(assignment.assignedPartitions, image),
    classicMemberMetadata: { sessionTimeoutMs: member.sessionTimeoutMs, supportedProtocols: member.supportedProtocols },
  };
}

/**
 * KAFKA-21684 (fixed): a partition that two classic assignments claim
 * (a faulty client-side assignor, or a stale assignment) made the upgrade
 * fail on the partition epochs. Here the first member (in group order)
 * keeps it and the others lose it; their next JoinGroup reconciles them.
 */
function withoutDoubleClaims(members: readonly ConsumerGroupMember[]): ConsumerGroupMember[] {
  const claimed = new Map<string, Set<number>>();
  return members.map((member) => {
    const kept: TopicIdPartitions[] = [];
    for (const { topicId, partitions } of member.assignedPartitions) {
      let taken = claimed.get(topicId);
      if (taken === undefined) {
        taken = new Set();
        claimed.set(topicId, taken);
      }
      const free = partitions.filter((partition) => !taken.has(partition));
      for (const partition of free) taken.add(partition);
      if (free.length > 0) kept.push({ topicId, partitions: free });
    }
    return kept.length === member.assignedPartitions.length &&
      kept.every((entry, i) => entry.partitions.length === member.assignedPartitions[i]?.partitions.length)
      ? member
      : { ...member, assignedPartitions: kept };
  });
}

/**
 * `convertToConsumerGroup` (spec 8, online upgrade): the classic group's
 * parked JoinGroup/SyncGroup calls get REBALANCE_IN_PROGRESS, its record is
 * tombstoned and the consumer group's records are written. Each member
 * keeps its last classic assignment (as current assignment and target) at
 * member epoch = generation, STABLE, and keeps its classic session timeout
 * (its session timer is armed with it).
 *
 * KAFKA-21582 (fixed): a group converted in the middle of a rebalance
 * (PREPARING or COMPLETING) kept its stale classic assignment as a valid
 * target at the generation. Here the group epoch is set one above the
 * assignment epoch, so a fresh target is computed on the next heartbeat and
 * the classic members are told to rejoin.
 */
export function convertToConsumerGroup(op: WriteOp, env: CoordinatorEnv, classic: ClassicGroup): ConsumerGroup {
  const groupId = classic.groupId;
  const generation = classic.generationId;
  const midRebalance = classic.isInState("PREPARING_REBALANCE") || classic.isInState("COMPLETING_REBALANCE");
  const members = withoutDoubleClaims([...classic.members().values()].map((member) => convertedMember(classic, member, op.state.image)));

  for (const member of classic.members().values()) {
    completeJoinFuture(op, classic, member, { memberId: member.memberId, errorCode: ErrorCode.REBALANCE_IN_PROGRESS });
    completeSyncFuture(op, classic, member, ErrorCode.REBALANCE_IN_PROGRESS);
    op.observe(
      memberRemovedObservation(
        groupId,
        { memberId: member.memberId, instanceId: member.instanceId, memberEpoch: generation },
        "group-converted",
      ),
    );
  }

  op.append(groupMetadataTombstone(groupId));
  for (const member of members) op.append(memberSubscriptionRecord(groupId, member));
  op.append(groupEpochRecord(groupId, midRebalance ? generation + 1 : generation));
  for (const member of members) op.append(targetAssignmentRecord(groupId, member.memberId, member.assignedPartitions));
  op.append(targetAssignmentMetadataRecord(groupId, generation));
  for (const member of members) op.append(currentAssignmentRecord(groupId, member));

  const group = op.state.groups.consumerGroup(groupId);
  if (group === undefined) throw new IllegalStateError(`the upgrade of group ${groupId} did not create a consumer group`);
  for (const member of members) {
    env.timers.scheduleSession(op.ctx, groupId, member.memberId, member.classicMemberMetadata?.sessionTimeoutMs ?? 0);
  }
  op.ctx.log.info("converted the classic group to a consumer group", { groupId, generation, members: members.length, midRebalance });
  return group;
}
