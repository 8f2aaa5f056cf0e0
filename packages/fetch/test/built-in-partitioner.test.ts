import { describe, expect, it } from "vitest";
import {
  BuiltInPartitioner,
  type PartitionLoadStats,
  partitionLoadStats,
  type TopicPartitionsView,
} from "../src/producer/built-in-partitioner.js";
import { randomFor, sequentialInts } from "./fetch-fixtures.js";

function clusterOf(topics: Record<string, { partitions: number; leaderless?: readonly number[] }>): TopicPartitionsView {
  return {
    version: 0,
    partitionCount: (topic) => topics[topic]?.partitions ?? 0,
    availablePartitions: (topic) => {
      const spec = topics[topic];
      if (spec === undefined) return [];
      return [...Array(spec.partitions).keys()].filter((p) => !(spec.leaderless ?? []).includes(p));
    },
  };
}

const noStats = (): PartitionLoadStats | null => null;

/** One keyless append of `bytes` to the sticky partition, the batch then full (switching allowed); returns the partition. */
function produce(partitioner: BuiltInPartitioner, cluster: TopicPartitionsView, bytes = 1, enableSwitch = true): number {
  const info = partitioner.peek(cluster);
  partitioner.update(info, bytes, cluster, enableSwitch);
  return info.partition;
}

describe("built-in partitioner (KIP-794, Kafka's BuiltInPartitionerTest)", () => {
  it("sticks to a partition until the sticky batch size has been produced to it, even with one partition", () => {
    const cluster = clusterOf({ topicA: { partitions: 3 }, topicB: { partitions: 1 } });
    const a = new BuiltInPartitioner("topicA", 3, sequentialInts(), noStats);
    const first = produce(a, cluster);
    expect(produce(a, cluster)).toBe(first);
    expect(produce(a, cluster)).toBe(first);
    // After 3 bytes (3 records of 1 byte) it has switched.
    expect(a.peek(cluster).partition).not.toBe(first);
    const b = new BuiltInPartitioner("topicB", 1, sequentialInts(), noStats);
    for (let i = 0; i < 10; i++) expect(produce(b, cluster)).toBe(0);
  });

  it("never picks a partition without a leader, and picks among all when none has one", () => {
    const cluster = clusterOf({
      topicA: { partitions: 3, leaderless: [1] },
      topicB: { partitions: 2, leaderless: [0] },
      topicC: { partitions: 1, leaderless: [0] },
    });
    const a = new BuiltInPartitioner("topicA", 1, randomFor("unavailable-a"), noStats);
    const seen = new Set<number>();
    for (let i = 0; i < 100; i++) seen.add(produce(a, cluster));
    expect([...seen].sort()).toEqual([0, 2]);
    const b = new BuiltInPartitioner("topicB", 1, randomFor("unavailable-b"), noStats);
    for (let i = 0; i < 100; i++) expect(produce(b, cluster)).toBe(1);
    const c = new BuiltInPartitioner("topicC", 1, randomFor("unavailable-c"), noStats);
    expect(produce(c, cluster)).toBe(0);
    expect(c.peek(cluster).partition).toBe(0);
  });

  it("draws partitions with frequencies reciprocal to their queue sizes (Kafka's adaptivePartitionsTest)", () => {
    const queueSizes = [5, 0, 3, 0, 1];
    const ids = [0, 1, 2, 3, 4];
    const stats = partitionLoadStats(queueSizes, ids, queueSizes.length);
    // Inverted against max + 1 = 6: 1, 6, 3, 6, 5; summed: 1, 7, 10, 16, 21.
    expect(stats?.cumulative).toEqual([1, 7, 10, 16, 21]);
    const partitioner = new BuiltInPartitioner("topicA", 1, sequentialInts(), () => stats);
    const cluster = clusterOf({ topicA: { partitions: 5 } });
    const frequencies = [0, 0, 0, 0, 0];
    // Two cycles of the table's range (draws 0..41): each partition drawn exactly twice its weight.
    for (let i = 0; i < 21 * 2; i++) {
      const partition = produce(partitioner, cluster);
      frequencies[partition] = (frequencies[partition] as number) + 1;
    }
    expect(frequencies).toEqual([2, 12, 6, 12, 10]);
  });

  it("has no load stats (uniform switching) for fewer than two partitions or equal queues, unless some were left out", () => {
    expect(partitionLoadStats(null, [], 0)).toBeNull();
    expect(partitionLoadStats([4], [0], 1)).toBeNull();
    expect(partitionLoadStats([2, 2, 2], [0, 1, 2], 3)).toBeNull();
    // Partition 1 left out for its leader's latency (length 2 of 3): equal sizes still weigh.
    expect(partitionLoadStats([2, 2, 2], [0, 2, 2], 2)).toEqual({ cumulative: [1, 2], partitionIds: [0, 2], length: 2 });
  });

  it("puts a switch off while the partition's last batch is open, but not past twice the sticky batch size", () => {
    const cluster = clusterOf({ topicA: { partitions: 3 } });
    const partitioner = new BuiltInPartitioner("topicA", 10, sequentialInts(), noStats);
    const info = partitioner.peek(cluster);
    partitioner.update(info, 5, cluster, false);
    partitioner.update(info, 5, cluster, false);
    partitioner.update(info, 9, cluster, false);
    expect(partitioner.isChanged(info)).toBe(false);
    partitioner.update(info, 1, cluster, false);
    expect(partitioner.isChanged(info)).toBe(true);
    // Switching allowed: batch.size bytes are enough.
    const next = partitioner.peek(cluster);
    partitioner.update(next, 10, cluster, true);
    expect(partitioner.isChanged(next)).toBe(true);
  });

  it("refuses a sticky batch size below 1", () => {
    expect(() => new BuiltInPartitioner("topicA", 0, sequentialInts(), noStats)).toThrow(/stickyBatchSize must be >= 1/);
    expect(() => new BuiltInPartitioner("topicA", 1, sequentialInts(), noStats)).not.toThrow();
  });
});
