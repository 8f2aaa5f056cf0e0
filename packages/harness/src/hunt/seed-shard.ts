/** `--shard I/N`: this hunt runs the I-th of N interleaved slices of its seed range (1-based). */
export interface Shard {
  readonly index: number;
  readonly count: number;
}

/**
 * The seeds of `from..to` that belong to a shard: every N-th seed starting
 * at the I-th, so the N shards of one range are disjoint, cover it whole,
 * and each gets an even share of early and late seeds. No shard: the whole range.
 */
export function shardSeeds(from: number, to: number, shard: Shard | null): number[] {
  const seeds: number[] = [];
  const step = shard?.count ?? 1;
  for (let seed = from + (shard === null ? 0 : shard.index - 1); seed <= to; seed += step) seeds.push(seed);
  return seeds;
}
