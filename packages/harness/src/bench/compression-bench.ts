import { join } from "node:path";
import { entryPoint } from "../kernel/built-module.js";
import type { BenchRow, BenchSuite } from "./bench-suite.js";
import { median, runNodeChild } from "./child-cpu.js";
import { root } from "./kcsim-process.js";
import type { ScenarioCpu } from "./scenario-cpu.js";

/** The scenarios whose compression the suite reports, each run inline with its own seed. */
export const COMPRESSION_SCENARIOS = ["chaos-consumer", "chaos-data", "m10-join"] as const;
const REPETITIONS = 3;

/** One scenario run in a fresh process (bench/scenario-cpu.ts), cold or after a first run of the same seed; what it printed. */
async function measureOnce(scenario: string, warm: boolean): Promise<ScenarioCpu> {
  const run = await runNodeChild([entryPoint("scenario-cpu"), join(root, "scenarios", `${scenario}.json`), ...(warm ? ["--warm"] : [])]);
  const line = run.stdout.trim().split("\n").pop() ?? "";
  if (run.code !== 0 || !line.startsWith("{")) throw new Error(`compression: ${scenario} failed (exit ${run.code}): ${run.stderr.trim()}`);
  return JSON.parse(line) as ScenarioCpu;
}

/**
 * Time compression: virtual seconds simulated per CPU second, inline, each
 * scenario run (and judged) three times in a fresh process of its own; the
 * median run counts. The CPU time is the whole process's (GC threads
 * included) from just before the run to its verdict: process start, module
 * loading and reading the scenario are left out.
 *
 * Each scenario is measured twice over: cold, the process's first run (V8
 * still compiling the hot code on its background threads, which the
 * process's CPU time includes), and warm, the process's second run of the
 * same seed (what a hunt worker pays per seed once its first seeds have
 * compiled the code). Both must give the same history.
 */
export const compressionBench: BenchSuite = {
  name: "compression",
  description:
    "virtual seconds per CPU second, inline, chaos-consumer / chaos-data / m10-join, cold and warm (median of 3 fresh processes each)",
  async run(): Promise<BenchRow[]> {
    const rows: BenchRow[] = [];
    for (const scenario of COMPRESSION_SCENARIOS) {
      let hash: string | null = null;
      for (const warm of [false, true]) {
        const runs: ScenarioCpu[] = [];
        for (let i = 0; i < REPETITIONS; i++) runs.push(await measureOnce(scenario, warm));
        const cpuMs = median(runs.map((r) => r.cpuMs));
        const first = runs[0] as ScenarioCpu;
        hash ??= first.historyHash;
        if (runs.some((r) => r.historyHash !== hash)) throw new Error(`compression: ${scenario} did not repeat its history`);
        rows.push({
          suite: this.name,
          case: `${scenario}${warm ? ", warm" : ""}: virtual s per CPU s`,
          value: Math.round(first.virtualMs / cpuMs),
          unit: "x",
          note: `${warm ? "second run in one process; " : ""}${(first.virtualMs / 1000).toFixed(0)} s virtual in ${(cpuMs / 1000).toFixed(2)} s CPU (median of ${REPETITIONS}: ${runs
            .map((r) => (r.cpuMs / 1000).toFixed(2))
            .join(" / ")}), ${first.checksFailed === 0 ? "every check passed" : `${first.checksFailed} checks failed`}`,
        });
      }
    }
    return rows;
  },
};
