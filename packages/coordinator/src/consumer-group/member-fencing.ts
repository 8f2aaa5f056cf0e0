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
 * -1, an expired session or rebalance timeout. Its partitions are free from
 * here on; the group epoch always goes up.
 */
export function fenceMember(
  op: WriteOp,
  env: CoordinatorEnv,
  group: ConsumerGroup,
  member: ConsumerGroupMember,
  reason: MemberRemovalReason,
): void {
  op.observe(memberRemovedObservation(group.groupId, member, reason));
  appendMemberTombstones(op, group.groupId, member.memberId);
  appendEpochBumpAfterRemoval(op, group);
  env.timers.cancelAll(op.ctx, group.groupId, member.memberId);
}
