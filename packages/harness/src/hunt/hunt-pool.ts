import { Piscina } from "piscina";
import { entryPoint } from "../kernel/built-module.js";
import type { HuntRunResult, HuntTask } from "./hunt-task.js";
import { runErrorResult } from "./run-error-result.js";

/** A piscina pool of hunt runs (one task = one seeded run), `threads` worker threads always up. */
export class HuntPool {
  readonly threads: number;
  readonly #pool: Piscina<HuntTask, HuntRunResult>;

  constructor(threads: number) {
    this.threads = threads;
    this.#pool = new Piscina<HuntTask, HuntRunResult>({
      filename: entryPoint("hunt-worker"),
      minThreads: threads,
      maxThreads: threads,
      execArgv: [],
    });
  }

  /**
   * Runs one task; a run that throws comes back as a failure of its own
   * (run-error), never as a rejection. Null when `signal` aborted it (an
   * interrupted hunt abandons the runs in flight: they did not run).
   */
  run(task: HuntTask): Promise<HuntRunResult>;
  run(task: HuntTask, signal: AbortSignal | undefined): Promise<HuntRunResult | null>;
  run(task: HuntTask, signal?: AbortSignal): Promise<HuntRunResult | null> {
    return this.#pool
      .run(task, signal === undefined ? {} : { signal })
      .catch((error: unknown) => (signal?.aborted === true ? null : runErrorResult(task, error)));
  }

  destroy(): Promise<void> {
    return this.#pool.destroy();
  }
}
