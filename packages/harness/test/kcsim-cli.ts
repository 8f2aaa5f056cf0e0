import { type SpawnSyncOptions, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const root = fileURLToPath(new URL("../../../", import.meta.url));
export const cli = join(root, "packages/harness/bundle/cli.js");

export interface CliOutcome {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the built CLI the way `pnpm kcsim` does (tests run after `tsc -b`). */
export function kcsim(args: readonly string[], options: SpawnSyncOptions = {}): CliOutcome {
  const out = spawnSync(process.execPath, [cli, ...args], {
    cwd: root,
    encoding: "utf8",
    ...options,
    env: { ...process.env, INIT_CWD: root, ...(options.env ?? {}) },
  });
  return { code: out.status, stdout: String(out.stdout), stderr: String(out.stderr) };
}

/** The scenario of a shipped file, as an object to change. */
export function shipped(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(root, "scenarios", `${name}.json`), "utf8")) as Record<string, unknown>;
}
