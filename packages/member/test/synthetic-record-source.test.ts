import { type ConsumedRecord, recordRangesOf } from "@kcsim/fetch";
import { compareTp, ms, seconds, type TopicPartition, tpKey } from "@kcsim/protocol";
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
    expect(source.poll(100, ctx).count).toBe(0);
    expect(source.nextReadyAt(ctx.now())).toBeNull();
    source.seek(tp("T1", 0), 5, ctx);
    source.setFetchable([tp("T1", 0)], false, ctx);
    expect(source.poll(100, ctx).records()).toEqual([]);
    source.setFetchable([tp("T1", 0)], true, ctx);
    const polled = source.poll(100, ctx);
    // The poll is its ranges; the records are made from them when read.
    expect(polled.count).toBe(6);
    expect(polled.ranges).toEqual([{ topic: "T1", partition: 0, firstOffset: 5, lastOffset: 10, count: 6 }]);
    const records = polled.records();
    expect(polled.records()).toBe(records);
    expect(records.map((r) => r.offset)).toEqual([5, 6, 7, 8, 9, 10]);
    // Every field by name: key and value are getters (built when read), which toEqual on the record itself would not see.
    const { topic, partition, offset, timestampMs, key, value, sizeInBytes } = records[0] as ConsumedRecord;
    expect({ topic, partition, offset, timestampMs, key, value, sizeInBytes }).toEqual({
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
    const first = source.poll(3, ctx).records();
    const second = source.poll(3, ctx).records();
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

/** The source as plainly as it can be written (every question answered by a pass over the partitions): the reference for the fast paths. */
class PlainSyntheticSource {
  readonly #held = new Map<string, { partition: TopicPartition; fetchable: boolean; position: number | null }>();
  readonly #arrival: (offset: number) => number;
  readonly #end: (now: number) => number;
  #rotation = 0;

  constructor(reference: SyntheticRecordSource) {
    this.#arrival = (offset) => reference.arrivalTime(offset);
    this.#end = (now) => {
      let end = 0;
      while (this.#arrival(end) <= now) end++;
      return end;
    };
  }

  assign(partitions: readonly TopicPartition[]): void {
    const wanted = new Set(partitions.map((p) => tpKey(p.topic, p.partition)));
    for (const key of [...this.#held.keys()]) if (!wanted.has(key)) this.#held.delete(key);
    for (const p of partitions) {
      const key = tpKey(p.topic, p.partition);
      if (!this.#held.has(key)) this.#held.set(key, { partition: p, fetchable: true, position: null });
    }
  }

  setFetchable(partitions: readonly TopicPartition[], fetchable: boolean): void {
    for (const p of partitions) {
      const held = this.#held.get(tpKey(p.topic, p.partition));
      if (held !== undefined) held.fetchable = fetchable;
    }
  }

  seek(p: TopicPartition, offset: number): void {
    const held = this.#held.get(tpKey(p.topic, p.partition));
    if (held !== undefined) held.position = Math.max(0, offset);
  }

  reset(p: TopicPartition, strategy: "earliest" | "latest", now: number): void {
    const held = this.#held.get(tpKey(p.topic, p.partition));
    if (held !== undefined) held.position = strategy === "earliest" ? 0 : this.#end(now);
  }

  #ready(end: number) {
    return [...this.#held.values()]
      .filter((h) => h.fetchable && h.position !== null && h.position < end)
      .sort((a, b) => compareTp(a.partition, b.partition));
  }

  poll(maxRecords: number, now: number): string[] {
    const end = this.#end(now);
    const ready = this.#ready(end);
    const out: string[] = [];
    if (ready.length === 0) return out;
    const start = this.#rotation++ % ready.length;
    for (let i = 0; i < ready.length && out.length < maxRecords; i++) {
      const held = ready[(start + i) % ready.length] as (typeof ready)[number];
      let offset = held.position as number;
      while (offset < end && out.length < maxRecords) out.push(`${held.partition.topic}-${held.partition.partition}@${offset++}`);
      held.position = offset;
    }
    return out;
  }

  hasRecords(now: number): boolean {
    return this.#ready(this.#end(now)).length > 0;
  }

  nextReadyAt(now: number): number | null {
    const at = [...this.#held.values()]
      .filter((h) => h.fetchable && h.position !== null)
      .map((h) => Math.max(now, this.#arrival(h.position as number)));
    return at.length === 0 ? null : Math.min(...at);
  }

  position(p: TopicPartition): number | null {
    return this.#held.get(tpKey(p.topic, p.partition))?.position ?? null;
  }
}

const PARTITIONS = [tp("T1", 0), tp("T1", 1), tp("T1", 2), tp("T2", 0), tp("T1-1", 0)];
const partitionArb = fc.constantFrom(...PARTITIONS);
type Step =
  | { readonly op: "assign"; readonly partitions: TopicPartition[] }
  | { readonly op: "fetchable"; readonly partitions: TopicPartition[]; readonly fetchable: boolean }
  | { readonly op: "seek"; readonly partition: TopicPartition; readonly offset: number }
  | { readonly op: "reset"; readonly partition: TopicPartition; readonly strategy: "earliest" | "latest" }
  | { readonly op: "poll"; readonly maxRecords: number }
  | { readonly op: "advance"; readonly us: number };
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constant("assign" as const), partitions: fc.subarray(PARTITIONS) }),
  fc.record({ op: fc.constant("fetchable" as const), partitions: fc.subarray(PARTITIONS), fetchable: fc.boolean() }),
  fc.record({ op: fc.constant("seek" as const), partition: partitionArb, offset: fc.integer({ min: -2, max: 40 }) }),
  fc.record({
    op: fc.constant("reset" as const),
    partition: partitionArb,
    strategy: fc.constantFrom("earliest" as const, "latest" as const),
  }),
  fc.record({ op: fc.constant("poll" as const), maxRecords: fc.integer({ min: 1, max: 8 }) }),
  fc.record({ op: fc.constant("advance" as const), us: fc.integer({ min: 0, max: 400_000 }) }),
);

describe("SyntheticRecordSource against the plain source", () => {
  it("hands out the same records and answers the same, whatever is done to it", () => {
    fc.assert(
      fc.property(fc.constantFrom(3, 10, 7.5), fc.array(stepArb, { maxLength: 60 }), (rate, steps) => {
        const { source, ctx } = sourceAt(rate);
        const plain = new PlainSyntheticSource(source);
        for (const step of steps) {
          const now = ctx.now();
          switch (step.op) {
            case "assign":
              source.assign(step.partitions, ctx);
              plain.assign(step.partitions);
              break;
            case "fetchable":
              source.setFetchable(step.partitions, step.fetchable, ctx);
              plain.setFetchable(step.partitions, step.fetchable);
              break;
            case "seek":
              source.seek(step.partition, step.offset, ctx);
              plain.seek(step.partition, step.offset);
              break;
            case "reset":
              source.resetPosition(step.partition, step.strategy, ctx);
              plain.reset(step.partition, step.strategy, now);
              break;
            case "poll": {
              const polled = source.poll(step.maxRecords, ctx);
              const records = polled.records();
              expect(records.map((r) => r.key)).toEqual(plain.poll(step.maxRecords, now));
              // The ranges a poll is made of are the ranges of the records it hands out.
              expect(polled.count).toBe(records.length);
              expect(polled.ranges).toEqual(recordRangesOf(records));
              break;
            }
            case "advance":
              ctx.setNow(now + step.us);
              break;
          }
          // nextReadyAt shows the source the time, which hasRecords then answers for.
          expect(source.nextReadyAt(ctx.now())).toBe(plain.nextReadyAt(ctx.now()));
          expect(source.hasRecords()).toBe(plain.hasRecords(ctx.now()));
          for (const p of PARTITIONS) expect(source.position(p)).toBe(plain.position(p));
        }
      }),
      { numRuns: 300 },
    );
  });
});
