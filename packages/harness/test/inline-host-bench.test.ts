import { describe, expect, it } from "vitest";
import { type PingPongRound, summarizeRounds } from "../src/bench/inline-host-bench.js";

describe("the inline-host bench's rounds", () => {
  it("takes each ratio within a round, so a slow round on both sides does not move it", () => {
    // The second round ran on a machine twice as slow for both loops: the same ratio, 0.5x.
    const rounds: PingPongRound[] = [
      { inline: 2, noCodec: 1.6, withMsgpackr: 1, bare: 0.2 },
      { inline: 4, noCodec: 3.2, withMsgpackr: 2, bare: 0.4 },
      { inline: 2, noCodec: 1.6, withMsgpackr: 1, bare: 0.2 },
    ];
    const summary = summarizeRounds(rounds);
    expect(summary.versusMsgpackr).toEqual({ median: 0.5, min: 0.5, max: 0.5 });
    expect(summary.versusBare.median).toBeCloseTo(0.1, 12);
    expect(summary.sealingCost.median).toBeCloseTo(0.2, 12);
    expect(summary.inline).toBe(2);
  });

  it("does not pair one loop's fast round with the other's slow one", () => {
    // Each loop had one slow round, in different rounds: the medians of each loop alone give 1 / 2 = 0.5x,
    // the ratios within the rounds 0.25, 1 and 0.5, whose median is 0.5x too; the spread says how far they went.
    const rounds: PingPongRound[] = [
      { inline: 4, noCodec: 3, withMsgpackr: 1, bare: 0.1 },
      { inline: 2, noCodec: 1.5, withMsgpackr: 2, bare: 0.1 },
      { inline: 2, noCodec: 1.5, withMsgpackr: 1, bare: 0.1 },
    ];
    const summary = summarizeRounds(rounds);
    expect(summary.versusMsgpackr).toEqual({ median: 0.5, min: 0.25, max: 1 });
  });

  it("refuses to summarize no rounds", () => {
    expect(() => summarizeRounds([])).toThrow("inline-host bench: no rounds to summarize");
  });
});
