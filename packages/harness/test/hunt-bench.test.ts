import { describe, expect, it } from "vitest";
import { type HuntMeasure, type HuntRound, summarizeHuntRounds } from "../src/bench/hunt-bench.js";

const measure = (runsPerSecond: number, simPerWall = runsPerSecond * 180): HuntMeasure => ({
  runsPerSecond,
  simPerWall,
  seconds: 600 / runsPerSecond,
  coresUsed: 1,
});

describe("the hunt bench's rounds", () => {
  it("takes the speed-up of every core within each round, then its median", () => {
    // The machine slowed in the second round, for both pools alike: each round's ratio is 1.5x.
    const rounds: HuntRound[] = [
      { one: measure(40), all: measure(60) },
      { one: measure(20), all: measure(30) },
      { one: measure(40), all: measure(60) },
    ];
    const summary = summarizeHuntRounds(rounds);
    expect(summary.speedup).toEqual({ median: 1.5, min: 1.5, max: 1.5 });
    expect(summary.simSpeedup.median).toBeCloseTo(1.5, 12);
    expect(summary.one.runsPerSecond).toBe(40);
    expect(summary.all.runsPerSecond).toBe(60);
  });

  it("keeps a round's slow pool from being compared with another round's fast one", () => {
    // One worker was slowed in round 1, every core in round 2: the rounds' ratios are 2, 1 and 1.5.
    const rounds: HuntRound[] = [
      { one: measure(30), all: measure(60) },
      { one: measure(40), all: measure(40) },
      { one: measure(40), all: measure(60) },
    ];
    expect(summarizeHuntRounds(rounds).speedup).toEqual({ median: 1.5, min: 1, max: 2 });
  });

  it("refuses to summarize no rounds", () => {
    expect(() => summarizeHuntRounds([])).toThrow("hunt bench: no rounds to summarize");
  });
});
