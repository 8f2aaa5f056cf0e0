#!/usr/bin/env node
// `pnpm kcsim ...`: builds first only when a source changed since the last
// build (a look at file times: a few milliseconds, where `tsc -b` alone takes
// a second or more of CPU even with nothing to do), then runs the bundled
// CLI in this same process, so one Node start serves both.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { BUNDLE, ROOT, staleBecause } from "./build-state.mjs";

const stale = staleBecause();
if (stale !== null) {
  process.stderr.write(`kcsim: building first (${stale})\n`);
  const build = spawnSync(process.execPath, [join(ROOT, "scripts", "build.mjs")], { stdio: ["ignore", 2, 2] });
  if (build.status !== 0) {
    process.stderr.write("kcsim: the build failed (the compiler's messages are above)\n");
    process.exit(3);
  }
}
await import(pathToFileURL(join(BUNDLE, "cli.js")).href);
