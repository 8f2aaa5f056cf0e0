import { availableParallelism } from "node:os";
import type { GroupProtocol } from "../scenario/expand-groups.js";
import type { ScenarioFile } from "../scenario/scenario-schema.js";
import { HuntPool } from "./hunt-pool.js";
import { type HuntRunResult, type HuntTask, ranOn } from "./hunt-task.js";
import { type SeedRange, seedCount, seedsOf } from "./seed-ranges.js";
import { type Shard, shardSeeds } from "./seed-shard.js";
import type { Swarm } from "./swarm-draw.js";

export interface HuntOptions {
  /** The base scenario, or a swarm (the whole system drawn from each seed). */
  readonly base: ScenarioFile | Swarm;
  readonly asWritten: boolean;
  readonly protocol: GroupProtocol | null;
  /** Planted bugs to enable in every run. */
  readonly bugs?: readonly string[];
  readonly fromSeed: number;
  readonly toSeed: number;
  /** The seeds to run instead of fromSeed..toSeed (a resumed hunt's seeds left). */
  readonly seeds?: readonly SeedRange[];
  /** Aborting it stops the hunt: no new seed starts and the runs in flight are abandoned (SIGINT, SIGTERM). */
  readonly signal?: AbortSignal;
  /** Run only this shard's seeds of fromSeed..toSeed. */
  readonly shard?: Shard;
  /** Keep each failing run's history in its result. */
  readonly withHistory?: boolean;
  /** Worker threads (default: all cores, each given at least SEEDS_PER_WORKER seeds: see huntWorkers). */
  readonly workers?: number;
  /** Run on this pool (its threads; left running afterwards) instead of starting one (benchmarks: a warm pool). */
  readonly pool?: HuntPool;
  /** Stop at the first failing seed (runs already in flight finish); a predicate: at the first failing seed it accepts. */
  readonly stopOnFailure: boolean | ((result: HuntRunResult) => boolean);
  readonly onResult?: (result: HuntRunResult, done: number) => void;
}

export interface HuntOutcome {
  readonly runs: number;
  /** The seeds that ran, ascending. */
  readonly seeds: readonly number[];
  readonly failures: readonly HuntRunResult[];
  readonly elapsedMs: number;
  readonly simulatedMs: number;
  readonly workers: number;
  /** Runs of drawn plans that went on past their plan to judge converges (extendedToMs: see runHuntTask). */
  readonly extended: number;
  /** The hunt was stopped by its signal before it ran every seed. */
  readonly interrupted: boolean;
}

/**
 * The seeds a worker thread must get before starting it pays: a fresh
 * worker's first seed costs about three warm seeds more CPU (loading the
 * bundle, then code that runs cold until the JIT has seen it; `pnpm bench
 * startup` measures it), time the other cores would rather spend on seeds.
 */
export const SEEDS_PER_WORKER = 4;

/**
 * How many worker threads a hunt of `seeds` seeds starts: the number asked
 * for (never more than the seeds), or by default one per core but no more
 * than one per SEEDS_PER_WORKER seeds.
 */
export function huntWorkers(requested: number | undefined, seeds: number): number {
  if (requested !== undefined) return Math.max(1, Math.min(requested, seeds));
  return Math.max(1, Math.min(availableParallelism(), Math.ceil(seeds / SEEDS_PER_WORKER)));
}

/**
 * Fans the seeds of a hunt out over a piscina pool (one task = one run) and
 * collects the failing ones in seed order. With stopOnFailure no new seed
 * is started after the first failure (the first it accepts, if a predicate).
 */
export async function hunt(options: HuntOptions): Promise<HuntOutcome> {
  const ranges = options.seeds ?? [{ from: options.fromSeed, to: options.toSeed }];
  const seeds = options.shard === undefined ? seedsOf(ranges) : shardSeeds(seedsOf(ranges), options.shard);
  const count = options.shard === undefined ? seedCount(ranges) : Math.ceil(seedCount(ranges) / options.shard.count);
  const pool = options.pool ?? new HuntPool(huntWorkers(options.workers, count));
  const workers = pool.threads;
  const signal = options.signal;
  const started = performance.now();
  const failures: HuntRunResult[] = [];
  const ran: number[] = [];
  let runs = 0;
  let simulatedMs = 0;
  let extended = 0;
  let stop = false;
  try {
    const lane = async (): Promise<void> => {
      while (!stop && signal?.aborted !== true) {
        const next = seeds.next();
        if (next.done === true) return;
        const seed = next.value;
        const task: HuntTask = {
          base: options.base,
          seed,
          asWritten: options.asWritten,
          protocol: options.protocol,
          ...(options.bugs !== undefined ? { bugs: options.bugs } : {}),
          ...(options.withHistory === true ? { withHistory: true } : {}),
        };
        const result = await pool.run(task, signal);
        if (result === null) return; // abandoned by the interruption: not run
        runs++;
        ran.push(seed);
        simulatedMs += result.virtualMs;
        if (ranOn(result)) extended++;
        if (result.failures.length > 0) {
          failures.push(result);
          const stopOn = options.stopOnFailure;
          if (typeof stopOn === "function" ? stopOn(result) : stopOn) stop = true;
        }
        options.onResult?.(result, runs);
      }
    };
    await Promise.all(Array.from({ length: workers }, lane));
  } finally {
    if (options.pool === undefined) await pool.destroy();
  }
  failures.sort((a, b) => a.seed - b.seed);
  return {
    runs,
    seeds: ran.sort((a, b) => a - b),
    failures,
    elapsedMs: performance.now() - started,
    simulatedMs,
    workers,
    extended,
    interrupted: signal?.aborted === true,
  };
}
