import { availableParallelism } from "node:os";
import { Piscina } from "piscina";
import { builtModule } from "../kernel/built-module.js";
import type { GroupProtocol } from "../scenario/expand-groups.js";
import type { ScenarioFile } from "../scenario/scenario-schema.js";
import type { HuntRunResult, HuntTask } from "./hunt-task.js";
import { runErrorResult } from "./run-error-result.js";
import { type SeedRange, seedCount, seedsOf } from "./seed-ranges.js";

export interface HuntOptions {
  readonly base: ScenarioFile | null;
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
  /** Worker threads (default: all cores). */
  readonly workers?: number;
  /** Stop at the first failing seed (runs already in flight finish). */
  readonly stopOnFailure: boolean;
  readonly onResult?: (result: HuntRunResult, done: number) => void;
}

export interface HuntOutcome {
  readonly runs: number;
  readonly failures: readonly HuntRunResult[];
  readonly elapsedMs: number;
  readonly simulatedMs: number;
  readonly workers: number;
  /** The hunt was stopped by its signal before it ran every seed. */
  readonly interrupted: boolean;
}

/**
 * Fans the seeds of a hunt out over a piscina pool (one task = one run) and
 * collects the failing ones in seed order. With stopOnFailure no new seed
 * is started after the first failure.
 */
export async function hunt(options: HuntOptions): Promise<HuntOutcome> {
  const ranges = options.seeds ?? [{ from: options.fromSeed, to: options.toSeed }];
  // More threads than seeds would only start and stop.
  const workers = Math.max(1, Math.min(options.workers ?? availableParallelism(), seedCount(ranges)));
  const signal = options.signal;
  const pool = new Piscina<HuntTask, HuntRunResult>({
    filename: builtModule("./hunt-worker.js", import.meta.url),
    minThreads: workers,
    maxThreads: workers,
    execArgv: [],
  });
  const started = performance.now();
  const failures: HuntRunResult[] = [];
  let runs = 0;
  let simulatedMs = 0;
  const seeds = seedsOf(ranges);
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
        };
        const result = await pool
          .run(task, signal === undefined ? {} : { signal })
          .catch((error: unknown) => (signal?.aborted === true ? null : runErrorResult(task, error)));
        if (result === null) return; // abandoned by the interruption: not run
        runs++;
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
    await pool.destroy();
  }
  failures.sort((a, b) => a.seed - b.seed);
  return { runs, failures, elapsedMs: performance.now() - started, simulatedMs, workers, interrupted: signal?.aborted === true };
}
