import { existsSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root: the nearest ancestor of this file holding pnpm-workspace.yaml. */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "pnpm-workspace.yaml"))) {
    const parent = dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
  return dir;
}

/** The directory the user ran the command from (pnpm runs scripts at the root and keeps the original in INIT_CWD). */
export function userCwd(): string {
  return process.env.INIT_CWD ?? process.cwd();
}

/** A path as the user can type it: relative to where they ran kcsim unless that climbs out of it. */
export function shownPath(path: string): string {
  const rel = relative(userCwd(), path);
  return rel === "" || rel.startsWith("..") ? path : rel;
}

export function resolveUserPath(path: string): string {
  return isAbsolute(path) ? path : resolve(userCwd(), path);
}

/** The scenario `kcsim run` runs when given none. */
export const DEFAULT_SCENARIO = "scenarios/ping-pong.json";
