// Whether the workspace's build is up to date, from file times alone (no
// compiler, no bundler): `pnpm kcsim` asks this before every command and
// builds only when a source changed since the last build (scripts/build.mjs).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
export const PACKAGES = join(ROOT, "packages");
export const HARNESS = join(PACKAGES, "harness");
/** The bundle and its stamp: keep in step with BUNDLE_DIR and BUNDLE_STAMP in packages/harness/src/kernel/built-module.ts. */
export const BUNDLE = join(HARNESS, "bundle");
export const STAMP = join(BUNDLE, ".built");
/** The workspace's TypeScript compiler, run with node (scripts/build.mjs, scripts/typecheck-tests.mjs). */
export const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");

/** The workspace's TypeScript packages (those with a tsconfig.json). */
export function tsPackages(packages = PACKAGES) {
  return readdirSync(packages).filter((name) => existsSync(join(packages, name, "tsconfig.json")));
}

/** Files that change what a build makes besides the packages' sources: compiler settings, dependencies, the build itself. */
export function buildInputs(root = ROOT) {
  const packages = join(root, "packages");
  return [
    join(root, "package.json"),
    join(root, "pnpm-lock.yaml"),
    join(root, "tsconfig.json"),
    join(root, "tsconfig.base.json"),
    join(root, "scripts", "build.mjs"),
    ...tsPackages(packages).flatMap((name) => [join(packages, name, "package.json"), join(packages, name, "tsconfig.json")]),
  ];
}

export function mtimeOf(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return null;
  }
}

/** The newest mtime in a directory tree, directories included (a deleted file changes its directory's). */
function newestIn(dir) {
  let newest = mtimeOf(dir) ?? 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestIn(path) : (mtimeOf(path) ?? 0));
  }
  return newest;
}

/** What the last build wrote into its stamp: when it started (every source older than that was in it). */
export function readStamp(path = STAMP) {
  try {
    const stamp = JSON.parse(readFileSync(path, "utf8"));
    return typeof stamp.sourcesAsOf === "number" ? stamp : null;
  } catch {
    return null;
  }
}

/**
 * Null when the last build is up to date, else why not (one short phrase):
 * the bundle or a package's tsc build is missing, or a source or a build
 * input is newer than the start of the last build.
 */
export function staleBecause(root = ROOT) {
  const packages = join(root, "packages");
  const bundle = join(packages, "harness", "bundle");
  const stamp = readStamp(join(bundle, ".built"));
  if (stamp === null || !existsSync(join(bundle, "cli.js"))) return "no bundle yet";
  for (const name of tsPackages(packages)) {
    if (!existsSync(join(packages, name, "dist", ".tsbuildinfo"))) return `packages/${name} is not built`;
    if (newestIn(join(packages, name, "src")) > stamp.sourcesAsOf) return `packages/${name}/src changed`;
  }
  const changed = buildInputs(root).find((path) => (mtimeOf(path) ?? 0) > stamp.sourcesAsOf);
  return changed === undefined ? null : `${relative(root, changed)} changed`;
}
