import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const example = join(root, "examples/use-from-tests");
const EXAMPLE_TEST = "billing-group.test.ts";

/** The README's example (the ```ts block of its "Use it from your tests" section). */
function readmeExample(): string {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const section = readme.split(/^## /m).find((s) => s.startsWith("Use it from your tests")) ?? "";
  const block = /```ts\n([\s\S]*?)```/.exec(section);
  return block?.[1] ?? "";
}

/**
 * The README's "Use it from your tests" example is a project of its own
 * (examples/use-from-tests) that depends on @kcsim/harness like any user's
 * project: it type-checks against the built package's declarations and its
 * vitest suite passes against the built package (no source condition).
 */
describe("the README's library example", () => {
  it("is the example project's test, word for word", () => {
    expect(readmeExample()).toBe(readFileSync(join(example, EXAMPLE_TEST), "utf8"));
  });

  it("type-checks and passes its own vitest run against the built @kcsim/harness", () => {
    const env = { ...process.env, NO_COLOR: "1" };
    const tsc = spawnSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], {
      cwd: example,
      encoding: "utf8",
      env,
    });
    expect(tsc.status, tsc.stdout + tsc.stderr).toBe(0);
    const vitest = spawnSync(process.execPath, [join(example, "node_modules/vitest/vitest.mjs"), "run"], {
      cwd: example,
      encoding: "utf8",
      env,
    });
    expect(vitest.status, vitest.stdout + vitest.stderr).toBe(0);
    expect(vitest.stdout).toMatch(/Tests\s+2 passed \(2\)/);
  }, 240_000);
});
