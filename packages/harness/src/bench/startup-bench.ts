import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { Piscina } from "piscina";
import type { HuntRunResult, HuntTask } from "../hunt/hunt-task.js";
import { distModule, ENTRY_POINTS, entryPoint } from "../kernel/built-module.js";
import { kcsimCodeCacheFile } from "../run/code-cached-require.js";
import { loadScenarioFile } from "../scenario/load-scenario.js";
import { type BenchRow, type BenchSuite, median } from "./bench-suite.js";
import { runNodeChild } from "./child-cpu.js";
import { root } from "./kcsim-process.js";

const REPETITIONS = 3;
const RUN = ["run", "scenarios/m10-join.json"];

/** The median CPU time (ms) of a command run REPETITIONS times, each in a fresh process (`before` runs before each). */
async function commandCpuMs(args: readonly string[], before: () => void = () => {}): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < REPETITIONS; i++) {
    before();
    const run = await runNodeChild(args);
    if (run.code !== 0) throw new Error(`startup: node ${args.join(" ")} exited ${run.code}: ${run.stderr.trim()}`);
    if (run.cpuMs === null) throw new Error("startup: this system does not report child CPU time (/proc/self/stat)");
    times.push(run.cpuMs);
  }
  return median(times);
}

/**
 * What a hunt worker costs before it runs at full speed: a pool of one
 * worker runs seeds 1..5 of session-timeout (drawn faults); the warm-up is
 * the first seed's CPU time less the median of the next four (the process's
 * CPU: the main thread only waits). Loading one bundled file against the
 * ~650 modules of the tsc build.
 */
async function workerWarmUpMs(filename: string): Promise<{ warmUpMs: number; steadyMs: number }> {
  const base = loadScenarioFile(join(root, "scenarios", "session-timeout.json"));
  const pool = new Piscina<HuntTask, HuntRunResult>({ filename, minThreads: 1, maxThreads: 1, execArgv: [] });
  const cpu: number[] = [];
  try {
    for (let seed = 1; seed <= 5; seed++) {
      const before = process.cpuUsage();
      await pool.run({ base, seed, asWritten: false, protocol: null });
      const used = process.cpuUsage(before);
      cpu.push((used.user + used.system) / 1000);
    }
  } finally {
    await pool.destroy();
  }
  const steadyMs = median(cpu.slice(1));
  return { warmUpMs: (cpu[0] as number) - steadyMs, steadyMs };
}

/**
 * Start-up costs: `pnpm kcsim run scenarios/m10-join.json` end to end
 * (what `pnpm kcsim` runs: scripts/kcsim.mjs, its look at whether a build
 * is needed, then the bundled CLI; pnpm's own start is not counted),
 * against the same command on the tsc build; and a hunt worker's warm-up,
 * bundled against unbundled. Each command runs in fresh processes, median
 * of three; the CPU time is the whole process's, start to exit.
 */
export const startupBench: BenchSuite = {
  name: "startup",
  description: "CPU from process start to exit of `pnpm kcsim run scenarios/m10-join.json`, bundled vs tsc build; hunt worker warm-up",
  async run(): Promise<BenchRow[]> {
    // The first run after a build compiles the CLI and writes its code cache (run/code-cached-require.ts); later ones
    // read it. Only that command's cache goes before each such run (a child has no node flags and this environment).
    const runCache = kcsimCodeCacheFile(join(dirname(entryPoint("cli")), "cli.cjs"), RUN[0] as string, [], process.env);
    const firstAfterBuild = await commandCpuMs([join(root, "scripts", "kcsim.mjs"), ...RUN], () => rmSync(runCache, { force: true }));
    const bundled = await commandCpuMs([join(root, "scripts", "kcsim.mjs"), ...RUN]);
    const unbundled = await commandCpuMs([distModule(ENTRY_POINTS.cli), ...RUN]);
    const help = await commandCpuMs([join(root, "scripts", "kcsim.mjs"), "--help"]);
    const bare = await commandCpuMs(["-e", "0"]);
    await workerWarmUpMs(entryPoint("hunt-worker")); // writes the worker's code cache if it has none yet
    const worker = await workerWarmUpMs(entryPoint("hunt-worker"));
    const distWorker = await workerWarmUpMs(distModule(ENTRY_POINTS["hunt-worker"]));
    return [
      {
        suite: this.name,
        case: "`pnpm kcsim run scenarios/m10-join.json`, end to end",
        value: Math.round(bundled),
        unit: "ms CPU",
        note: `process start included (pnpm's own not), with the code cache; ${(bundled / unbundled).toFixed(2)}x the tsc build's ${Math.round(unbundled)} ms (same run); the first run after a build, which compiles and writes the cache: ${Math.round(firstAfterBuild)} ms`,
      },
      {
        suite: this.name,
        case: "`pnpm kcsim --help` / `node -e 0`",
        value: Math.round(help),
        unit: "ms CPU",
        note: `a bare Node process: ${Math.round(bare)} ms`,
      },
      {
        suite: this.name,
        case: "hunt worker warm-up: first seed's extra CPU",
        value: Math.round(worker.warmUpMs),
        unit: "ms CPU",
        note: `bundled, with its code cache; ${Math.round(distWorker.warmUpMs)} ms from the tsc build (same run); a warm session-timeout seed takes ${Math.round(worker.steadyMs)} ms`,
      },
    ];
  },
};
