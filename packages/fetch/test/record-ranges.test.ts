import { tpKey } from "@kcsim/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type ConsumedRecord, type PolledRange, recordRangesOf } from "../src/index.js";
import { consumedRecord as record } from "./consumed-record.js";

/** The plain builder: a map from every record's partition key to its range. */
function plainRangesOf(records: readonly ConsumedRecord[]): PolledRange[] {
  const byPartition = new Map<string, { topic: string; partition: number; firstOffset: number; lastOffset: number; count: number }>();
  for (const { topic, partition, offset } of records) {
    const key = tpKey(topic, partition);
    const range = byPartition.get(key);
    if (range === undefined) byPartition.set(key, { topic, partition, firstOffset: offset, lastOffset: offset, count: 1 });
    else {
      range.lastOffset = offset;
      range.count++;
    }
  }
  return [...byPartition.values()];
}

/** Runs of records of a few topics (names that look alike once joined to a partition) and up to 40 partitions, offsets in any order. */
const batchArb: fc.Arbitrary<ConsumedRecord[]> = fc
  .array(
    fc.record({
      topic: fc.constantFrom("T1", "T", "T1-1", "a-b"),
      partition: fc.integer({ min: 0, max: 39 }),
      offsets: fc.array(fc.nat({ max: 1000 }), { minLength: 1, maxLength: 5 }),
    }),
    { maxLength: 60 },
  )
  .map((runs) => runs.flatMap(({ topic, partition, offsets }) => offsets.map((offset) => record(topic, partition, offset))));

describe("recordRangesOf", () => {
  it("gives the plain builder's ranges, in the same order, for any batch", () => {
    fc.assert(
      fc.property(batchArb, (records) => {
        expect(recordRangesOf(records)).toEqual(plainRangesOf(records));
      }),
      { numRuns: 500 },
    );
  });

  it("keeps the observation's field order (the history encodes it)", () => {
    const [range] = recordRangesOf([record("T1", 3, 7), record("T1", 3, 8)]);
    expect(Object.keys(range as PolledRange)).toEqual(["topic", "partition", "firstOffset", "lastOffset", "count"]);
    expect(range).toEqual({ topic: "T1", partition: 3, firstOffset: 7, lastOffset: 8, count: 2 });
  });

  it("finds a partition again past the scanned ranges, when the batch holds many", () => {
    const records = [...Array(40).keys()].map((p) => record("T1", p, p));
    records.push(record("T1", 0, 100), record("T1", 39, 101), record("T1", 17, 102));
    const ranges = recordRangesOf(records);
    expect(ranges).toHaveLength(40);
    expect(ranges[0]).toEqual({ topic: "T1", partition: 0, firstOffset: 0, lastOffset: 100, count: 2 });
    expect(ranges[17]).toEqual({ topic: "T1", partition: 17, firstOffset: 17, lastOffset: 102, count: 2 });
    expect(ranges[39]).toEqual({ topic: "T1", partition: 39, firstOffset: 39, lastOffset: 101, count: 2 });
  });
});
