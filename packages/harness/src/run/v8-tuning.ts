import { setFlagsFromString } from "node:v8";

/**
 * V8 settings for kcsim's own processes: the kcsim command and its worker
 * threads (which share their process's settings), and the benchmarks (the
 * compression bench puts them on its scenario-cpu children's command
 * lines). A library user's process keeps V8's defaults.
 *
 * Why: about half of a fresh process's CPU in a simulation goes to V8's
 * optimizing compiler, and about half of that compiles functions again
 * after a deoptimization (a cold chaos-consumer run, --trace-opt and
 * --trace-deopt: 222 functions optimized, 107 of them again). With V8's
 * defaults a function is optimized early, before a run has taken its later
 * paths ("insufficient type feedback" deoptimizations), and its callees are
 * inlined deeply, so each compile is large. Twice V8's interrupt budget
 * (optimize after twice the work) and half its cumulative inlining budget,
 * in valgrind instruction counts (--single-threaded): a cold m10-join run
 * -12%, 120 s of chaos-consumer -21% cold and -18% for its second run in
 * the process, a 300-member join storm -10%; the other side is the
 * steady-state inline ping-pong, +6% per message (less inlining). The
 * interrupt budget alone gives about half of the cold saving and costs the
 * ping-pong nothing. `pnpm bench compression` measures cold runs with and
 * without these settings.
 */
export const V8_TUNING: readonly string[] = ["--interrupt-budget=135168", "--max-inlined-bytecode-size-cumulative=460"];

/** Set this (to anything) and kcsim's commands run with V8's defaults (to compare). */
export const V8_DEFAULTS_ENV = "KCSIM_V8_DEFAULTS";

/** A flag's name as V8 reads it: without its value, and `_` for `-` (V8 takes either). */
const flagName = (flag: string): string => {
  const equals = flag.indexOf("=");
  return (equals < 0 ? flag : flag.slice(0, equals)).replaceAll("_", "-");
};

/** The tuning flags to set, given the process's own options: one the user set (node's arguments, NODE_OPTIONS) is theirs. */
export function v8TuningFlags(given: readonly string[]): string[] {
  const names = new Set(given.map(flagName));
  return V8_TUNING.filter((flag) => !names.has(flagName(flag)));
}

/** Applies V8_TUNING, unless KCSIM_V8_DEFAULTS is set; call before the simulation's code is loaded (tune-v8.ts). */
export function tuneV8(): void {
  if (process.env[V8_DEFAULTS_ENV] !== undefined) return;
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/).filter((option) => option !== "")];
  for (const flag of v8TuningFlags(given)) setFlagsFromString(flag);
}
