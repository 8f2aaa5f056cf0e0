#!/usr/bin/env node
// Instruction counts, the measure docs/performance.md compares
// builds by: CPU times on this project's shared 2-core machine swing by tens
// of percent within an hour, instruction counts by well under one percent
// between runs under the same load (a long run counts a few percent more
// beside other valgrind runs: compare builds run side by side).
//
//   node scripts/instructions.mjs [--kcsim-v8 | --kcsim-v8-one-run] SCRIPT [ARGS...]
//
// runs `node --single-threaded SCRIPT ARGS` under valgrind's callgrind (every
// thread's instructions: V8 compiles and collects garbage on the main thread
// with --single-threaded, so the count does not depend on how the background
// threads were scheduled) and prints the total. --kcsim-v8 adds kcsim's V8
// settings for a process that runs many seeds (V8_TUNING in
// packages/harness/src/run/v8-tuning.ts: `kcsim hunt` and its workers),
// --kcsim-v8-one-run those of `kcsim run`, `replay` and `compare`
// (V8_TUNING_ONE_RUN); the kcsim command sets them for itself, but a bench
// child such as bundle/scenario-cpu.js does not.
// Needs Debian's valgrind (`apt-get install valgrind`) and a build.
// To compare two builds, run them from places alike: a copy of the bundle
// elsewhere with a node_modules link counts about 90 million instructions
// more per process than the same build in place (m10-join: 3,525 against
// 3,436 million), so copy both builds, or measure one, rebuild, measure.
// Examples:
//   node scripts/instructions.mjs --kcsim-v8-one-run packages/harness/bundle/scenario-cpu.js scenarios/chaos-consumer.json   (a cold run)
//   node scripts/instructions.mjs --kcsim-v8 scripts/hunt-loop.mjs scenarios/session-timeout.json 1..100   (a hunt, in one thread)
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { HARNESS } from "./build-state.mjs";

const fail = (message) => {
  process.stderr.write(`instructions: ${message}\n`);
  process.exit(2);
};

const args = process.argv.slice(2);
const tuningName = { "--kcsim-v8": "V8_TUNING", "--kcsim-v8-one-run": "V8_TUNING_ONE_RUN" }[args[0]];
const command = tuningName !== undefined ? args.slice(1) : args;
if (command.length === 0 || command[0].startsWith("-"))
  fail("usage: node scripts/instructions.mjs [--kcsim-v8 | --kcsim-v8-one-run] SCRIPT [ARGS...]");
if (!existsSync(command[0])) fail(`no such script: ${command[0]} (run \`pnpm build\` first for the bundle's)`);
if (spawnSync("valgrind", ["--version"]).error !== undefined) fail("valgrind is not installed (Debian: apt-get install valgrind)");

let flags = [];
if (tuningName !== undefined) {
  const tuning = join(HARNESS, "dist", "run", "v8-tuning.js");
  if (!existsSync(tuning)) fail("packages/harness is not built (run `pnpm build` first)");
  flags = [...(await import(pathToFileURL(tuning).href))[tuningName]];
}

const dir = mkdtempSync(join(tmpdir(), "kcsim-instructions-"));
try {
  const run = spawnSync(
    "valgrind",
    ["--tool=callgrind", `--callgrind-out-file=${join(dir, "callgrind.%p")}`, process.execPath, "--single-threaded", ...flags, ...command],
    { stdio: ["ignore", "ignore", "pipe"], maxBuffer: 64 * 1024 * 1024 },
  );
  const log = run.stderr.toString();
  // Callgrind's summary line, printed once per process: "==PID== Collected : N".
  const counts = [...log.matchAll(/Collected : (\d+)/g)].map((match) => Number(match[1]));
  if (counts.length === 0)
    fail(`valgrind counted nothing (exit ${run.status}); its last lines:\n${log.trim().split("\n").slice(-5).join("\n")}`);
  const total = counts.reduce((sum, count) => sum + count, 0);
  process.stdout.write(`${total.toLocaleString("en-US")} instructions${run.status === 0 ? "" : ` (the command exited ${run.status})`}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
