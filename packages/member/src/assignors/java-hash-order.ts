import { javaStringHashCode, type TopicPartition } from "@kcsim/protocol";

/*
 * Kafka's leader keeps subscriptions in a java.util.HashMap, and a few
 * sticky-assignor decisions depend on the order that map (or a HashSet of
 * partitions) iterates. That order is deterministic: entries sit in buckets
 * `spread(hashCode) & (capacity - 1)` and iterate bucket by bucket, in
 * insertion order within a bucket. Capacity starts at 16 and doubles when the
 * size exceeds 3/4 of it; it never shrinks. Not modelled: bins that turn into
 * trees (9+ colliding entries), which only reorders such a bin.
 */

/** `HashMap.hash`: folds the high 16 bits into the low ones. */
function spread(hashCode: number): number {
  return hashCode ^ (hashCode >>> 16);
}

/** The table capacity of a HashMap/HashSet that once held `peakEntries` entries. */
export function javaHashCapacity(peakEntries: number): number {
  let capacity = 16;
  while (peakEntries > capacity * 0.75) capacity *= 2;
  return capacity;
}

/**
 * Orders `items` (given in insertion order) as a Java hash table with the
 * given capacity iterates them.
 */
export function javaHashIterationOrder<T>(items: readonly T[], hashCode: (item: T) => number, capacity: number): T[] {
  const mask = capacity - 1;
  return items
    .map((item, index) => ({ item, index, bucket: spread(hashCode(item)) & mask }))
    .sort((a, b) => a.bucket - b.bucket || a.index - b.index)
    .map(({ item }) => item);
}

/**
 * The order a `HashMap<String, ...>` filled with `keys` (in this order, no
 * removals) iterates them: the member order of Kafka's leader, which builds
 * its subscription map from the JoinGroup member list. Repeated keys keep
 * their first position.
 */
export function javaHashMapIterationOrder(keys: readonly string[]): string[] {
  const distinct = [...new Set(keys)];
  return javaHashIterationOrder(distinct, javaStringHashCode, javaHashCapacity(distinct.length));
}

/** `TopicPartition.hashCode`: 31 * (31 + partition) + topic.hashCode(), in int32. */
export function topicPartitionHashCode(tp: TopicPartition): number {
  return (Math.imul(31, 31 + tp.partition) + javaStringHashCode(tp.topic)) | 0;
}
