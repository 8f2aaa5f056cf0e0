import { requireBundledWithCodeCache } from "../run/code-cached-require.js";
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

const loaded = requireBundledWithCodeCache(import.meta.url, "hunt-worker.cjs", "hunt-worker");
// Not a literal: the bundler must not take the worker into this file, which in the bundle has hunt-worker.cjs.
const run: HuntWorker =
  loaded !== null
    ? (loaded.exports as { default: HuntWorker }).default
    : ((await import(new URL("./hunt-worker.js", import.meta.url).href)) as { default: HuntWorker }).default;
const saveCache = loaded?.saveCache ?? ((): void => {});

export default async function huntWorkerEntry(task: HuntTask): Promise<HuntRunResult> {
  const result = await run(task);
  saveCache();
  return result;
}
