import { prepareRebalance } from "../classic-group/classic-rebalance.js";
import { canDowngradeAfterFencing, convertToClassicGroup } from "../migration/online-downgrade.js";
import type { MemberRemovalReason } from "../observations.js";
import {
  currentAssignmentTombstone,
  groupEpochRecord,
  memberSubscriptionTombstone,
  partitionMetadataRecord,
  targetAssignmentTombstone,
} from "../records/consumer-group-records.js";
import type { CoordinatorEnv } from "../runtime/coordinator-env.js";
import { memberRemovedObservation } from "../runtime/observation-builders.js";
import type { WriteOp } from "../runtime/write-op.js";
import type { ConsumerGroup } from "./consumer-group.js";
import type { ConsumerGroupMember } from "./consumer-group-member.js";
import { computeSubscriptionMetadata, sameSubscriptionMetadata } from "./subscription-metadata.js";

/**
 * Kafka's `removeMember`: the member's tombstones, in the order replay
 * requires (CurrentAssignment -> TargetAssignmentMember -> MemberMetadata).
 */
export function appendMemberTombstones(op: WriteOp, groupId: string, memberId: string): void {
  op.append(currentAssignmentTombstone(groupId, memberId));
  op.append(targetAssignmentTombstone(groupId, memberId));
  op.append(memberSubscriptionTombstone(groupId, memberId));
}

/**
 * Writes the new subscription metadata if the members' subscriptions no
 * longer match it (after members left), then bumps the group epoch.
 */
export function appendEpochBumpAfterRemoval(op: WriteOp, group: ConsumerGroup): void {
  const metadata = computeSubscriptionMetadata(group.subscribedTopicNames().keys(), op.state.image);
  if (!sameSubscriptionMetadata(metadata, group.subscriptionMetadata)) op.append(partitionMetadataRecord(group.groupId, metadata));
  op.append(groupEpochRecord(group.groupId, group.groupEpoch + 1));
}

/**
 * Fences a member (Kafka's `consumerGroupFenceMember`): a leave with epoch
 * -1, an expired session, rebalance, join or sync timeout.
 */
export function fenceMember(
  op: WriteOp,
  env: CoordinatorEnv,
  group: ConsumerGroup,
  member: ConsumerGroupMember,
  reason: MemberRemovalReason,
): void {
  fenceMembers(op, env, group, [member], reason);
}

/**
 * Fences members (Kafka's `consumerGroupFenceMembers`). Their partitions
 * are free from here on. If only classic members remain after the last
 * consumer-protocol member goes, the group is downgraded online to a
 * classic group that rebalances at once (spec 8); otherwise their
 * tombstones are written, the group epoch always goes up and their timers
 * are cancelled.
 */
export function fenceMembers(
  op: WriteOp,
  env: CoordinatorEnv,
  group: ConsumerGroup,
  members: readonly ConsumerGroupMember[],
  reason: MemberRemovalReason,
): void {
  if (members.length === 0) return;
  for (const member of members) op.observe(memberRemovedObservation(group.groupId, member, reason));
  const fenced = new Set(members.map((member) => member.memberId));
  if (canDowngradeAfterFencing(env, group, fenced)) {
    const classic = convertToClassicGroup(op, env, group, fenced);
    prepareRebalance(op, env, classic, `downgrade: the last consumer-protocol member left (${reason})`);
    return;
  }
  for (const member of members) appendMemberTombstones(op, group.groupId, member.memberId);
  appendEpochBumpAfterRemoval(op, group);
  for (const member of members) env.timers.cancelAll(op.ctx, group.groupId, member.memberId);
}
