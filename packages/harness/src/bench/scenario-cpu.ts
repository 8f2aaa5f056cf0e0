import { runScenario } from "../run/run-scenario.js";
import { loadScenarioFile } from "../scenario/load-scenario.js";

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
}

/**
 * A benchmark's child process (`node bundle/scenario-cpu.js SCENARIO
 * [SEED]`): runs one scenario inline and judges it, and prints what the run
 * cost. Process start, module loading and reading the scenario are not
 * counted: a fresh process per run keeps one run's heap and JIT state out of
 * the next one's numbers.
 */
async function main(args: readonly string[]): Promise<void> {
  const [path, seedText] = args;
  if (path === undefined) throw new Error("usage: scenario-cpu SCENARIO [SEED]");
  const scenario = loadScenarioFile(path);
  const seed = seedText === undefined ? (scenario.seed ?? 1) : Number(seedText);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const { summary } = await runScenario(scenario, { host: "inline", seed });
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const measured: ScenarioCpu = {
    scenario: summary.scenario,
    seed,
    virtualMs: summary.metrics.virtualMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    wallMs,
    historyHash: summary.historyHash,
    checksFailed: Object.values(summary.checks).filter((check) => !check.ok).length,
  };
  process.stdout.write(`${JSON.stringify(measured)}\n`);
}

await main(process.argv.slice(2));
