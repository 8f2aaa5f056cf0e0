import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { entryPoint } from "../kernel/built-module.js";
import { V8_DEFAULTS_ENV, V8_TUNING_KIND_ENV, type V8TuningKind, v8TuningOf } from "../run/v8-tuning.js";
import { root } from "./kcsim-process.js";
import type { ScenarioCpu } from "./scenario-cpu.js";

/** A child process run to its end: its output and the CPU time it used, start to exit, every thread. */
export interface ChildRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Null where the system does not say (it is read from Linux's /proc). */
  readonly cpuMs: number | null;
}

/**
 * CPU time of this process's waited-for children so far (Linux: fields
 * cutime and cstime of /proc/self/stat, in clock ticks of 10 ms), or null
 * elsewhere. A child's time is added once it has exited and been reaped,
 * so the difference around one child's run is that child's whole CPU time,
 * process start and exit included.
 */
function childrenCpuMs(): number | null {
  let stat: string;
  try {
    stat = readFileSync("/proc/self/stat", "utf8");
  } catch {
    return null;
  }
  // The fields after the command name (which may hold spaces) start at state, field 3; cutime and cstime are fields 16 and 17.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[13]) + Number(fields[14]);
  return Number.isFinite(ticks) ? ticks * 10 : null;
}

/**
 * Runs `node ARGS` from the repository root to its end, one child at a time (its CPU time would mix with another's),
 * in this process's environment with `env` over it (a variable set to undefined is left out).
 */
export async function runNodeChild(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<ChildRun> {
  const before = childrenCpuMs();
  const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, INIT_CWD: root, ...env } });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.once("close", (exitCode) => resolve(exitCode)));
  const after = childrenCpuMs();
  return { code, stdout, stderr, cpuMs: before === null || after === null ? null : after - before };
}

/**
 * One run of bench/scenario-cpu.ts in a fresh process, with kcsim's V8 settings of `v8` (a one-run or many-runs
 * process's) on node's command line, or V8's defaults; what it printed. Its environment says which (as tuneV8 would
 * in a kcsim command), so the code caches of its workers are named after the settings they run under.
 */
export async function runScenarioCpu(v8: V8TuningKind | "defaults", args: readonly string[], what: string): Promise<ScenarioCpu> {
  const flags = v8 === "defaults" ? [] : v8TuningOf(v8);
  const env =
    v8 === "defaults"
      ? { [V8_DEFAULTS_ENV]: "1", [V8_TUNING_KIND_ENV]: undefined }
      : { [V8_DEFAULTS_ENV]: undefined, [V8_TUNING_KIND_ENV]: v8 };
  const run = await runNodeChild([...flags, entryPoint("scenario-cpu"), ...args], env);
  const line = run.stdout.trim().split("\n").pop() ?? "";
  if (run.code !== 0 || !line.startsWith("{")) throw new Error(`${what} failed (exit ${run.code}): ${run.stderr.trim()}`);
  return JSON.parse(line) as ScenarioCpu;
}
