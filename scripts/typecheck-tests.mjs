#!/usr/bin/env node
// Type-checks every package's tests with its sources (packages/<name>/tsconfig.test.json:
// the package's strict settings, no output). `tsc -b` builds src only, and vitest
// strips types without checking them, so without this a test could call an API with
// the wrong shape and still run. `pnpm test` runs it after the build, before vitest.
//
// Usage: node scripts/typecheck-tests.mjs   (pnpm typecheck)
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { PACKAGES, TSC, tsPackages } from "./build-state.mjs";

let failed = 0;
for (const name of tsPackages()) {
  const config = join(PACKAGES, name, "tsconfig.test.json");
  if (!existsSync(config)) continue;
  const run = spawnSync(process.execPath, [TSC, "-p", config], { stdio: ["ignore", "inherit", "inherit"] });
  if (run.status !== 0) {
    failed++;
    console.error(`typecheck: packages/${name}'s tests do not type-check (tsc -p packages/${name}/tsconfig.test.json)`);
  }
}
process.exit(failed === 0 ? 0 : 1);
