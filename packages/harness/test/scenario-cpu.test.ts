import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runScenarioCpu } from "../src/bench/child-cpu.js";
import { root } from "../src/bench/kcsim-process.js";
import type { ScenarioCpu } from "../src/bench/scenario-cpu.js";
import { STEADY_EARLIER_RUNS } from "../src/bench/steady-runs.js";
import type { V8TuningKind } from "../src/run/v8-tuning.js";

async function scenarioCpu(args: readonly string[], v8: V8TuningKind | "defaults" = "defaults"): Promise<ScenarioCpu> {
  return runScenarioCpu(v8, [join(root, "scenarios", "m10-join.json"), ...args], "scenario-cpu");
}

describe("the compression bench's child process (scenario-cpu)", () => {
  it("measures a warm run: the second run of the same seed in one process, with the cold run's history", async () => {
    const cold = await scenarioCpu(["2"]);
    const warm = await scenarioCpu(["2", "--warm"]);
    expect(cold.warm).toBe(false);
    expect(cold.earlierRuns).toBe(0);
    expect(warm.warm).toBe(true);
    expect(warm.earlierRuns).toBe(1);
    expect(warm.seed).toBe(2);
    expect(warm.historyHash).toBe(cold.historyHash);
    expect(warm.virtualMs).toBe(cold.virtualMs);
    expect(warm.checksFailed).toBe(cold.checksFailed);
  }, 60_000);

  it("measures a steady run: the fifth of the same seed in one process, every one with the cold run's history", async () => {
    const cold = await scenarioCpu(["2"]);
    const steady = await scenarioCpu(["2", "--steady"]);
    expect(steady.earlierRuns).toBe(STEADY_EARLIER_RUNS);
    expect(steady.warm).toBe(true);
    expect(steady.historyHash).toBe(cold.historyHash);
    expect(steady.checksFailed).toBe(cold.checksFailed);
  }, 60_000);

  it("runs the lockstep host with auto shards (--lockstep) to the inline history", async () => {
    const inline = await scenarioCpu(["2"]);
    const lockstep = await scenarioCpu(["2", "--lockstep"]);
    expect(inline.host).toBe("inline");
    expect(lockstep.host).toBe("lockstep");
    expect(lockstep.historyHash).toBe(inline.historyHash);
    expect(lockstep.checksFailed).toBe(inline.checksFailed);
  }, 60_000);

  it("gives the same history with either of kcsim's V8 settings as with V8's defaults", async () => {
    const tuned = await scenarioCpu(["3"], "many-runs");
    const oneRun = await scenarioCpu(["3"], "one-run");
    const defaults = await scenarioCpu(["3"]);
    expect(defaults.historyHash).toBe(tuned.historyHash);
    expect(oneRun.historyHash).toBe(tuned.historyHash);
    expect(defaults.checksFailed).toBe(tuned.checksFailed);
  }, 60_000);
});
