import type { TopicPartition } from "@kcsim/protocol";
import type { RebalanceProtocol } from "./rebalance-protocol.js";

/**
 * One member's subscription as the group leader sees it (Kafka's
 * `ConsumerPartitionAssignor.Subscription` plus the member id): the decoded
 * `ConsumerProtocolSubscription` and the member's `group.instance.id` from
 * the JoinGroup response.
 */
export interface AssignorSubscription {
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  readonly topics: readonly string[];
  readonly userData: Uint8Array | null;
  /** Partitions the member owns right now (sent from subscription v1 on; eager members send none). */
  readonly ownedPartitions: readonly TopicPartition[];
  /** The member's generation; negative means "not sent" (subscription v0/v1), like Kafka's `Optional.empty()`. */
  readonly generationId: number;
  /** Accepted for fidelity; the rack-aware variants are not simulated. */
  readonly rackId: string | null;
}

/** What the leader hands one member (Kafka's `Assignment`). */
export interface MemberAssignment {
  readonly partitions: readonly TopicPartition[];
  readonly userData: Uint8Array | null;
}

/** Partition counts of the topics the leader knows, by topic name. */
export type PartitionCounts = ReadonlyMap<string, number>;

/**
 * What a member's assignor remembers between rebalances (Kafka keeps it in
 * assignor fields set by `onAssignment`), used to build its subscription
 * user data.
 */
export interface AssignorMemberState {
  readonly topics: readonly string[];
  /** The partitions of the last assignment received; null before the first one. */
  readonly lastAssignment: readonly TopicPartition[] | null;
  /** The generation of the last assignment received; -1 before the first one. */
  readonly generation: number;
}

/**
 * A client-side assignor, run by the group leader (Kafka's
 * `ConsumerPartitionAssignor`).
 *
 * The order of `subscriptions` is the group's member iteration order. Where
 * Kafka sorts members (range, roundrobin, the sticky filling steps) the
 * assignors sort explicitly and the order does not matter. Where Kafka walks
 * the leader's `HashMap<memberId, Subscription>` (the sticky assignors'
 * ownership conflicts and who keeps a max quota), they walk this array in
 * order; `javaHashMapIterationOrder` gives the order a Java leader would use.
 */
export interface ConsumerPartitionAssignor {
  /** The protocol name the member advertises in JoinGroup (`range`, `roundrobin`, ...). */
  readonly name: string;
  readonly supportedProtocols: readonly RebalanceProtocol[];
  /** User data the member puts in its subscription; null for none. */
  subscriptionUserData(state: AssignorMemberState): Uint8Array | null;
  /** One entry per member, every member present, even with nothing assigned. */
  assign(metadata: PartitionCounts, subscriptions: readonly AssignorSubscription[]): Map<string, MemberAssignment>;
}
