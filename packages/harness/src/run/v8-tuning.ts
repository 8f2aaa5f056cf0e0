import { setFlagsFromString } from "node:v8";

/**
 * V8 settings for kcsim's own processes: the kcsim command and its worker
 * threads (which share their process's settings), and the benchmarks (the
 * compression bench puts them on its scenario-cpu children's command
 * lines). A library user's process keeps V8's defaults. There are two: one
 * for a process that runs many seeds or runs long (a hunt and its workers,
 * the shrinker, serve), one for a process that runs a scenario once (`kcsim
 * run`, `replay`, `compare`), whose CPU goes largely to compiling.
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

/**
 * The settings of a process that runs one scenario once (ONE_RUN_COMMANDS):
 * V8's own interrupt budget, a quarter of its cumulative inlining budget,
 * and four of TurboFan's optional passes off, so that each function is
 * compiled sooner and smaller. A cold run is mostly compiling, and these
 * take 9.0% off the instructions of a cold chaos-consumer run, 6.8% off
 * m10-join's (valgrind, --single-threaded, against V8_TUNING); a hunt,
 * whose workers run thousands of seeds of the same code, would lose by
 * them (the inlining budget and the passes alone: +0.8% over 60 seeds of
 * session-timeout), so it keeps V8_TUNING.
 */
export const V8_TUNING_ONE_RUN: readonly string[] = [
  "--max-inlined-bytecode-size-cumulative=230",
  "--no-turbo-loop-peeling",
  "--no-turbo-inline-array-builtins",
  "--no-turbo-escape",
  "--no-turbo-store-elimination",
];

/** The commands whose process runs a scenario once (each of `compare`'s protocols once): V8_TUNING_ONE_RUN. */
export const ONE_RUN_COMMANDS: ReadonlySet<string> = new Set(["run", "replay", "compare"]);

/** Which settings a kcsim command's process gets. */
export type V8TuningKind = "one-run" | "many-runs";

export function v8TuningKindOf(command: string | undefined): V8TuningKind {
  return command !== undefined && ONE_RUN_COMMANDS.has(command) ? "one-run" : "many-runs";
}

export function v8TuningOf(kind: V8TuningKind): readonly string[] {
  return kind === "one-run" ? V8_TUNING_ONE_RUN : V8_TUNING;
}

/**
 * Where tuneV8 leaves the kind it applied, for the names of the code caches
 * of the process's worker threads, which share its V8 settings and its
 * environment (run/code-cached-require.ts).
 */
export const V8_TUNING_KIND_ENV = "KCSIM_V8_TUNING";

/** Set this (to anything) and kcsim's commands run with V8's defaults (to compare). */
export const V8_DEFAULTS_ENV = "KCSIM_V8_DEFAULTS";

/** A flag's name as V8 reads it: without its value or a boolean's `no-`, and `_` for `-` (V8 takes either). */
export const v8FlagName = (flag: string): string => {
  const equals = flag.indexOf("=");
  const name = (equals < 0 ? flag : flag.slice(0, equals)).replaceAll("_", "-");
  return name.startsWith("--no-") ? `--${name.slice(5)}` : name;
};

/** The tuning flags to set, given the process's own options: one the user set (node's arguments, NODE_OPTIONS) is theirs. */
export function v8TuningFlags(given: readonly string[], tuning: readonly string[] = V8_TUNING): string[] {
  const names = new Set(given.map(v8FlagName));
  return tuning.filter((flag) => !names.has(v8FlagName(flag)));
}

/**
 * Applies the settings for `command` (V8_TUNING_ONE_RUN or V8_TUNING), unless KCSIM_V8_DEFAULTS is set, and
 * records which in KCSIM_V8_TUNING; call before the simulation's code is loaded (tune-v8.ts).
 */
export function tuneV8(command: string | undefined): void {
  if (process.env[V8_DEFAULTS_ENV] !== undefined) return;
  const kind = v8TuningKindOf(command);
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/).filter((option) => option !== "")];
  for (const flag of v8TuningFlags(given, v8TuningOf(kind))) setFlagsFromString(flag);
  process.env[V8_TUNING_KIND_ENV] = kind;
}
