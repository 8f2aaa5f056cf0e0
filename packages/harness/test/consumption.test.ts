import type { JsonValue, Observation } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { analyseConsumption } from "../src/analysis/consumption.js";
import type { HistoryEvent } from "../src/index.js";

const obs = (t: number, who: string, o: Record<string, JsonValue>): HistoryEvent => ({ t, ev: "obs", actor: who, o: o as Observation });
const life = (t: number, who: string, what: string): HistoryEvent => ({ t, ev: "life", actor: who, what, detail: null });
const owned = (t: number, who: string, partitions: number[]) =>
  obs(t, who, {
    type: "member.owned",
    groupId: "g",
    memberId: `${who}-id`,
    memberEpoch: 1,
    owned: partitions.length > 0 ? { T: partitions } : {},
    cause: "assigned",
  });
/** One poll's records: [partition, first offset, last offset] per range. */
const records = (t: number, who: string, ...ranges: [number, number, number][]) =>
  obs(t, who, {
    type: "member.records",
    memberId: `${who}-id`,
    ranges: ranges.map(([partition, firstOffset, lastOffset]) => ({
      topic: "T",
      partition,
      firstOffset,
      lastOffset,
      count: lastOffset - firstOffset + 1,
    })),
  });
const commit = (t: number, who: string, partition: number, offset: number, result: string) =>
  obs(t, who, {
    type: "member.commit",
    groupId: "g",
    memberId: `${who}-id`,
    memberEpoch: 1,
    kind: "auto",
    topics: [{ topic: "T", partitions: [partition], offsets: [offset] }],
    result,
  });
const fenced = (t: number, who: string) =>
  obs(t, "coordinator-0", {
    type: "gc.member-removed",
    groupId: "g",
    memberId: `${who}-id`,
    instanceId: null,
    memberEpoch: 1,
    reason: "session-timeout",
  });
const reset = (t: number, who: string, partition: number) =>
  obs(t, who, { type: "fetch.reset", topic: "T", partition, strategy: "earliest", offset: 0 });

describe("the consumption analysis", () => {
  it("follows each partition of a poll of several partitions on its own, from the first records on", () => {
    const report = analyseConsumption([
      life(0, "a", "start"),
      owned(1, "a", [0, 1, 2]),
      records(2, "a", [0, 0, 0], [1, 0, 1], [2, 0, 0]),
      records(3, "a", [1, 2, 2], [0, 1, 1], [2, 1, 2]),
      records(4, "a", [2, 4, 4], [0, 1, 1]),
    ]);
    expect(report.recordsConsumed).toBe(10);
    expect(report.breaks.map((b) => [b.partition, b.kind, b.expected, b.got])).toEqual([
      ["T-2", "skip", 3, 4],
      ["T-0", "rewind", 2, 1],
    ]);
    expect(report.redeliveries.map((r) => [r.partition, r.count, r.cause])).toEqual([["T-0", 1, null]]);
    expect(report.unowned).toEqual([]);
  });

  it("names why records come again: a rebalance, a failed commit, a zombie or a reset", () => {
    const handOver = (result: string) => [
      life(0, "a", "start"),
      life(0, "b", "start"),
      owned(1, "a", [0]),
      records(2, "a", [0, 0, 4]),
      commit(3, "a", 0, 2, result),
      owned(4, "a", []),
      owned(5, "b", [0]),
      records(6, "b", [0, 2, 6]),
      records(7, "b", [0, 7, 7]),
    ];
    const causes = (events: HistoryEvent[]) => analyseConsumption(events).redeliveries.map((r) => [r.actor, r.count, r.cause]);
    expect(causes(handOver("NONE"))).toEqual([["b", 3, "rebalance"]]);
    expect(causes(handOver("REQUEST_TIMED_OUT"))).toEqual([["b", 3, "failed commit"]]);

    // The fenced a goes on polling while b owns the partition: its records are duplicates and move nothing.
    const zombie = [
      life(0, "a", "start"),
      life(0, "b", "start"),
      owned(1, "a", [0]),
      records(2, "a", [0, 0, 4]),
      fenced(3, "a"),
      owned(4, "b", [0]),
      records(5, "a", [0, 5, 6]),
      records(6, "b", [0, 5, 6]),
    ];
    const report = analyseConsumption(zombie);
    expect(report.redeliveries.map((r) => [r.actor, r.count, r.cause])).toEqual([]);
    expect(report.breaks).toEqual([]);
    // b moves on; the zombie, behind it, is handed some of what b already had.
    const zombieBehind = [...zombie, records(7, "b", [0, 7, 9]), records(8, "a", [0, 7, 8])];
    expect(analyseConsumption(zombieBehind).redeliveries.map((r) => [r.actor, r.count, r.cause])).toEqual([["a", 2, "zombie"]]);

    const resetToStart = [
      life(0, "a", "start"),
      owned(1, "a", [0]),
      records(2, "a", [0, 0, 4]),
      reset(3, "a", 0),
      records(4, "a", [0, 0, 2]),
      records(5, "a", [0, 3, 5]),
    ];
    const resetReport = analyseConsumption(resetToStart);
    expect(resetReport.redeliveries.map((r) => [r.count, r.cause])).toEqual([
      [3, "reset"],
      [2, "reset"],
    ]);
    expect(resetReport.breaks.map((b) => [b.kind, b.cause])).toEqual([["rewind", "reset"]]);
  });

  it("reports records of a partition the actor does not own, and ends tenures when the process goes", () => {
    const report = analyseConsumption([
      life(0, "a", "start"),
      owned(1, "a", [0]),
      records(2, "a", [0, 0, 1], [1, 0, 0]),
      life(3, "a", "crash"),
      records(4, "a", [0, 2, 2]),
    ]);
    expect(report.unowned.map((u) => [u.t, u.partition])).toEqual([
      [2, "T-1"],
      [4, "T-0"],
    ]);
    expect(report.recordsConsumed).toBe(4);
  });
});
