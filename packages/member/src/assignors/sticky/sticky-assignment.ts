import type { AssignorSubscription, PartitionCounts } from "../consumer-partition-assignor.js";
import { subscribedPartitionCounts } from "../subscribed-partition-counts.js";
import { constrainedAssignment, type StickyAssignment } from "./constrained-assignment.js";
import { generalAssignment } from "./general-assignment.js";
import { resolveOwnershipClaims } from "./ownership-claims.js";
import type { StickyMemberData } from "./sticky-user-data.js";

/**
 * `AbstractStickyAssignor.assignPartitions`, shared by sticky and
 * cooperative-sticky, which differ only in where a member's previous
 * ownership comes from (`memberDataOf`): the equal-subscription fast path
 * or the general balancer.
 */
export function stickyAssignment(
  metadata: PartitionCounts,
  subscriptions: readonly AssignorSubscription[],
  memberDataOf: (subscription: AssignorSubscription) => StickyMemberData,
): StickyAssignment {
  const partitionCounts = subscribedPartitionCounts(metadata, subscriptions);
  if (subscriptions.length === 0) return { assignment: new Map(), partitionsTransferringOwnership: new Map() };
  const memberData = new Map(subscriptions.map((s) => [s.memberId, memberDataOf(s)]));
  const claims = resolveOwnershipClaims(partitionCounts, subscriptions, memberData);
  return claims.allSubscriptionsEqual
    ? constrainedAssignment(partitionCounts, claims.ownedByMember, claims.claimedByMultipleOwners)
    : generalAssignment(partitionCounts, subscriptions, claims, memberData);
}
