import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
// @ts-expect-error: a plain JavaScript build script (scripts/build-state.mjs), without type declarations
import { staleBecause } from "../../../scripts/build-state.mjs";

const check = staleBecause as (root: string) => string | null;

/** A workspace laid out as this one, its files written at `at` (ms since the epoch). */
function workspace(root: string, at: number): void {
  const files = [
    "package.json",
    "pnpm-lock.yaml",
    "tsconfig.json",
    "tsconfig.base.json",
    "scripts/build.mjs",
    "packages/harness/package.json",
    "packages/harness/tsconfig.json",
    "packages/harness/src/cli/main.ts",
    "packages/harness/dist/.tsbuildinfo",
    "packages/harness/bundle/cli.js",
    "packages/wire/package.json",
    "packages/wire/tsconfig.json",
    "packages/wire/src/index.ts",
    "packages/wire/dist/.tsbuildinfo",
  ];
  for (const file of files) {
    const path = join(root, file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, "");
  }
  writeFileSync(join(root, "packages/harness/bundle/.built"), `${JSON.stringify({ sourcesAsOf: at + 1000 })}\n`);
  for (const file of [...files, "packages/harness/src/cli", "packages/harness/src", "packages/wire/src"])
    utimesSync(join(root, file), at / 1000, at / 1000);
}

/** Sets a file's (or a directory's) mtime to `at`. */
const touch = (path: string, at: number) => utimesSync(path, at / 1000, at / 1000);

describe("pnpm kcsim's look at whether the build is up to date (scripts/build-state.mjs)", () => {
  const built = Date.now() - 60_000;
  let root = "";
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "kcsim-build-state-"));
    workspace(root, built);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("is up to date when nothing changed since the build started", () => {
    expect(check(root)).toBeNull();
  });

  it("rebuilds when a source of any package is newer than the build's start", () => {
    touch(join(root, "packages/wire/src/index.ts"), built + 5_000);
    expect(check(root)).toBe("packages/wire/src changed");
  });

  it("rebuilds when a source file was added or removed (its directory changed)", () => {
    touch(join(root, "packages/harness/src/cli"), built + 5_000);
    expect(check(root)).toBe("packages/harness/src changed");
  });

  it("rebuilds when the lockfile or a package's manifest changed", () => {
    touch(join(root, "pnpm-lock.yaml"), built + 5_000);
    expect(check(root)).toBe("pnpm-lock.yaml changed");
  });

  it("rebuilds when a package was never built or the bundle is missing", () => {
    rmSync(join(root, "packages/wire/dist/.tsbuildinfo"));
    expect(check(root)).toBe("packages/wire is not built");
    rmSync(join(root, "packages/harness/bundle/cli.js"));
    expect(check(root)).toBe("no bundle yet");
  });
});
