import { MAX_SEED } from "../scenario/limits.js";

/** An inclusive run of seeds. */
export interface SeedRange {
  readonly from: number;
  readonly to: number;
}

/**
 * Parses `--seeds`: a seed, a range `A..B`, or a comma-separated list of
 * both (`86,89..3000`, what an interrupted hunt prints to resume). Returns
 * the ranges, or a one-line reason. Every seed is a safe integer.
 */
export function parseSeedRanges(text: string): readonly SeedRange[] | string {
  const ranges: SeedRange[] = [];
  for (const part of text.split(",")) {
    const match = /^(\d+)(?:\.\.(\d+))?$/.exec(part.trim());
    if (match === null) return `must be A..B, a single seed, or a comma-separated list of them, got '${text}'`;
    const from = Number(match[1]);
    const to = match[2] === undefined ? from : Number(match[2]);
    for (const [digits, value] of [
      [match[1], from],
      [match[2], to],
    ] as const) {
      if (digits !== undefined && (!Number.isSafeInteger(value) || value > MAX_SEED))
        return `${digits}: a seed must be an integer from 0 to ${MAX_SEED}`;
    }
    if (to < from) return `${part}: the range ends before it starts`;
    ranges.push({ from, to });
  }
  return ranges;
}

/** How many seeds the ranges hold (counting a seed in two ranges twice, as a hunt runs it twice). */
export function seedCount(ranges: readonly SeedRange[]): number {
  return ranges.reduce((n, r) => n + (r.to - r.from + 1), 0);
}

/** The seeds in order. */
export function* seedsOf(ranges: readonly SeedRange[]): Generator<number> {
  for (const range of ranges) for (let seed = range.from; seed <= range.to; seed++) yield seed;
}

/** The seeds of `ranges` that are not in `done`, as ranges (without listing millions of seeds one by one). */
export function seedsLeft(ranges: readonly SeedRange[], done: ReadonlySet<number>): SeedRange[] {
  const finished = [...done].sort((a, b) => a - b);
  const left: SeedRange[] = [];
  for (const range of ranges) {
    let from = range.from;
    for (const seed of finished) {
      if (seed < from || seed > range.to) continue;
      if (seed > from) left.push({ from, to: seed - 1 });
      from = seed + 1;
    }
    if (from <= range.to) left.push({ from, to: range.to });
  }
  return left;
}

/** Ascending seeds as ranges of consecutive seeds. */
export function rangesOf(seeds: readonly number[]): SeedRange[] {
  const ranges: SeedRange[] = [];
  for (const seed of seeds) {
    const last = ranges[ranges.length - 1];
    if (last !== undefined && seed === last.to + 1) ranges[ranges.length - 1] = { from: last.from, to: seed };
    else ranges.push({ from: seed, to: seed });
  }
  return ranges;
}

/** `86,89..3000`: the form parseSeedRanges reads. */
export function formatSeedRanges(ranges: readonly SeedRange[]): string {
  return ranges.map((r) => (r.from === r.to ? String(r.from) : `${r.from}..${r.to}`)).join(",");
}
