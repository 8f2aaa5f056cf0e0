import { availableParallelism } from "node:os";
import { Piscina } from "piscina";
import { builtModule } from "../kernel/built-module.js";
import type { GroupProtocol } from "../scenario/expand-groups.js";
import type { ScenarioFile } from "../scenario/scenario-schema.js";
import type { HuntRunResult, HuntTask } from "./hunt-task.js";
import { runErrorResult } from "./run-error-result.js";

export interface HuntOptions {
  readonly base: ScenarioFile | null;
  readonly asWritten: boolean;
  readonly protocol: GroupProtocol | null;
  /** Planted bugs to enable in every run. */
  readonly bugs?: readonly string[];
  readonly fromSeed: number;
  readonly toSeed: number;
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
}

/**
 * Fans the seeds of a hunt out over a piscina pool (one task = one run) and
 * collects the failing ones in seed order. With stopOnFailure no new seed
 * is started after the first failure.
 */
export async function hunt(options: HuntOptions): Promise<HuntOutcome> {
  const workers = Math.max(1, options.workers ?? availableParallelism());
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
  let nextSeed = options.fromSeed;
  let stop = false;
  try {
    const lane = async (): Promise<void> => {
      while (!stop && nextSeed <= options.toSeed) {
        const seed = nextSeed++;
        const task: HuntTask = {
          base: options.base,
          seed,
          asWritten: options.asWritten,
          protocol: options.protocol,
          ...(options.bugs !== undefined ? { bugs: options.bugs } : {}),
        };
        const result = await pool.run(task).catch((error: unknown) => runErrorResult(task, error));
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
  return { runs, failures, elapsedMs: performance.now() - started, simulatedMs, workers };
}
