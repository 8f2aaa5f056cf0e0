import type { TopicPartition } from "@kcsim/protocol";
import type { AssignorSubscription, ConsumerPartitionAssignor, MemberAssignment, PartitionCounts } from "./consumer-partition-assignor.js";
import { compareMemberInfo, type MemberInfo } from "./member-order.js";
import type { RebalanceProtocol } from "./rebalance-protocol.js";
import { subscribedPartitionCounts, topicSet } from "./subscribed-partition-counts.js";
import { compareJavaStrings } from "./topic-partitions.js";

/**
 * Kafka's `RangeAssignor` (spec 4.6): topic by topic, the subscribers in
 * `MemberInfo` order each get a contiguous range of P/N partitions, the
 * first P mod N one more. Not sticky; the rack-aware variant is not simulated.
 */
export class RangeAssignor implements ConsumerPartitionAssignor {
  readonly name = "range";
  readonly supportedProtocols: readonly RebalanceProtocol[] = ["EAGER"];

  subscriptionUserData(): Uint8Array | null {
    return null;
  }

  assign(metadata: PartitionCounts, subscriptions: readonly AssignorSubscription[]): Map<string, MemberAssignment> {
    const partitionCounts = subscribedPartitionCounts(metadata, subscriptions);
    const assigned = new Map<string, TopicPartition[]>(subscriptions.map((s) => [s.memberId, []]));

    const subscribersByTopic = new Map<string, MemberInfo[]>();
    for (const subscription of subscriptions) {
      for (const topic of topicSet(subscription)) {
        const subscribers = subscribersByTopic.get(topic) ?? [];
        subscribers.push({ memberId: subscription.memberId, groupInstanceId: subscription.groupInstanceId });
        subscribersByTopic.set(topic, subscribers);
      }
    }

    // Topics are independent; walking them sorted only fixes each member's list order.
    for (const topic of [...subscribersByTopic.keys()].sort(compareJavaStrings)) {
      const partitionCount = partitionCounts.get(topic);
      if (partitionCount === undefined) continue;
      const subscribers = (subscribersByTopic.get(topic) ?? []).sort(compareMemberInfo);
      const perMember = Math.floor(partitionCount / subscribers.length);
      const membersWithExtra = partitionCount % subscribers.length;
      subscribers.forEach((member, i) => {
        const start = perMember * i + Math.min(i, membersWithExtra);
        const length = perMember + (i < membersWithExtra ? 1 : 0);
        const target = assigned.get(member.memberId);
        for (let partition = start; partition < start + length; partition++) target?.push({ topic, partition });
      });
    }

    return new Map([...assigned].map(([memberId, partitions]) => [memberId, { partitions, userData: null }]));
  }
}
