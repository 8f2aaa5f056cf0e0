import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The files a process or a worker thread starts from, by name, as paths
 * inside this package's tsc build (`dist/`). `pnpm build` also bundles each
 * of them into `bundle/<name>.js` (scripts/build.mjs reads this table):
 * one file instead of some 650 ES modules, which a process or a worker
 * loads in a fraction of the CPU time.
 */
export const ENTRY_POINTS = {
  cli: "cli/launch.js",
  bench: "bench/main.js",
  "scenario-cpu": "bench/scenario-cpu.js",
  "lockstep-worker": "hosts/lockstep/worker-entry.js",
  "realtime-worker": "hosts/realtime/worker-entry.js",
  "hunt-worker": "hunt/hunt-worker-entry.js",
  "fuzz-worker": "fuzz/fuzz-worker.js",
  "pipeline-worker": "bench/pipeline-worker.js",
} as const;

export type EntryPointName = keyof typeof ENTRY_POINTS;

/**
 * The bundle's directory inside this package, and the file its build writes
 * last: its mtime is when the bundle step started (after tsc), its content
 * when the whole build started (scripts/build.mjs).
 */
export const BUNDLE_DIR = "bundle";
export const BUNDLE_STAMP = ".built";

/** Where this module runs from: the bundle (all code in `bundle/`), or one module per file (`dist/` or, under vitest, `src/`). */
const here = dirname(fileURLToPath(import.meta.url));
const inBundle = basename(here) === BUNDLE_DIR;
/** This package's root directory. */
const packageRoot = inBundle ? dirname(here) : resolve(here, "../..");

/** A module of this package's tsc build, by its path inside `dist/` (actor registries that workers import, for one). */
export function distModule(path: string): string {
  const file = join(packageRoot, "dist", path);
  if (!existsSync(file)) throw new Error(`cannot find ${file}; run \`pnpm build\` first`);
  return file;
}

/**
 * The file a worker or a child process starts from. Code running from the
 * bundle starts the bundle's entries (built with it, from the same code).
 * Code running from `dist/` or `src/` (the library, the tests) starts them
 * too when the bundle is at least as new as the tsc build of every package,
 * and the tsc build's modules otherwise (a `tsc -b` without the bundle
 * step must not pair new code with old workers).
 */
export function entryPoint(name: EntryPointName): string {
  const bundled = join(packageRoot, BUNDLE_DIR, `${name}.js`);
  if (inBundle) {
    if (!existsSync(bundled)) throw new Error(`cannot find ${bundled}; run \`pnpm build\` first`);
    return bundled;
  }
  return bundleIsFresh() && existsSync(bundled) ? bundled : distModule(ENTRY_POINTS[name]);
}

/** The bundle was built after the last tsc build of every package of the workspace (each writes dist/.tsbuildinfo). */
function bundleIsFresh(): boolean {
  const stamp = mtimeOf(join(packageRoot, BUNDLE_DIR, BUNDLE_STAMP));
  if (stamp === null) return false;
  const packages = dirname(packageRoot);
  for (const pkg of readdirSync(packages)) {
    if (!existsSync(join(packages, pkg, "tsconfig.json"))) continue;
    const built = mtimeOf(join(packages, pkg, "dist", ".tsbuildinfo"));
    if (built === null || built > stamp) return false;
  }
  return true;
}

function mtimeOf(path: string): number | null {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return null;
  }
}
