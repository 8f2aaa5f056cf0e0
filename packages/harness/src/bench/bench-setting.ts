/** A benchmark setting from the environment that is not what it must be: whoever runs the bench prints its message as one line, after its own name. */
export class BenchSettingError extends Error {}

export interface BenchCountOptions {
  /** The least value allowed (default 1; 0 for a seed, which may be 0). */
  readonly min?: 0 | 1;
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * A count a benchmark reads from the environment (KCSIM_HUNT_BENCH_SEEDS,
 * KCSIM_SWEEP_SEEDS, ...): `fallback` when the variable is unset or empty,
 * else a whole number from `min` up, or a BenchSettingError naming the
 * variable and what it holds. Read when a suite runs, not when its module
 * loads, so a bad setting of one suite stops only that suite, with one line.
 */
export function benchCount(name: string, fallback: number, options: BenchCountOptions = {}): number {
  const env = options.env ?? process.env;
  const min = options.min ?? 1;
  const text = env[name]?.trim() ?? "";
  if (text === "") return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < min)
    throw new BenchSettingError(`${name}=${JSON.stringify(env[name])}: expected a whole number from ${min} up`);
  return value;
}

/** A date a benchmark reads from the environment (KCSIM_SWEEP_UNTIL): undefined when unset or empty, else a time Date.parse reads. */
export function benchDeadline(name: string, env: NodeJS.ProcessEnv = process.env): number | undefined {
  const text = env[name]?.trim() ?? "";
  if (text === "") return undefined;
  const time = Date.parse(text);
  if (Number.isNaN(time)) throw new BenchSettingError(`${name}=${JSON.stringify(env[name])}: expected a date and time (ISO 8601)`);
  return time;
}
