import { requireBundledWithCodeCache } from "../../run/code-cached-require.js";

/**
 * The lockstep host's worker file (ENTRY_POINTS "lockstep-worker"). In the
 * bundle it loads lockstep-worker.cjs, the shard worker as one CommonJS
 * file, with V8's code cache (run/code-cached-require.ts), so a new worker
 * thread does not parse and compile the simulation again before its first
 * window; elsewhere (the tsc build) it imports shard-worker.js.
 */
type ServeLockstepShard = (saveCache: () => void) => void;

const loaded = requireBundledWithCodeCache(import.meta.url, "lockstep-worker.cjs", "lockstep-worker");
// Not a literal: the bundler must not take the worker into this file, which in the bundle has lockstep-worker.cjs.
const serve: ServeLockstepShard =
  loaded !== null
    ? (loaded.exports as { default: ServeLockstepShard }).default
    : ((await import(new URL("./shard-worker.js", import.meta.url).href)) as { default: ServeLockstepShard }).default;
serve(loaded?.saveCache ?? ((): void => {}));
