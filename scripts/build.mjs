#!/usr/bin/env node
// Builds the workspace in two steps:
//   1. `tsc -b`: each package's dist/, one ES module per source file (the
//      library that other code imports: @kcsim/harness and the rest);
//   2. esbuild: packages/harness/bundle/, the CLI and every worker entry
//      (ENTRY_POINTS in packages/harness/src/kernel/built-module.ts) bundled
//      from dist/, so that a process or a worker thread loads one file instead
//      of some 650 modules (`pnpm bench startup` measures what that saves).
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
import { BUNDLE, buildInputs, HARNESS, mtimeOf, PACKAGES, ROOT, readStamp, STAMP, TSC, tsPackages } from "./build-state.mjs";

/**
 * Packages left out of the bundle and imported from node_modules at run
 * time (each is a dependency of @kcsim/harness, so it resolves from
 * bundle/): each finds files of its own next to its code, which a bundle
 * would not carry. @node-rs/crc32 (for @kcsim/wire's CRC-32C) and msgpackr
 * load native code with a require from their own directory; piscina starts its own worker file;
 * pino starts transport workers from files; BullMQ reads its Lua scripts
 * from its directory (and ioredis comes with it); kafkajs is required on
 * demand, only by runs that simulate a KafkaJS client.
 */
const EXTERNAL = ["@node-rs/crc32", "msgpackr", "piscina", "pino", "bullmq", "ioredis", "kafkajs"];

/**
 * Bundled CommonJS dependencies call `require` for Node's own modules; an
 * ES module has none, so each bundle file makes one for itself.
 */
const REQUIRE_SHIM =
  'import { createRequire as __kcsimCreateRequire } from "node:module"; const require = __kcsimCreateRequire(import.meta.url);';

/**
 * What every bundle shares: ES modules for Node 20, from the tsc build's
 * JavaScript. CommonJS's `__filename` and `__dirname` become the bundle
 * file's own (write-file-atomic names its temporary files from
 * `__filename`); no bundled package reads files beside its code.
 */
const COMMON = {
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  external: EXTERNAL,
  banner: { js: REQUIRE_SHIM },
  define: { __filename: "import.meta.filename", __dirname: "import.meta.dirname" },
  logLevel: "warning",
};

/**
 * The CLI, the hunt worker and the lockstep and realtime workers once more,
 * each as one CommonJS file (bundle/cli.cjs, bundle/hunt-worker.cjs,
 * bundle/lockstep-worker.cjs, bundle/realtime-worker.cjs) that cli.js and
 * the worker entries load with V8's code cache
 * (src/run/code-cached-require.ts): Node 20 has a code cache for scripts,
 * not for ES modules. The CLI's commands are still
 * loaded on demand: esbuild keeps each module's body in a function that
 * runs at its first require. `import.meta` becomes the file's own.
 */
const COMMONJS = {
  ...COMMON,
  format: "cjs",
  banner: { js: 'var __kcsimImportMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
  define: { "import.meta.url": "__kcsimImportMetaUrl", "import.meta.filename": "__filename", "import.meta.dirname": "__dirname" },
};

/** The CommonJS files: each one's module in the harness's dist/, and its name in the bundle. */
const CODE_CACHED = [
  ["cli/cli.js", "cli.cjs"],
  ["hunt/hunt-worker.js", "hunt-worker.cjs"],
  ["hosts/lockstep/shard-worker.js", "lockstep-worker.cjs"],
  ["hosts/realtime/shard-worker.js", "realtime-worker.cjs"],
];

function runTsc() {
  const tsc = spawnSync(process.execPath, [TSC, "-b"], {
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

/**
 * Two esbuild builds into one fresh directory. The CLI is split: its
 * commands load on demand (`--help` loads almost nothing), and the queue
 * side of hunting (BullMQ and ioredis, 0.4 s and more to load) only for
 * `--queue` and `kcsim worker`; code that several commands share goes into
 * shared chunks, so every module still exists once and classes (the error
 * types that decide an exit code) stay the same class. Every other entry
 * (the workers, the benchmarks) is one self-contained file.
 */
async function bundle(sourcesAsOf) {
  const bundledAt = Date.now();
  const { build } = await import("esbuild");
  const { ENTRY_POINTS } = await import(pathToFileURL(join(HARNESS, "dist", "kernel", "built-module.js")).href);
  // Built beside the old bundle and swapped in at the end, so a kcsim starting meanwhile never sees half a bundle.
  const next = `${BUNDLE}.next-${process.pid}`;
  rmSync(next, { recursive: true, force: true });
  const entries = (names) => Object.fromEntries(names.map((name) => [name, join(HARNESS, "dist", ENTRY_POINTS[name])]));
  const names = Object.keys(ENTRY_POINTS);
  await build({ ...COMMON, entryPoints: entries(["cli"]), outdir: next, splitting: true, chunkNames: "[name]-[hash]" });
  await build({ ...COMMON, entryPoints: entries(names.filter((name) => name !== "cli")), outdir: next });
  for (const [module, file] of CODE_CACHED)
    await build({ ...COMMONJS, entryPoints: [join(HARNESS, "dist", module)], outfile: join(next, file) });
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
