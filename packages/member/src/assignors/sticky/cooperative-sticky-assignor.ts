import type { TopicPartition } from "@kcsim/protocol";
import type {
  AssignorMemberState,
  AssignorSubscription,
  ConsumerPartitionAssignor,
  MemberAssignment,
  PartitionCounts,
} from "../consumer-partition-assignor.js";
import type { RebalanceProtocol } from "../rebalance-protocol.js";
import { keyOf } from "../topic-partitions.js";
import { stickyAssignment } from "./sticky-assignment.js";
import { DEFAULT_GENERATION, decodeCooperativeUserData, encodeCooperativeUserData, type StickyMemberData } from "./sticky-user-data.js";

/**
 * `computePartitionsTransferringOwnership` (general path): partitions
 * assigned to someone who did not own them while some member that owned
 * them loses them.
 */
function partitionsChangingOwner(
  subscriptions: readonly AssignorSubscription[],
  assignment: ReadonlyMap<string, readonly TopicPartition[]>,
): Map<string, string> {
  const added = new Map<string, string>();
  const revoked = new Set<string>();
  for (const subscription of subscriptions) {
    const owned = new Set(subscription.ownedPartitions.map(keyOf));
    const assigned = new Set((assignment.get(subscription.memberId) ?? []).map(keyOf));
    for (const key of assigned) if (!owned.has(key)) added.set(key, subscription.memberId);
    for (const key of owned) if (!assigned.has(key)) revoked.add(key);
  }
  return new Map([...added].filter(([key]) => revoked.has(key)));
}

/**
 * Kafka's `CooperativeStickyAssignor`: the sticky logic, with ownership from
 * the subscription's OwnedPartitions and GenerationId (its user data holds
 * only the generation, for v1 subscriptions). It then withholds from its new
 * owner every partition that still has to be revoked by another member, or
 * that several members claimed, so nothing changes hands within one round;
 * the next rebalance hands those out.
 */
export class CooperativeStickyAssignor implements ConsumerPartitionAssignor {
  readonly name = "cooperative-sticky";
  readonly supportedProtocols: readonly RebalanceProtocol[] = ["COOPERATIVE", "EAGER"];

  subscriptionUserData(state: AssignorMemberState): Uint8Array | null {
    return encodeCooperativeUserData(state.generation);
  }

  memberData(subscription: AssignorSubscription): StickyMemberData {
    if (subscription.generationId >= 0) return { partitions: subscription.ownedPartitions, generation: subscription.generationId };
    if (subscription.userData === null) return { partitions: subscription.ownedPartitions, generation: null };
    let generation: number;
    try {
      generation = decodeCooperativeUserData(subscription.userData);
    } catch {
      generation = DEFAULT_GENERATION;
    }
    return { partitions: subscription.ownedPartitions, generation };
  }

  assign(metadata: PartitionCounts, subscriptions: readonly AssignorSubscription[]): Map<string, MemberAssignment> {
    const { assignment, partitionsTransferringOwnership } = stickyAssignment(metadata, subscriptions, (s) => this.memberData(s));
    const withheld = partitionsTransferringOwnership ?? partitionsChangingOwner(subscriptions, assignment);
    const result = new Map<string, MemberAssignment>();
    for (const [memberId, partitions] of assignment) {
      const kept = partitions.filter((tp) => withheld.get(keyOf(tp)) !== memberId);
      result.set(memberId, { partitions: kept, userData: null });
    }
    return result;
  }
}
