import { ms } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import type { TopicPartitionsView } from "../src/producer/built-in-partitioner.js";
import type { ProducerRecord } from "../src/producer/producer-batch.js";
import { RecordAccumulator, UNKNOWN_PARTITION } from "../src/producer/record-accumulator.js";
import { sequentialInts } from "./fetch-fixtures.js";

const THREE_PARTITIONS: TopicPartitionsView = { version: 0, partitionCount: () => 3, availablePartitions: () => [0, 1, 2] };
/** Partition p's leader is node p. */
const leaderOf = (_topic: string, partition: number) => partition;

/** A keyless record: with small deltas a 100-byte value takes 109 bytes in a batch (after its 61-byte header). */
function record(valueBytes = 100, key: string | null = null): ProducerRecord {
  return { key, keyBytes: key === null ? null : key.length, value: "v", valueBytes, timestampMs: 0, createdAt: 0 };
}

function accumulator(
  batchSize: number,
  options: { availabilityTimeout?: number; adaptive?: boolean; cluster?: TopicPartitionsView } = {},
): RecordAccumulator {
  return new RecordAccumulator(batchSize, ms(5), {
    adaptive: options.adaptive ?? true,
    availabilityTimeout: ms(options.availabilityTimeout ?? 0),
    random: sequentialInts(),
    cluster: options.cluster ?? THREE_PARTITIONS,
  });
}

describe("record accumulator: keyless records (KIP-794)", () => {
  it("keeps a keyless partition until its open batch fills after batch.size bytes, so batches are not cut short", () => {
    // batch.size 500: four records (170 + 3 x 109 = 497 bytes) fill a batch. After the fourth, 497 bytes went to the
    // partition (not yet 500); the fifth opens a second batch there (667 bytes, but that batch is open), and only the
    // ninth, which the second batch cannot take, finds it full with 994 bytes produced and switches.
    const acc = accumulator(500);
    const partitions = Array.from({ length: 9 }, () => acc.append("t", UNKNOWN_PARTITION, record()).partition);
    const first = partitions[0];
    expect(partitions.slice(0, 8)).toEqual(Array(8).fill(first));
    expect(partitions[8]).not.toBe(first);
    expect(acc.queuedBatches).toBe(3);
  });

  it("weighs the next partition by the queue sizes of the last ready pass, not by what changed after it", () => {
    // batch.size 200: each 170-byte keyed record is a batch of its own (a second would not fit).
    const acc = accumulator(200);
    for (const partition of [0, 0, 1, 2]) acc.append("t", partition, record(100, "k"));
    acc.ready(leaderOf, 0); // sizes 2, 1, 1: weights 1, 2, 2, table 1, 3, 5
    for (let i = 0; i < 5; i++) acc.append("t", 1, record(100, "k")); // now 2, 6, 1 (weights 5, 1, 6 if they counted)
    // A 300-byte record fills a batch alone (361 bytes): every keyless append switches, one draw each (0, 1, 2, ...).
    const drawn = Array.from({ length: 5 }, () => acc.append("t", UNKNOWN_PARTITION, record(300)).partition);
    expect(drawn).toEqual([0, 1, 1, 2, 2]);
  });

  it("switches uniformly until every partition has had a batch, and when adaptive partitioning is off", () => {
    const partly = accumulator(200);
    for (const partition of [0, 0, 0, 1]) partly.append("t", partition, record(100, "k"));
    partly.ready(leaderOf, 0);
    expect(Array.from({ length: 4 }, () => partly.append("t", UNKNOWN_PARTITION, record(300)).partition)).toEqual([0, 1, 2, 0]);
    const off = accumulator(200, { adaptive: false });
    for (const partition of [0, 0, 0, 1, 2]) off.append("t", partition, record(100, "k"));
    off.ready(leaderOf, 0);
    expect(Array.from({ length: 4 }, () => off.append("t", UNKNOWN_PARTITION, record(300)).partition)).toEqual([0, 1, 2, 0]);
  });

  it("weighs only the partitions that had a leader at the last ready pass, read again after a metadata update", () => {
    const cluster = { version: 0, partitionCount: () => 3, availablePartitions: (): readonly number[] => [0, 1, 2] };
    const acc = accumulator(200, { cluster });
    for (const partition of [0, 0, 1, 2, 2]) acc.append("t", partition, record(100, "k"));
    acc.drain(leaderOf, [1], 1_000_000, 0); // partition 1's only batch goes: queues of 2, 0 and 2
    acc.ready(leaderOf, 0); // all three with a leader
    // An update: partition 1 has no leader now.
    cluster.availablePartitions = () => [0, 2];
    cluster.version = 1;
    acc.ready(leaderOf, 0);
    // Partitions 0 and 2, two batches each, one left out: weights 1, 1. Had the pass kept partition 1 (queues 2, 0, 2:
    // weights 1, 3, 1), the second draw would have gone to it.
    expect([0, 1, 2].map(() => acc.append("t", UNKNOWN_PARTITION, record(300)).partition)).toEqual([0, 2, 0]);
  });

  it("leaves out a partition whose leader has had data ready and not drained longer than partitioner.availability.timeout.ms", () => {
    const acc = accumulator(200, { availabilityTimeout: 100 });
    for (const partition of [0, 1, 2]) acc.append("t", partition, record(100, "k"));
    acc.updateNodeLatencyStats(1, 0, true);
    acc.updateNodeLatencyStats(1, ms(150), false); // node 1: ready at 150 ms, last drained at 0
    acc.updateNodeLatencyStats(0, ms(150), true);
    acc.ready(leaderOf, ms(150)); // sizes 1, 1, 1 with partition 1 left out: partitions 0 and 2, weights 1, 1
    expect(Array.from({ length: 4 }, () => acc.append("t", UNKNOWN_PARTITION, record(300)).partition)).toEqual([0, 2, 0, 2]);
  });
});
