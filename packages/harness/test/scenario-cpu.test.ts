import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runNodeChild } from "../src/bench/child-cpu.js";
import { root } from "../src/bench/kcsim-process.js";
import type { ScenarioCpu } from "../src/bench/scenario-cpu.js";
import { entryPoint } from "../src/kernel/built-module.js";
import { V8_TUNING } from "../src/run/v8-tuning.js";

async function scenarioCpu(args: readonly string[], nodeFlags: readonly string[] = []): Promise<ScenarioCpu> {
  const run = await runNodeChild([...nodeFlags, entryPoint("scenario-cpu"), join(root, "scenarios", "m10-join.json"), ...args]);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout.trim().split("\n").pop() ?? "") as ScenarioCpu;
}

describe("the compression bench's child process (scenario-cpu)", () => {
  it("measures a warm run: the second run of the same seed in one process, with the cold run's history", async () => {
    const cold = await scenarioCpu(["2"]);
    const warm = await scenarioCpu(["2", "--warm"]);
    expect(cold.warm).toBe(false);
    expect(warm.warm).toBe(true);
    expect(warm.seed).toBe(2);
    expect(warm.historyHash).toBe(cold.historyHash);
    expect(warm.virtualMs).toBe(cold.virtualMs);
    expect(warm.checksFailed).toBe(cold.checksFailed);
  }, 60_000);

  it("gives the same history with kcsim's V8 settings as with V8's defaults", async () => {
    const tuned = await scenarioCpu(["3"], V8_TUNING);
    const defaults = await scenarioCpu(["3"]);
    expect(defaults.historyHash).toBe(tuned.historyHash);
    expect(defaults.checksFailed).toBe(tuned.checksFailed);
  }, 60_000);
});
