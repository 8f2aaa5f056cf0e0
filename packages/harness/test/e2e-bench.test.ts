import { describe, expect, it } from "vitest";
import { runE2e } from "../src/bench/e2e-bench.js";

describe("the e2e bench's counts", () => {
  // It counts from the history's lines as they are written; a change of their shape (history format 3 made
  // member.records one line per poll with a range per partition) must not turn its figures into NaN.
  it("counts the records consumed from the per-poll member.records ranges, and never more than were acknowledged", () => {
    const r = runE2e({ members: 2, partitions: 4, producers: 1, recordsPerSecond: 200, durationMs: 3_000, drainMs: 1_000 });
    expect(r.produced).toBeGreaterThan(0);
    expect(Number.isInteger(r.consumed)).toBe(true);
    expect(r.consumed).toBeGreaterThan(0);
    expect(r.consumed).toBeLessThanOrEqual(r.produced);
  }, 120_000);
});
