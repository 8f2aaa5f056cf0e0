/** One measured number of a benchmark, as the README table shows it. */
export interface BenchRow {
  readonly suite: string;
  readonly case: string;
  readonly value: number;
  readonly unit: string;
  /** Extra context: inputs, ratios measured in the same run. */
  readonly note: string;
}

export interface BenchSuite {
  readonly name: string;
  readonly description: string;
  run(): Promise<BenchRow[]>;
}

/** The median of a few timed repetitions (ms), after warm-up runs. */
export function medianMs(repetitions: number, warmup: number, body: () => void): number {
  for (let i = 0; i < warmup; i++) body();
  const times: number[] = [];
  for (let i = 0; i < repetitions; i++) {
    const start = performance.now();
    body();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] as number;
}

/** The median of some numbers (the lower middle one of an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] as number;
}

/** Measurements of rounds of one run: their median, and how far they went. */
export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

export function spreadOf(values: readonly number[]): Spread {
  if (values.length === 0) throw new Error("a spread of no measurements");
  return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
}

/**
 * Runs `a` and `b` one after the other, `a` first in even rounds and `b`
 * first in odd ones, so a machine that speeds up or slows down over the
 * rounds favours neither; their results, `a`'s first.
 */
export async function inTurn<A, B>(round: number, a: () => Promise<A>, b: () => Promise<B>): Promise<[A, B]> {
  if (round % 2 === 0) {
    const first = await a();
    return [first, await b()];
  }
  const first = await b();
  return [await a(), first];
}

export const round = (value: number, digits = 2): number => Number(value.toPrecision(digits + 2));
