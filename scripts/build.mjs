#!/usr/bin/env node
// Builds the workspace in two steps:
//   1. `tsc -b`: each package's dist/, one ES module per source file (the
//      library that other code imports: @kcsim/harness and the rest);
//   2. rolldown: packages/harness/bundle/, the CLI and every worker entry
//      (ENTRY_POINTS in packages/harness/src/kernel/built-module.ts) bundled
//      from dist/, so that a process or a worker thread loads one file instead
//      of some 650 modules (about a third of the CPU time of loading them).
// The bundle step is skipped when the bundle is newer than every package's
// tsc build; its stamp (bundle/.built) records when the whole build started,
// which scripts/build-state.mjs compares with the sources.
// `pnpm kcsim` runs this only when a source is newer than that (scripts/kcsim.mjs).
//
// Usage: node scripts/build.mjs   (pnpm build; pnpm test and pnpm bench run it first)
// The compiler's and the bundler's messages go to stderr, so a command's
// stdout (`kcsim ... --json`) stays its own.
import { spawnSync } from "node:child_process";
import { existsSync, renameSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { BUNDLE, buildInputs, HARNESS, mtimeOf, PACKAGES, ROOT, readStamp, STAMP, tsPackages } from "./build-state.mjs";

/**
 * Packages left out of the bundle and imported from node_modules at run
 * time (each is a dependency of @kcsim/harness, so it resolves from
 * bundle/): each finds files of its own next to its code, which a bundle
 * would not carry. msgpackr loads its native accelerator (msgpackr-extract)
 * with a require from its own directory; piscina starts its own worker file;
 * pino starts transport workers from files; BullMQ reads its Lua scripts
 * from its directory (and ioredis comes with it).
 */
const EXTERNAL = /^(msgpackr|piscina|pino|bullmq|ioredis)(\/|$)/;

/**
 * The CLI is one bundle with lazily loaded parts, not one file: its
 * commands load on demand (`--help` loads almost nothing), and the queue
 * side of hunting (BullMQ and ioredis, 0.4 s and more to load) only for
 * `--queue` and `kcsim worker`. Everything else goes into one chunk, so
 * `kcsim run` loads a handful of files. Every module still exists once, so
 * classes (the error types that decide an exit code) stay the same class.
 */
const CLI_MAIN = /[\\/]cli[\\/]main\.js$/;
const QUEUE_SIDE = /[\\/]hunt[\\/]queue[\\/]|[\\/]cli[\\/]queue-hunt\.js$|[\\/]cli[\\/]commands[\\/]worker\.js$/;
const CLI_CHUNKS = {
  groups: [
    // main.js stays alone in the entry file: it awaits its command, and a chunk that a command imports must not be waiting on it.
    { name: "cli-start", tags: ["$initial"], test: (id) => !CLI_MAIN.test(id), priority: 2 },
    { name: "kcsim", test: (id) => !CLI_MAIN.test(id) && !QUEUE_SIDE.test(id), priority: 1 },
  ],
};

function runTsc() {
  const tsc = spawnSync(process.execPath, [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-b"], {
    cwd: ROOT,
    stdio: ["ignore", 2, 2],
  });
  return tsc.status ?? 1;
}

/** The bundle is older than a package's tsc build, than this script or than the dependencies (or absent). */
function bundleIsStale() {
  const stamp = mtimeOf(STAMP);
  if (stamp === null || readStamp() === null) return true;
  const tscBuilds = tsPackages().map((name) => mtimeOf(join(PACKAGES, name, "dist", ".tsbuildinfo")) ?? Number.POSITIVE_INFINITY);
  const inputs = buildInputs().map((path) => mtimeOf(path) ?? 0);
  return Math.max(...tscBuilds, ...inputs) > stamp;
}

/** Writes the stamp: its content says when the build started, its mtime when the bundle it vouches for was made. */
function writeStamp(path, sourcesAsOf, bundledAt) {
  writeFileSync(path, `${JSON.stringify({ sourcesAsOf })}\n`);
  utimesSync(path, bundledAt / 1000, bundledAt / 1000);
}

async function bundle(sourcesAsOf) {
  const bundledAt = Date.now();
  const { build } = await import("rolldown");
  const { ENTRY_POINTS } = await import(pathToFileURL(join(HARNESS, "dist", "kernel", "built-module.js")).href);
  // Built beside the old bundle and swapped in at the end, so a kcsim already running keeps whole files.
  const next = `${BUNDLE}.next-${process.pid}`;
  rmSync(next, { recursive: true, force: true });
  const quiet = new Set(["INEFFECTIVE_DYNAMIC_IMPORT"]); // cli/fail.js is imported both ways on purpose: it stays in the shared chunk
  await build(
    Object.entries(ENTRY_POINTS).map(([name, path]) => ({
      input: { [name]: join(HARNESS, "dist", path) },
      platform: "node",
      external: EXTERNAL,
      onLog: (level, log, handler) => (quiet.has(log.code) ? undefined : handler(level, log)),
      output: {
        dir: next,
        format: "esm",
        entryFileNames: "[name].js",
        chunkFileNames: "[name]-[hash].js",
        codeSplitting: name === "cli" ? CLI_CHUNKS : false,
      },
    })),
  );
  writeStamp(join(next, ".built"), sourcesAsOf, bundledAt);
  const old = `${BUNDLE}.old-${process.pid}`;
  if (existsSync(BUNDLE)) renameSync(BUNDLE, old);
  renameSync(next, BUNDLE);
  rmSync(old, { recursive: true, force: true });
}

/** Builds what is out of date; returns the exit code (the compiler's when it fails). */
export async function buildWorkspace() {
  // A second before the start: a file saved during the last tick before the build may have an mtime just under it.
  const sourcesAsOf = Date.now() - 1000;
  const status = runTsc();
  if (status !== 0) return status;
  if (bundleIsStale()) await bundle(sourcesAsOf);
  else writeStamp(STAMP, sourcesAsOf, mtimeOf(STAMP));
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  process.exitCode = await buildWorkspace();
}
