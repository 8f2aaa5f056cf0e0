import { type TopicPartition, type TopicPartitionList, tpKey } from "@kcsim/protocol";

/** Java's `String.compareTo`: UTF-16 code unit order, never locale order. */
export function compareJavaStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The key of a topic-partition in Maps and Sets. */
export function keyOf(tp: TopicPartition): string {
  return tpKey(tp.topic, tp.partition);
}

/** Partitions 0..count-1 of a topic. */
export function partitionsOf(topic: string, count: number): TopicPartition[] {
  return Array.from({ length: count }, (_, partition) => ({ topic, partition }));
}

/** Groups partitions by topic: topics sorted, partitions ascending (the form SyncGroup and the CLI use). */
export function groupPartitionsByTopic(partitions: readonly TopicPartition[]): TopicPartitionList {
  const byTopic = new Map<string, number[]>();
  for (const { topic, partition } of partitions) {
    const list = byTopic.get(topic);
    if (list === undefined) byTopic.set(topic, [partition]);
    else list.push(partition);
  }
  return [...byTopic.keys()]
    .sort(compareJavaStrings)
    .map((topic) => ({ topic, partitions: [...(byTopic.get(topic) ?? [])].sort((a, b) => a - b) }));
}

/** The partitions of a `TopicPartitionList`, in list order. */
export function flattenTopicPartitionList(list: TopicPartitionList): TopicPartition[] {
  return list.flatMap(({ topic, partitions }) => partitions.map((partition) => ({ topic, partition })));
}
