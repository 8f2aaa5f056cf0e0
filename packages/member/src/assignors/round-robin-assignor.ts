import type { TopicPartition } from "@kcsim/protocol";
import type { AssignorSubscription, ConsumerPartitionAssignor, MemberAssignment, PartitionCounts } from "./consumer-partition-assignor.js";
import { compareMemberInfo } from "./member-order.js";
import type { RebalanceProtocol } from "./rebalance-protocol.js";
import { subscribedPartitionCounts, topicSet } from "./subscribed-partition-counts.js";
import { compareJavaStrings, partitionsOf } from "./topic-partitions.js";

/**
 * Kafka's `RoundRobinAssignor` (spec 4.6): every subscribed partition, sorted
 * by topic then partition, goes to the next member of a circular iterator over
 * the members in `MemberInfo` order, skipping members not subscribed to the
 * partition's topic. Not sticky.
 */
export class RoundRobinAssignor implements ConsumerPartitionAssignor {
  readonly name = "roundrobin";
  readonly supportedProtocols: readonly RebalanceProtocol[] = ["EAGER"];

  subscriptionUserData(): Uint8Array | null {
    return null;
  }

  assign(metadata: PartitionCounts, subscriptions: readonly AssignorSubscription[]): Map<string, MemberAssignment> {
    const partitionCounts = subscribedPartitionCounts(metadata, subscriptions);
    const assigned = new Map<string, TopicPartition[]>(subscriptions.map((s) => [s.memberId, []]));
    const members = [...subscriptions].sort(compareMemberInfo);
    const topicsOf = new Map(subscriptions.map((s) => [s.memberId, topicSet(s)]));

    const allTopics = [...new Set(subscriptions.flatMap((s) => [...topicSet(s)]))].sort(compareJavaStrings);
    let cursor = 0; // the circular iterator's position in `members`
    for (const topic of allTopics) {
      for (const tp of partitionsOf(topic, partitionCounts.get(topic) ?? 0)) {
        // Someone subscribes to `topic`, so this finds a member within one lap.
        while (!topicsOf.get(members[cursor % members.length]?.memberId ?? "")?.has(topic)) cursor++;
        const member = members[cursor % members.length];
        cursor++;
        if (member !== undefined) assigned.get(member.memberId)?.push(tp);
      }
    }

    return new Map([...assigned].map(([memberId, partitions]) => [memberId, { partitions, userData: null }]));
  }
}
