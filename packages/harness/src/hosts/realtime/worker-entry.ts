import { loadWorkerBody } from "../../run/code-cached-require.js";

/**
 * The realtime host's worker file (ENTRY_POINTS "realtime-worker"). In the
 * bundle it loads realtime-worker.cjs, the shard worker as one CommonJS
 * file, with V8's code cache (run/code-cached-require.ts): the realtime host
 * starts a worker per actor, each of which would otherwise parse and compile
 * the simulation before the cluster can answer; elsewhere (the tsc build)
 * it imports shard-worker.js.
 */
const { body: serve, saveCache } = await loadWorkerBody<(saveCache: () => void) => void>(
  import.meta.url,
  "realtime-worker.cjs",
  "realtime-worker",
  "./shard-worker.js",
);
serve(saveCache);
