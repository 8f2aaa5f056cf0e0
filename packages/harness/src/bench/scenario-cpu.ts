import { type RunOptions, runScenario } from "../run/run-scenario.js";
import { loadScenarioFile } from "../scenario/load-scenario.js";
import { STEADY_EARLIER_RUNS } from "./steady-runs.js";

/** What one measured run printed (one JSON line on stdout). */
export interface ScenarioCpu {
  readonly scenario: string;
  readonly seed: number;
  readonly virtualMs: number;
  /** CPU time of the whole process (every thread) from just before the run to just after it was judged. */
  readonly cpuMs: number;
  readonly wallMs: number;
  readonly historyHash: string;
  readonly checksFailed: number;
  /** Whether the measured run was the process's second run of the same seed (`--warm`) or a later one (`--steady`). */
  readonly warm: boolean;
  /** The runs of the same seed before the measured one in this process: 0, 1 (`--warm`) or STEADY_EARLIER_RUNS (`--steady`). */
  readonly earlierRuns: number;
  /** The host it ran in: inline, or lockstep with auto shards (`--lockstep`: its worker threads start inside the measured run). */
  readonly host: "inline" | "lockstep";
}

/**
 * A benchmark's child process (`node bundle/scenario-cpu.js SCENARIO
 * [SEED] [--warm | --steady] [--lockstep]`): runs one scenario inline (or in the
 * lockstep host with auto shards) and judges it, and prints what the run
 * cost. Process start, module loading and reading the scenario
 * are not counted: a fresh process per run keeps one run's heap and JIT
 * state out of the next one's numbers.
 *
 * With `--warm` the process first runs the same seed once unmeasured and
 * measures the second run: the cost of a run once V8 has compiled the hot
 * code, which is what a hunt worker pays for each seed after its first few.
 * With `--steady` it measures the fifth run: a hunt worker's cost per seed
 * once its warm-up is over (a second run still pays for compiling the
 * code that the first made hot late). Every run must give the same history
 * (the run is deterministic), or the process fails.
 */
async function main(args: readonly string[]): Promise<void> {
  const earlierRuns = args.includes("--steady") ? STEADY_EARLIER_RUNS : args.includes("--warm") ? 1 : 0;
  const host: ScenarioCpu["host"] = args.includes("--lockstep") ? "lockstep" : "inline";
  const [path, seedText] = args.filter((arg) => !arg.startsWith("--"));
  if (path === undefined) throw new Error("usage: scenario-cpu SCENARIO [SEED] [--warm | --steady] [--lockstep]");
  const scenario = loadScenarioFile(path);
  const seed = seedText === undefined ? (scenario.seed ?? 1) : Number(seedText);
  const options: RunOptions = { host, seed, ...(host === "lockstep" ? { hostOptions: { actorsPerWorker: "auto" } } : {}) };
  const hashes: string[] = [];
  for (let run = 0; run < earlierRuns; run++) hashes.push((await runScenario(scenario, options)).summary.historyHash);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const { summary } = await runScenario(scenario, options);
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  hashes.push(summary.historyHash);
  if (new Set(hashes).size > 1)
    throw new Error(`scenario-cpu: ${summary.scenario} seed ${seed} gave different histories in one process (${hashes.join(", ")})`);
  const measured: ScenarioCpu = {
    scenario: summary.scenario,
    seed,
    virtualMs: summary.metrics.virtualMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    wallMs,
    historyHash: summary.historyHash,
    checksFailed: Object.values(summary.checks).filter((check) => !check.ok).length,
    warm: earlierRuns > 0,
    earlierRuns,
    host,
  };
  process.stdout.write(`${JSON.stringify(measured)}\n`);
}

await main(process.argv.slice(2));
