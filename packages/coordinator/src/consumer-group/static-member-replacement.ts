import { currentAssignmentRecord, memberSubscriptionRecord, targetAssignmentRecord } from "../records/consumer-group-records.js";
import { memberRemovedObservation } from "../runtime/observation-builders.js";
import type { WriteOp } from "../runtime/write-op.js";
import type { ConsumerGroup } from "./consumer-group.js";
import type { ConsumerGroupMember } from "./consumer-group-member.js";
import { appendMemberTombstones } from "./member-fencing.js";

/**
 * GMM `replaceMember`: the old static member's tombstones, then the new
 * member (a copy of the old one at epoch 0) with the old member's target
 * carried over and its current assignment, so no epoch bump is needed.
 */
export function replaceStaticMember(
  op: WriteOp,
  group: ConsumerGroup,
  replaced: ConsumerGroupMember,
  replacement: ConsumerGroupMember,
): void {
  const groupId = group.groupId;
  const carriedTarget = group.targetOf(replaced.memberId);
  op.observe(memberRemovedObservation(groupId, replaced, "static-replaced"));
  // The old member's timers are left armed, as Kafka does (the operation may still be rolled back):
  // when they fire they find no member, or a member past the timer's epoch, and do nothing.
  appendMemberTombstones(op, groupId, replaced.memberId);
  op.append(memberSubscriptionRecord(groupId, replacement));
  op.append(targetAssignmentRecord(groupId, replacement.memberId, carriedTarget));
  op.append(currentAssignmentRecord(groupId, replacement));
}
