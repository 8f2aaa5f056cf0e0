import type { AssignorSubscription, PartitionCounts } from "./consumer-partition-assignor.js";

/**
 * `AbstractPartitionAssignor.assign`'s first step: the partition counts of
 * the topics some member subscribes to, skipping topics without metadata or
 * without partitions. Also rejects a member id that appears twice, which a
 * Java map could not even hold.
 */
export function subscribedPartitionCounts(metadata: PartitionCounts, subscriptions: readonly AssignorSubscription[]): Map<string, number> {
  const seen = new Set<string>();
  for (const subscription of subscriptions) {
    if (seen.has(subscription.memberId)) throw new Error(`member ${subscription.memberId} appears twice in the group subscription`);
    seen.add(subscription.memberId);
  }
  const counts = new Map<string, number>();
  for (const subscription of subscriptions) {
    for (const topic of subscription.topics) {
      const count = metadata.get(topic);
      if (count !== undefined && count > 0) counts.set(topic, count);
    }
  }
  return counts;
}

/** A member's subscribed topics as a set (Kafka builds subscriptions from a Set, so repeats mean nothing). */
export function topicSet(subscription: AssignorSubscription): ReadonlySet<string> {
  return new Set(subscription.topics);
}
