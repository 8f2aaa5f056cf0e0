import { CONSUMER_PROTOCOL_TYPE, encodeSubscription, type TopicPartition } from "@kcsim/protocol";
import type { ConsumerPartitionAssignor } from "../assignors/consumer-partition-assignor.js";
import { groupPartitionsByTopic } from "../assignors/topic-partitions.js";
import type { AssignorMemory } from "./assignor-memory.js";

/** The newest `ConsumerProtocolSubscription` / `ConsumerProtocolAssignment` version (with OwnedPartitions, GenerationId, RackId). */
export const CONSUMER_PROTOCOL_VERSION = 3;

export { CONSUMER_PROTOCOL_TYPE };

export interface JoinGroupProtocol {
  readonly name: string;
  readonly metadata: Uint8Array;
}

export interface MemberSubscriptionState {
  /** The topics joined with (sorted). */
  readonly topics: readonly string[];
  /** The partitions assigned right now (empty under EAGER: revoked before every JoinGroup). */
  readonly owned: readonly TopicPartition[];
  /** The current generation (-1 when none). */
  readonly generationId: number;
  readonly rackId: string | null;
}

/**
 * JoinGroup's protocols (`ConsumerCoordinator.metadata`): one per
 * configured assignor, in preference order, each carrying the member's
 * `ConsumerProtocolSubscription` with that assignor's user data.
 */
export function joinGroupProtocols(
  assignors: readonly ConsumerPartitionAssignor[],
  memory: AssignorMemory,
  member: MemberSubscriptionState,
): JoinGroupProtocol[] {
  const ownedPartitions = groupPartitionsByTopic(member.owned);
  return assignors.map((assignor) => ({
    name: assignor.name,
    metadata: encodeSubscription({
      version: CONSUMER_PROTOCOL_VERSION,
      topics: [...member.topics],
      userData: assignor.subscriptionUserData(memory.stateFor(assignor.name, member.topics)),
      ownedPartitions,
      generationId: member.generationId,
      rackId: member.rackId,
    }),
  }));
}
