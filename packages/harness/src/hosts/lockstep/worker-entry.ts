import { loadWorkerBody } from "../../run/code-cached-require.js";

/**
 * The lockstep host's worker file (ENTRY_POINTS "lockstep-worker"). In the
 * bundle it loads lockstep-worker.cjs, the shard worker as one CommonJS
 * file, with V8's code cache (run/code-cached-require.ts), so a new worker
 * thread does not parse and compile the simulation again before its first
 * window; elsewhere (the tsc build) it imports shard-worker.js.
 */
const { body: serve, saveCache } = await loadWorkerBody<(saveCache: () => void) => void>(
  import.meta.url,
  "lockstep-worker.cjs",
  "lockstep-worker",
  "./shard-worker.js",
);
serve(saveCache);
