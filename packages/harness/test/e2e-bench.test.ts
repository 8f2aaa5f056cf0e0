import { describe, expect, it } from "vitest";
import { DEFAULT_REGISTRY } from "../src/actors/registry.js";
import { E2E_DEFAULTS, e2eScenario, runE2e } from "../src/bench/e2e-bench.js";
import { E2eRecordCounter } from "../src/bench/e2e-record-counter.js";
import { InlineHost } from "../src/hosts/inline-host.js";
import { toSimulationSpec } from "../src/scenario/load-scenario.js";

const SMALL = { ...E2E_DEFAULTS, members: 2, partitions: 4, producers: 1, recordsPerSecond: 200, durationMs: 3_000, drainMs: 1_000 };

describe("the e2e bench's counts", () => {
  // It counts from the history's events as they are recorded; a change of their shape (history format 3 made
  // member.records one observation per poll with a range per partition) must not turn its figures into NaN.
  it("counts the records consumed from the per-poll member.records ranges, and never more than were acknowledged", () => {
    const r = runE2e(SMALL);
    expect(r.produced).toBeGreaterThan(0);
    expect(Number.isInteger(r.consumed)).toBe(true);
    expect(r.consumed).toBeGreaterThan(0);
    expect(r.consumed).toBeLessThanOrEqual(r.produced);
  }, 120_000);

  it("counts from the events exactly what the history's JSON lines say", () => {
    const counter = new E2eRecordCounter();
    let produced = 0;
    let consumed = 0;
    const onLine = (line: string) => {
      const event = JSON.parse(line) as {
        ev?: string;
        o?: { type: string; errorCode?: number; count?: number; ranges?: { count: number }[] };
      };
      if (event.ev !== "obs" || event.o === undefined) return;
      if (event.o.type === "producer.ack" && event.o.errorCode === 0) produced += event.o.count ?? 0;
      if (event.o.type === "member.records") for (const range of event.o.ranges ?? []) consumed += range.count;
    };
    const spec = toSimulationSpec(e2eScenario(SMALL));
    new InlineHost(spec, DEFAULT_REGISTRY, { history: { keepEvents: false, follower: counter, onLine } }).run();
    expect(produced).toBeGreaterThan(0);
    expect(consumed).toBeGreaterThan(0);
    expect(counter.produced).toBe(produced);
    expect(counter.consumed).toBe(consumed);
    const r = runE2e(SMALL);
    expect([r.produced, r.consumed]).toEqual([produced, consumed]);
  }, 120_000);
});
