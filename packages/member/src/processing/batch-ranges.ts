import type { ConsumedRecord } from "@kcsim/fetch";
import { compareTp, type TopicPartition, tpKey } from "@kcsim/protocol";

/** The offsets one batch holds of one partition. */
export interface PartitionRange {
  readonly partition: TopicPartition;
  readonly first: number;
  readonly last: number;
  /** Records of the partition in the batch (read_committed may leave gaps between first and last). */
  readonly count: number;
}

/** A batch's offsets per partition, sorted by partition. */
export function rangesOf(records: readonly ConsumedRecord[]): PartitionRange[] {
  const ranges = new Map<string, { partition: TopicPartition; first: number; last: number; count: number }>();
  for (const record of records) {
    const key = tpKey(record.topic, record.partition);
    const range = ranges.get(key);
    if (range === undefined) {
      ranges.set(key, {
        partition: { topic: record.topic, partition: record.partition },
        first: record.offset,
        last: record.offset,
        count: 1,
      });
    } else {
      range.first = Math.min(range.first, record.offset);
      range.last = Math.max(range.last, record.offset);
      range.count++;
    }
  }
  return [...ranges.values()].sort((a, b) => compareTp(a.partition, b.partition));
}

/** `{topic: {partition: value}}`, the shape observations use for offsets. */
export function byTopicAndPartition<V>(entries: readonly { readonly partition: TopicPartition; readonly value: V }[]): {
  [topic: string]: { [partition: string]: V };
} {
  const out: { [topic: string]: { [partition: string]: V } } = Object.create(null); // "__proto__" is a legal topic name
  for (const { partition, value } of entries) {
    let topic = out[partition.topic];
    if (topic === undefined) out[partition.topic] = topic = {};
    topic[String(partition.partition)] = value;
  }
  return out;
}
