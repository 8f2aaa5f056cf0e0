// Whether the workspace's build is up to date, from file times alone (no
// compiler, no bundler): `pnpm kcsim` asks this before every command and
// builds only when a source changed since the last build (scripts/build.mjs).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
export const PACKAGES = join(ROOT, "packages");
export const HARNESS = join(PACKAGES, "harness");
/** The bundle and its stamp: keep in step with BUNDLE_DIR and BUNDLE_STAMP in packages/harness/src/kernel/built-module.ts. */
export const BUNDLE = join(HARNESS, "bundle");
export const STAMP = join(BUNDLE, ".built");

/** The workspace's TypeScript packages (those with a tsconfig.json). */
export function tsPackages() {
  return readdirSync(PACKAGES).filter((name) => existsSync(join(PACKAGES, name, "tsconfig.json")));
}

/** Files that change what a build makes besides the packages' sources: compiler settings, dependencies, the build itself. */
export function buildInputs() {
  return [
    join(ROOT, "package.json"),
    join(ROOT, "pnpm-lock.yaml"),
    join(ROOT, "tsconfig.json"),
    join(ROOT, "tsconfig.base.json"),
    join(ROOT, "scripts", "build.mjs"),
    ...tsPackages().flatMap((name) => [join(PACKAGES, name, "package.json"), join(PACKAGES, name, "tsconfig.json")]),
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
export function readStamp() {
  try {
    const stamp = JSON.parse(readFileSync(STAMP, "utf8"));
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
export function staleBecause() {
  const stamp = readStamp();
  if (stamp === null || !existsSync(join(BUNDLE, "cli.js"))) return "no bundle yet";
  for (const name of tsPackages()) {
    if (!existsSync(join(PACKAGES, name, "dist", ".tsbuildinfo"))) return `packages/${name} is not built`;
    if (newestIn(join(PACKAGES, name, "src")) > stamp.sourcesAsOf) return `packages/${name}/src changed`;
  }
  const changed = buildInputs().find((path) => (mtimeOf(path) ?? 0) > stamp.sourcesAsOf);
  return changed === undefined ? null : `${changed.slice(ROOT.length + 1)} changed`;
}
