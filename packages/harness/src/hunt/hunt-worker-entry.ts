import { loadWorkerBody } from "../run/code-cached-require.js";
import type { HuntRunResult, HuntTask } from "./hunt-task.js";

/**
 * The hunt pool's worker file (ENTRY_POINTS "hunt-worker"). In the bundle
 * it loads hunt-worker.cjs, the worker as one CommonJS file, with V8's code
 * cache (run/code-cached-require.ts), so a new worker thread does not parse
 * and compile the simulation again before its first seed; elsewhere (the
 * tsc build) it imports hunt/hunt-worker.js. A worker thread can be
 * terminated without an exit, so the cache is written once the first task
 * is done, when that task has compiled what every task runs.
 */
type HuntWorker = (task: HuntTask) => Promise<HuntRunResult>;

const { body: run, saveCache } = await loadWorkerBody<HuntWorker>(import.meta.url, "hunt-worker.cjs", "hunt-worker", "./hunt-worker.js");

export default async function huntWorkerEntry(task: HuntTask): Promise<HuntRunResult> {
  const result = await run(task);
  saveCache();
  return result;
}
