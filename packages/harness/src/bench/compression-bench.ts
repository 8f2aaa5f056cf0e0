import { join } from "node:path";
import type { V8TuningKind } from "../run/v8-tuning.js";
import { type BenchRow, type BenchSuite, median } from "./bench-suite.js";
import { runScenarioCpu } from "./child-cpu.js";
import { root } from "./kcsim-process.js";
import type { ScenarioCpu } from "./scenario-cpu.js";
import { STEADY_EARLIER_RUNS } from "./steady-runs.js";

/** The scenarios whose compression the suite reports, each run inline with its own seed. */
export const COMPRESSION_SCENARIOS = ["chaos-consumer", "chaos-data", "m10-join"] as const;
const REPETITIONS = 3;

/**
 * How a scenario is measured: the process's first run or a later one, with which V8 settings (a `kcsim run`'s,
 * a hunt's or V8's defaults); what its row's case and note add.
 */
interface Measure {
  /** scenario-cpu's flag for the runs before the measured one, if any. */
  readonly earlier: "--warm" | "--steady" | null;
  /** The child's V8 settings: kcsim's for a one-run or a many-runs process, or V8's defaults. */
  readonly v8: V8TuningKind | "defaults";
  readonly label: string;
  readonly note: string;
}

const COLD: Measure = { earlier: null, v8: "one-run", label: "", note: "" };
const COLD_V8_DEFAULTS: Measure = {
  earlier: null,
  v8: "defaults",
  label: ", cold with V8's defaults",
  note: "without kcsim's V8 settings, alternating with the cold runs; ",
};
const COLD_MANY_RUNS: Measure = {
  earlier: null,
  v8: "many-runs",
  label: ", cold with a hunt's V8 settings",
  note: "the settings of a process that runs many seeds, alternating with the cold runs; ",
};
const WARM: Measure = { earlier: "--warm", v8: "many-runs", label: ", warm", note: "second run in one process; " };
const STEADY: Measure = {
  earlier: "--steady",
  v8: "many-runs",
  label: ", steady",
  note: `run ${STEADY_EARLIER_RUNS + 1} in one process (a hunt worker's cost per seed after its warm-up); `,
};

/** One scenario run in a fresh process (bench/scenario-cpu.ts) as `measure` says; what it printed. */
function measureOnce(scenario: string, { earlier, v8 }: Measure): Promise<ScenarioCpu> {
  const args = [join(root, "scenarios", `${scenario}.json`), ...(earlier !== null ? [earlier] : [])];
  return runScenarioCpu(v8, args, `compression: ${scenario}`);
}

/**
 * Time compression: virtual seconds simulated per CPU second, inline, each
 * scenario run (and judged) three times in a fresh process of its own; the
 * median run counts. The CPU time is the whole process's (GC threads
 * included) from just before the run to its verdict: process start, module
 * loading and reading the scenario are left out.
 *
 * Each scenario is measured five ways: cold, the process's first run (V8
 * still compiling the hot code on its background threads, which the
 * process's CPU time includes), with the V8 settings of `kcsim run`; cold
 * with V8's defaults and cold with a hunt's settings, alternating with the
 * first so that all three see the same machine; warm, the process's
 * second run of the same seed; and steady, its fifth run (what a hunt
 * worker pays per seed once its warm-up is over: a second run still
 * compiles code the first made hot late), both with a hunt's settings.
 * All must give the same history. kcsim's V8 settings (run/v8-tuning.ts)
 * go on node's command line, as set before any of the simulation's code is
 * loaded: as in a hunt's workers and in the CLI's commands.
 */
export const compressionBench: BenchSuite = {
  name: "compression",
  description:
    "virtual seconds per CPU second, inline, chaos-consumer / chaos-data / m10-join: cold, cold with V8's defaults, cold with a hunt's V8 settings, warm, steady (median of 3 fresh processes each)",
  async run(): Promise<BenchRow[]> {
    const rows: BenchRow[] = [];
    for (const scenario of COMPRESSION_SCENARIOS) {
      const runs = new Map<Measure, ScenarioCpu[]>([COLD, COLD_V8_DEFAULTS, COLD_MANY_RUNS, WARM, STEADY].map((measure) => [measure, []]));
      for (let i = 0; i < REPETITIONS; i++)
        for (const measure of [COLD, COLD_V8_DEFAULTS, COLD_MANY_RUNS]) runs.get(measure)?.push(await measureOnce(scenario, measure));
      for (let i = 0; i < REPETITIONS; i++)
        for (const measure of [WARM, STEADY]) runs.get(measure)?.push(await measureOnce(scenario, measure));
      const all = [...runs.values()].flat();
      const first = all[0] as ScenarioCpu;
      if (all.some((r) => r.historyHash !== first.historyHash)) throw new Error(`compression: ${scenario} did not repeat its history`);
      const medianMs = (measure: Measure) => median((runs.get(measure) ?? []).map((r) => r.cpuMs));
      for (const [measure, measured] of runs) {
        const cpuMs = medianMs(measure);
        const versusDefaults =
          measure === COLD
            ? `${(cpuMs / medianMs(COLD_V8_DEFAULTS)).toFixed(2)}x the CPU with V8's defaults, ${(cpuMs / medianMs(COLD_MANY_RUNS)).toFixed(2)}x with a hunt's settings (same run); `
            : "";
        rows.push({
          suite: this.name,
          case: `${scenario}${measure.label}: virtual s per CPU s`,
          value: Math.round(first.virtualMs / cpuMs),
          unit: "x",
          note: `${versusDefaults}${measure.note}${(first.virtualMs / 1000).toFixed(0)} s virtual in ${(cpuMs / 1000).toFixed(2)} s CPU (median of ${REPETITIONS}: ${measured
            .map((r) => (r.cpuMs / 1000).toFixed(2))
            .join(" / ")}), ${first.checksFailed === 0 ? "every check passed" : `${first.checksFailed} checks failed`}`,
        });
      }
    }
    return rows;
  },
};
