import { availableParallelism } from "node:os";
import { join } from "node:path";
import { repoRoot } from "../cli/paths.js";
import { hunt } from "../hunt/hunt-runner.js";
import { loadScenarioFile } from "../scenario/load-scenario.js";
import { type BenchRow, type BenchSuite, round } from "./bench-suite.js";

/**
 * The seeds each pool size hunts: drawn fault plans over session-timeout
 * (five members, 180 s of virtual time each). 600, not fewer: a worker's
 * first seeds cost up to four times a later one's (V8 still compiles its
 * code, on background threads that take the other core), and two workers
 * pay that twice on two cores. A 40-seed bench showed two workers at 1.0x
 * one worker; at 8f754b6, 200 seeds showed 1.10x and 1,000 seeds 1.75x in
 * the same hour. Real hunts run hundreds or thousands of seeds, so the
 * steady state is what counts.
 */
const SCENARIO = "session-timeout";
const SEEDS = Number(process.env.KCSIM_HUNT_BENCH_SEEDS ?? 600);

/**
 * Seed-hunting throughput: the same seeds (drawn fault plans, every seed
 * run, no bug planted) on a piscina pool of one worker, then of one worker
 * per core, in one process one after the other. Runs per second and
 * simulated seconds per wall second, pool start-up included; the ratio is
 * measured in the same run.
 */
export const huntBench: BenchSuite = {
  name: "hunt",
  description: "seed hunting: runs/s and simulated s per wall s, 1 worker vs all cores",
  async run(): Promise<BenchRow[]> {
    const base = loadScenarioFile(join(repoRoot(), "scenarios", `${SCENARIO}.json`));
    const cores = availableParallelism();
    const measure = async (workers: number) => {
      // CPU time of the whole process (worker threads included): on shared cores it shows how much of them the pool got.
      const cpuBefore = process.cpuUsage();
      const outcome = await hunt({ base, asWritten: false, protocol: null, fromSeed: 1, toSeed: SEEDS, workers, stopOnFailure: false });
      const cpu = process.cpuUsage(cpuBefore);
      const seconds = outcome.elapsedMs / 1000;
      const coresUsed = (cpu.user + cpu.system) / 1000 / outcome.elapsedMs;
      return { runsPerSecond: outcome.runs / seconds, simPerWall: outcome.simulatedMs / outcome.elapsedMs, seconds, coresUsed };
    };
    const one = await measure(1);
    const all = await measure(cores);
    const what = `${SEEDS} seeds of ${SCENARIO} (drawn faults)`;
    return [
      {
        suite: "hunt",
        case: "1 worker",
        value: round(one.runsPerSecond),
        unit: "runs/s",
        note: `${what} in ${one.seconds.toFixed(1)} s, ${one.coresUsed.toFixed(2)} cores busy (${(one.runsPerSecond / one.coresUsed).toFixed(2)} runs per CPU s)`,
      },
      {
        suite: "hunt",
        case: `${cores} workers (all cores)`,
        value: round(all.runsPerSecond),
        unit: "runs/s",
        note: `${(all.runsPerSecond / one.runsPerSecond).toFixed(2)}x one worker (same run), ${all.seconds.toFixed(1)} s, ${all.coresUsed.toFixed(2)} cores busy (${(all.runsPerSecond / all.coresUsed).toFixed(2)} runs per CPU s)`,
      },
      { suite: "hunt", case: "1 worker, simulated time", value: round(one.simPerWall, 3), unit: "sim s / wall s", note: what },
      {
        suite: "hunt",
        case: `${cores} workers, simulated time`,
        value: round(all.simPerWall, 3),
        unit: "sim s / wall s",
        note: `${(all.simPerWall / one.simPerWall).toFixed(2)}x one worker (same run)`,
      },
    ];
  },
};
