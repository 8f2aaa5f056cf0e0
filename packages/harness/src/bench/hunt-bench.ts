import { availableParallelism } from "node:os";
import { join } from "node:path";
import { repoRoot } from "../cli/paths.js";
import { hunt } from "../hunt/hunt-runner.js";
import { loadScenarioFile } from "../scenario/load-scenario.js";
import { benchCount } from "./bench-setting.js";
import { type BenchRow, type BenchSuite, inTurn, median, round, spreadOf } from "./bench-suite.js";

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
const seedCount = () => benchCount("KCSIM_HUNT_BENCH_SEEDS", 600);

/**
 * Rounds of the comparison, each a one-worker hunt and a hunt on every
 * core, back to back (which goes first alternates from round to round).
 * The ratio is the median of the ratios within each round: two hunts run
 * seconds apart see the same machine, where its neighbours' load moves a
 * single pair by tens of percent (three single pairs at 8ff94dd, minutes
 * apart: 1.16x, 1.35x and 1.60x).
 */
const roundCount = () => benchCount("KCSIM_HUNT_BENCH_ROUNDS", 3);

/** What one hunt measured. */
export interface HuntMeasure {
  readonly runsPerSecond: number;
  readonly simPerWall: number;
  readonly seconds: number;
  /** CPU time of the process (worker threads included) per wall second. */
  readonly coresUsed: number;
}

/** One round: the one-worker hunt and the hunt on every core. */
export interface HuntRound {
  readonly one: HuntMeasure;
  readonly all: HuntMeasure;
}

/** Each pool size's median measures, and the ratios of the pool on every core to one worker, taken within each round. */
export function summarizeHuntRounds(rounds: readonly HuntRound[]) {
  if (rounds.length === 0) throw new Error("hunt bench: no rounds to summarize");
  const medianOf = (side: (round: HuntRound) => HuntMeasure): HuntMeasure => ({
    runsPerSecond: median(rounds.map((r) => side(r).runsPerSecond)),
    simPerWall: median(rounds.map((r) => side(r).simPerWall)),
    seconds: median(rounds.map((r) => side(r).seconds)),
    coresUsed: median(rounds.map((r) => side(r).coresUsed)),
  });
  return {
    one: medianOf((r) => r.one),
    all: medianOf((r) => r.all),
    speedup: spreadOf(rounds.map((r) => r.all.runsPerSecond / r.one.runsPerSecond)),
    simSpeedup: spreadOf(rounds.map((r) => r.all.simPerWall / r.one.simPerWall)),
  };
}

/**
 * Seed-hunting throughput: the same seeds (drawn fault plans, every seed
 * run, no bug planted) on a piscina pool of one worker and on one of one
 * worker per core, in one process, in rounds. Runs per second and simulated
 * seconds per wall second, pool start-up included (medians of the rounds);
 * the ratios are the medians of each round's.
 */
export const huntBench: BenchSuite = {
  name: "hunt",
  description: "seed hunting: runs/s and simulated s per wall s, 1 worker vs all cores",
  async run(): Promise<BenchRow[]> {
    const seeds = seedCount();
    const roundsWanted = roundCount();
    const base = loadScenarioFile(join(repoRoot(), "scenarios", `${SCENARIO}.json`));
    const cores = availableParallelism();
    const measure = async (workers: number): Promise<HuntMeasure> => {
      // CPU time of the whole process (worker threads included): on shared cores it shows how much of them the pool got.
      const cpuBefore = process.cpuUsage();
      const outcome = await hunt({ base, asWritten: false, protocol: null, fromSeed: 1, toSeed: seeds, workers, stopOnFailure: false });
      const cpu = process.cpuUsage(cpuBefore);
      const seconds = outcome.elapsedMs / 1000;
      const coresUsed = (cpu.user + cpu.system) / 1000 / outcome.elapsedMs;
      return { runsPerSecond: outcome.runs / seconds, simPerWall: outcome.simulatedMs / outcome.elapsedMs, seconds, coresUsed };
    };
    const rounds: HuntRound[] = [];
    for (let i = 0; i < roundsWanted; i++) {
      const [one, all] = await inTurn(
        i,
        () => measure(1),
        () => measure(cores),
      );
      rounds.push({ one, all });
    }
    const { one, all, speedup, simSpeedup } = summarizeHuntRounds(rounds);
    const what = `${seeds} seeds of ${SCENARIO} (drawn faults), median of ${roundsWanted} rounds`;
    const spread = (ratio: { min: number; max: number }) => `rounds ${ratio.min.toFixed(2)} to ${ratio.max.toFixed(2)}x`;
    return [
      {
        suite: "hunt",
        case: "1 worker",
        value: round(one.runsPerSecond),
        unit: "runs/s",
        note: `${what}: ${one.seconds.toFixed(1)} s, ${one.coresUsed.toFixed(2)} cores busy (${(one.runsPerSecond / one.coresUsed).toFixed(2)} runs per CPU s)`,
      },
      {
        suite: "hunt",
        case: `${cores} workers (all cores)`,
        value: round(all.runsPerSecond),
        unit: "runs/s",
        note: `${speedup.median.toFixed(2)}x one worker (median of each round's ratio; ${spread(speedup)}), ${all.seconds.toFixed(1)} s, ${all.coresUsed.toFixed(2)} cores busy (${(all.runsPerSecond / all.coresUsed).toFixed(2)} runs per CPU s)`,
      },
      { suite: "hunt", case: "1 worker, simulated time", value: round(one.simPerWall, 3), unit: "sim s / wall s", note: what },
      {
        suite: "hunt",
        case: `${cores} workers, simulated time`,
        value: round(all.simPerWall, 3),
        unit: "sim s / wall s",
        note: `${simSpeedup.median.toFixed(2)}x one worker (median of each round's ratio; ${spread(simSpeedup)})`,
      },
    ];
  },
};
