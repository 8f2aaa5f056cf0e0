import type {
  AssignorMemberState,
  AssignorSubscription,
  ConsumerPartitionAssignor,
  MemberAssignment,
  PartitionCounts,
} from "../consumer-partition-assignor.js";
import type { RebalanceProtocol } from "../rebalance-protocol.js";
import { stickyAssignment } from "./sticky-assignment.js";
import { decodeStickyUserData, encodeStickyUserData, type StickyMemberData } from "./sticky-user-data.js";

/**
 * Kafka's `StickyAssignor` (eager): members revoke everything before
 * joining, so their previous assignment and its generation travel in the
 * subscription user data (the owned-partitions field is ignored).
 */
export class StickyAssignor implements ConsumerPartitionAssignor {
  readonly name = "sticky";
  readonly supportedProtocols: readonly RebalanceProtocol[] = ["EAGER"];

  /** Null until the member received its first assignment. */
  subscriptionUserData(state: AssignorMemberState): Uint8Array | null {
    return state.lastAssignment === null ? null : encodeStickyUserData(state.lastAssignment, state.generation);
  }

  memberData(subscription: AssignorSubscription): StickyMemberData {
    return decodeStickyUserData(subscription.userData);
  }

  assign(metadata: PartitionCounts, subscriptions: readonly AssignorSubscription[]): Map<string, MemberAssignment> {
    const { assignment } = stickyAssignment(metadata, subscriptions, (s) => this.memberData(s));
    return new Map([...assignment].map(([memberId, partitions]) => [memberId, { partitions, userData: null }]));
  }
}
