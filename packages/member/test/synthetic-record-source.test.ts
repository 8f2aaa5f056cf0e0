import { ms, seconds } from "@kcsim/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SyntheticRecordSource } from "../src/consumer/synthetic-record-source.js";
import { FakeContext } from "./consumer-test-support.js";

const tp = (topic: string, partition: number) => ({ topic, partition });

function sourceAt(rate = 10): { source: SyntheticRecordSource; ctx: FakeContext } {
  return {
    source: new SyntheticRecordSource({ kind: "synthetic", recordsPerSecondPerPartition: rate, recordBytes: 100 }),
    ctx: new FakeContext("m"),
  };
}

describe("SyntheticRecordSource", () => {
  it("offset n arrives at n / rate seconds, from virtual time 0", () => {
    const { source } = sourceAt(10);
    expect(source.arrivalTime(0)).toBe(0);
    expect(source.arrivalTime(17)).toBe(ms(1700));
    expect(source.endOffset(0)).toBe(1);
    expect(source.endOffset(ms(99))).toBe(1);
    expect(source.endOffset(ms(100))).toBe(2);
    expect(source.endOffset(seconds(3))).toBe(31);
    expect(sourceAt(0).source.endOffset(seconds(100))).toBe(0);
  });

  it("the end offset is exactly the records that have arrived, for any rate", () => {
    fc.assert(
      fc.property(fc.double({ min: 0.01, max: 5000, noNaN: true }), fc.integer({ min: 0, max: 10 ** 10 }), (rate, now) => {
        const { source } = sourceAt(rate);
        const end = source.endOffset(now);
        expect(source.arrivalTime(end - 1)).toBeLessThanOrEqual(now);
        expect(source.arrivalTime(end)).toBeGreaterThan(now);
      }),
    );
  });

  it("hands out nothing until a partition has a position and is fetchable", () => {
    const { source, ctx } = sourceAt();
    ctx.setNow(seconds(1));
    source.assign([tp("T1", 0)], ctx);
    expect(source.poll(100, ctx)).toEqual([]);
    expect(source.nextReadyAt(ctx.now())).toBeNull();
    source.seek(tp("T1", 0), 5, ctx);
    source.setFetchable([tp("T1", 0)], false, ctx);
    expect(source.poll(100, ctx)).toEqual([]);
    source.setFetchable([tp("T1", 0)], true, ctx);
    const records = source.poll(100, ctx);
    expect(records.map((r) => r.offset)).toEqual([5, 6, 7, 8, 9, 10]);
    expect(records[0]).toEqual({
      topic: "T1",
      partition: 0,
      offset: 5,
      timestampMs: 500,
      key: "T1-0@5",
      value: "T1-0@5",
      sizeInBytes: 100,
    });
    expect(source.position(tp("T1", 0))).toBe(11);
    expect(source.hasRecords()).toBe(false);
    expect(source.nextReadyAt(ctx.now())).toBe(ms(1100));
  });

  it("resets to the log start, the log end, or reports a missing offset", () => {
    const { source, ctx } = sourceAt();
    ctx.setNow(seconds(2));
    source.assign([tp("T1", 0), tp("T1", 1), tp("T1", 2)], ctx);
    source.resetPosition(tp("T1", 0), "earliest", ctx);
    source.resetPosition(tp("T1", 1), "latest", ctx);
    source.resetPosition(tp("T1", 2), "none", ctx);
    expect(source.position(tp("T1", 0))).toBe(0);
    expect(source.position(tp("T1", 1))).toBe(21);
    expect(source.position(tp("T1", 2))).toBeNull();
    expect(source.takePositionProblems()).toEqual([{ partition: tp("T1", 2), problem: "no-offset" }]);
    expect(source.takePositionProblems()).toEqual([]);
    expect(source.lag(tp("T1", 0))).toBe(21);
  });

  it("respects max.poll.records and rotates the partition it starts with", () => {
    const { source, ctx } = sourceAt();
    ctx.setNow(seconds(1));
    source.assign([tp("T1", 0), tp("T1", 1)], ctx);
    source.seek(tp("T1", 0), 0, ctx);
    source.seek(tp("T1", 1), 0, ctx);
    const first = source.poll(3, ctx);
    const second = source.poll(3, ctx);
    expect(first.map((r) => `${r.partition}@${r.offset}`)).toEqual(["0@0", "0@1", "0@2"]);
    expect(second.map((r) => `${r.partition}@${r.offset}`)).toEqual(["1@0", "1@1", "1@2"]);
  });

  it("forgets partitions no longer assigned and keeps the others' positions", () => {
    const { source, ctx } = sourceAt();
    source.assign([tp("T1", 0), tp("T1", 1)], ctx);
    source.seek(tp("T1", 0), 3, ctx);
    source.assign([tp("T1", 0), tp("T2", 0)], ctx);
    expect(source.position(tp("T1", 0))).toBe(3);
    expect(source.position(tp("T1", 1))).toBeNull();
    expect(source.position(tp("T2", 0))).toBeNull();
  });
});
