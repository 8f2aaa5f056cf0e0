import { CurrentAssignmentBuilder } from "../reconciliation/current-assignment-builder.js";
import { MemberState } from "../reconciliation/member-state.js";
import { currentAssignmentRecord } from "../records/consumer-group-records.js";
import type { CoordinatorEnv } from "../runtime/coordinator-env.js";
import { CoordinatorError } from "../runtime/coordinator-error.js";
import type { WriteOp } from "../runtime/write-op.js";
import type { TopicIdPartitions } from "../topic-id-partitions.js";
import type { ConsumerGroup } from "./consumer-group.js";
import { type ConsumerGroupMember, isReconciledTo } from "./consumer-group-member.js";

/**
 * Kafka's `maybeReconcile` (spec 1.3 step 7): moves the heartbeating member
 * one step towards its target with the CurrentAssignmentBuilder. A change
 * is written as a CurrentMemberAssignment record; entering (or staying in,
 * at a new epoch) UNREVOKED_PARTITIONS arms the rebalance timer, any other
 * change cancels it (consumer-protocol members only). Only this member is reconciled.
 */
export function maybeReconcile(
  op: WriteOp,
  env: CoordinatorEnv,
  group: ConsumerGroup,
  member: ConsumerGroupMember,
  ownedTopicPartitions: readonly TopicIdPartitions[] | null,
): ConsumerGroupMember {
  const targetEpoch = group.assignmentEpoch;
  if (isReconciledTo(member, targetEpoch)) return member;
  const result = new CurrentAssignmentBuilder(member)
    .withTargetAssignment(targetEpoch, group.targetOf(member.memberId))
    .withCurrentPartitionEpoch(group.currentPartitionEpoch)
    .withOwnedTopicPartitions(ownedTopicPartitions)
    .withRevocationAssumedAcknowledged(env.bugs.has("assign-before-revoke"))
    .build();
  if (result.kind === "fenced") throw new CoordinatorError(result.errorCode, result.message);
  const next = result.member;
  if (next === member) return member;

  op.append(currentAssignmentRecord(group.groupId, next));
  // Classic members have no rebalance timer: their join and sync timers bound their rebalance.
  if (next.classicMemberMetadata !== null) return group.member(next.memberId) ?? next;
  if (next.state === MemberState.UNREVOKED_PARTITIONS) {
    env.timers.scheduleRebalance(op.ctx, group.groupId, next.memberId, next.memberEpoch, next.rebalanceTimeoutMs);
  } else {
    env.timers.cancelRebalance(op.ctx, group.groupId, next.memberId);
  }
  return group.member(next.memberId) ?? next;
}
