#!/usr/bin/env node
// A hunt's seeds run in this thread, one after the other, by the hunt
// worker's own body (bundle/hunt-worker.cjs): what to measure a hunt's
// instructions with. A whole `kcsim hunt --workers 1` process has a worker
// thread and a main thread that polls it, and the same build counts up to
// 4% apart between runs that way; this loop repeats to within 1%.
//
//   node scripts/hunt-loop.mjs [--bundle DIR] [--costs] (SCENARIO | --swarm | --swarm-data | --swarm-migration) [SEEDS]
//
// runs 10 warm-up seeds (1000..1009), then SEEDS (as `kcsim hunt --seeds`
// reads them: A..B, a seed, or a list of both; default 1..100), each
// with a drawn fault schedule as `kcsim hunt SCENARIO` draws it (with
// --swarm, --swarm-data or --swarm-migration, each a whole system drawn from the seed, as `kcsim hunt`
// draws it then), and prints how many failed. DIR is a bundle directory (default
// packages/harness/bundle; compare two builds from copies of it side by
// side, see scripts/instructions.mjs). With --costs it first prints one JSON
// line per seed: the seed, the CPU milliseconds its run took in this
// thread (process.cpuUsage, so V8's helper threads count too), whether it
// failed, and the parameters the hunt drew for it (what a swarm seed's cost
// depends on). Example:
//   node scripts/instructions.mjs --kcsim-v8 scripts/hunt-loop.mjs scenarios/session-timeout.json 1..100
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { BUNDLE, HARNESS } from "./build-state.mjs";

const fail = (message) => {
  process.stderr.write(`hunt-loop: ${message}\n`);
  process.exit(2);
};

const USAGE = "usage: node scripts/hunt-loop.mjs [--bundle DIR] [--costs] (SCENARIO | --swarm | --swarm-data | --swarm-migration) [SEEDS]";
const args = process.argv.slice(2);
let bundle = BUNDLE;
let costs = false;
for (;;) {
  if (args[0] === "--bundle") {
    if (args[1] === undefined) fail("--bundle needs a directory");
    bundle = resolve(args[1]);
    args.splice(0, 2);
  } else if (args[0] === "--costs") {
    costs = true;
    args.shift();
  } else break;
}
const [scenarioPath, range = "1..100"] = args;
const SWARMS = { "--swarm": "group", "--swarm-data": "data", "--swarm-migration": "migration" };
if (scenarioPath === undefined || args.length > 2 || (scenarioPath.startsWith("--") && !(scenarioPath in SWARMS))) fail(USAGE);
const swarm = SWARMS[scenarioPath] ?? null;
const worker = join(bundle, "hunt-worker.cjs");
if (!existsSync(worker)) fail(`no hunt worker at ${worker} (run \`pnpm build\` first)`);
const loader = join(HARNESS, "dist", "index.js");
if (!existsSync(loader)) fail("packages/harness is not built (run `pnpm build` first)");

const { loadScenarioFile, ScenarioError } = await import(pathToFileURL(loader).href);
// The hunt's own reading of --seeds (not part of @kcsim/harness's public face).
const { parseSeedRanges, seedCount, seedsOf } = await import(pathToFileURL(join(HARNESS, "dist", "hunt", "seed-ranges.js")).href);
const seeds = parseSeedRanges(range);
if (typeof seeds === "string") fail(`seeds ${seeds}`);
let base = swarm;
try {
  if (swarm === null) base = loadScenarioFile(scenarioPath);
} catch (error) {
  if (error instanceof ScenarioError) fail(error.message);
  throw error;
}
const loaded = createRequire(import.meta.url)(worker);
const run = loaded.default ?? loaded;
const task = (seed) => ({ base, asWritten: false, protocol: null, seed });
try {
  for (let seed = 1000; seed < 1010; seed++) await run(task(seed));
} catch (error) {
  // A scenario the hunt cannot draw faults for (one without a cluster) says so at its first seed. The worker's
  // bundle has a ScenarioError class of its own, not the one imported above, so it is told by its name.
  if (error instanceof Error && error.name === "ScenarioError") fail(error.message);
  throw error;
}
let failed = 0;
for (const seed of seedsOf(seeds)) {
  const before = process.cpuUsage();
  const result = await run(task(seed));
  const cpu = process.cpuUsage(before);
  const failing = result.failures.length > 0;
  if (failing) failed++;
  if (costs) {
    const cpuMs = Math.round((cpu.user + cpu.system) / 100) / 10;
    console.log(JSON.stringify({ seed, cpuMs, failed: failing, parameters: result.parameters }));
  }
}
console.log(`${seedCount(seeds)} seeds of ${swarm === null ? scenarioPath : `the ${scenarioPath.slice(2)}`}, ${failed} failed`);
