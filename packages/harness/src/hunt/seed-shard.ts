/** `--shard I/N`: this hunt runs the I-th of N interleaved slices of its seed range (1-based). */
export interface Shard {
  readonly index: number;
  readonly count: number;
}

/**
 * The seeds of a hunt's sequence that belong to a shard: every N-th seed
 * starting at the I-th, so the N shards of one sequence are disjoint, cover
 * it whole, and each gets an even share of early and late seeds.
 */
export function* shardSeeds(seeds: Iterable<number>, shard: Shard): Generator<number> {
  let position = 0;
  for (const seed of seeds) {
    if (position % shard.count === shard.index - 1) yield seed;
    position++;
  }
}
