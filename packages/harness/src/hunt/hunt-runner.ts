import { availableParallelism } from "node:os";
import type { GroupProtocol } from "../scenario/expand-groups.js";
import type { ScenarioFile } from "../scenario/scenario-schema.js";
import { HuntPool } from "./hunt-pool.js";
import type { HuntRunResult, HuntTask } from "./hunt-task.js";
import { type Shard, shardSeeds } from "./seed-shard.js";

export interface HuntOptions {
  readonly base: ScenarioFile | null;
  readonly asWritten: boolean;
  readonly protocol: GroupProtocol | null;
  /** Planted bugs to enable in every run. */
  readonly bugs?: readonly string[];
  readonly fromSeed: number;
  readonly toSeed: number;
  /** Run only this shard's seeds of fromSeed..toSeed. */
  readonly shard?: Shard;
  /** Keep each failing run's history in its result. */
  readonly withHistory?: boolean;
  /** Worker threads (default: all cores). */
  readonly workers?: number;
  /** Run on this pool (its threads; left running afterwards) instead of starting one (benchmarks: a warm pool). */
  readonly pool?: HuntPool;
  /** Stop at the first failing seed (runs already in flight finish). */
  readonly stopOnFailure: boolean;
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
}

/**
 * Fans the seeds of a hunt out over a piscina pool (one task = one run) and
 * collects the failing ones in seed order. With stopOnFailure no new seed
 * is started after the first failure.
 */
export async function hunt(options: HuntOptions): Promise<HuntOutcome> {
  const pool = options.pool ?? new HuntPool(Math.max(1, options.workers ?? availableParallelism()));
  const workers = pool.threads;
  const seeds = shardSeeds(options.fromSeed, options.toSeed, options.shard ?? null);
  const started = performance.now();
  const failures: HuntRunResult[] = [];
  const ran: number[] = [];
  let runs = 0;
  let simulatedMs = 0;
  let next = 0;
  let stop = false;
  try {
    const lane = async (): Promise<void> => {
      while (!stop && next < seeds.length) {
        const seed = seeds[next++] as number;
        const task: HuntTask = {
          base: options.base,
          seed,
          asWritten: options.asWritten,
          protocol: options.protocol,
          ...(options.bugs !== undefined ? { bugs: options.bugs } : {}),
          ...(options.withHistory === true ? { withHistory: true } : {}),
        };
        const result = await pool.run(task);
        runs++;
        ran.push(seed);
        simulatedMs += result.virtualMs;
        if (result.failures.length > 0) {
          failures.push(result);
          if (options.stopOnFailure) stop = true;
        }
        options.onResult?.(result, runs);
      }
    };
    await Promise.all(Array.from({ length: workers }, lane));
  } finally {
    if (options.pool === undefined) await pool.destroy();
  }
  failures.sort((a, b) => a.seed - b.seed);
  return { runs, seeds: ran.sort((a, b) => a - b), failures, elapsedMs: performance.now() - started, simulatedMs, workers };
}
