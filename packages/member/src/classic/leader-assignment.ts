import { decodeSubscription, encodeAssignment, type JoinGroupResponseMember, type TopicPartition } from "@kcsim/protocol";
import type { AssignorSubscription, ConsumerPartitionAssignor, PartitionCounts } from "../assignors/consumer-partition-assignor.js";
import { javaHashMapIterationOrder } from "../assignors/java-hash-order.js";
import type { RebalanceProtocol } from "../assignors/rebalance-protocol.js";
import { flattenTopicPartitionList, groupPartitionsByTopic } from "../assignors/topic-partitions.js";
import { validateCooperativeAssignment } from "../assignors/validate-cooperative-assignment.js";
import { CONSUMER_PROTOCOL_VERSION } from "./join-group-protocols.js";

/** The leader could not assign (Kafka's IllegalStateException out of `onLeaderElected`): fatal for the consumer. */
export class LeaderAssignmentError extends Error {
  override readonly name = "IllegalStateException";
}

/** One SyncGroup assignment: the member and its encoded `ConsumerProtocolAssignment`. */
export interface SyncGroupAssignment {
  readonly memberId: string;
  readonly assignment: Uint8Array;
}

/** The built-in assignor whose COOPERATIVE assignments Kafka trusts without validation. */
const COOPERATIVE_STICKY_ASSIGNOR_NAME = "cooperative-sticky";

function decodeMember(member: JoinGroupResponseMember): AssignorSubscription {
  let subscription: ReturnType<typeof decodeSubscription>;
  try {
    subscription = decodeSubscription(member.metadata);
  } catch (error) {
    throw new LeaderAssignmentError(
      `member ${member.memberId} joined with a subscription that does not decode: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return {
    memberId: member.memberId,
    groupInstanceId: member.groupInstanceId,
    topics: subscription.topics,
    userData: subscription.userData,
    ownedPartitions: flattenTopicPartitionList(subscription.ownedPartitions),
    generationId: subscription.generationId,
    rackId: subscription.rackId,
  };
}

/**
 * The leader's assignment (`ConsumerCoordinator.onLeaderElected`): decode
 * every member's subscription from the JoinGroup response, run the selected
 * assignor over them in the order a Java leader's HashMap of member ids
 * iterates, check a custom COOPERATIVE assignor moved no owned partition
 * straight to another member, and encode one assignment per member.
 */
export function performLeaderAssignment(
  assignor: ConsumerPartitionAssignor,
  protocol: RebalanceProtocol,
  partitionCounts: PartitionCounts,
  members: readonly JoinGroupResponseMember[],
): SyncGroupAssignment[] {
  const byMemberId = new Map<string, AssignorSubscription>();
  for (const member of members) byMemberId.set(member.memberId, decodeMember(member));
  const ordered = javaHashMapIterationOrder([...byMemberId.keys()]).flatMap((memberId) => {
    const subscription = byMemberId.get(memberId);
    return subscription === undefined ? [] : [subscription];
  });

  const assignments = assignor.assign(partitionCounts, ordered);
  if (protocol === "COOPERATIVE" && assignor.name !== COOPERATIVE_STICKY_ASSIGNOR_NAME) {
    const owned = new Map<string, readonly TopicPartition[]>(ordered.map((s) => [s.memberId, s.ownedPartitions]));
    try {
      validateCooperativeAssignment(owned, assignments);
    } catch (error) {
      throw new LeaderAssignmentError(error instanceof Error ? error.message : String(error));
    }
  }

  const out: SyncGroupAssignment[] = [];
  for (const { memberId } of ordered) {
    const assigned = assignments.get(memberId);
    if (assigned === undefined) continue;
    out.push({
      memberId,
      assignment: encodeAssignment({
        version: CONSUMER_PROTOCOL_VERSION,
        assignedPartitions: groupPartitionsByTopic(assigned.partitions),
        userData: assigned.userData,
      }),
    });
  }
  return out;
}
