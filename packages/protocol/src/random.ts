import { uniformFloat64 } from "pure-rand/distribution/uniformFloat64";
import { xoroshiro128plusFromState } from "pure-rand/generator/xoroshiro128plus";

/** A source of uniform floats in [0, 1): `ctx.random` or `RandomStream.next`. */
export type UniformSource = () => number;

/** An integer in [min, max] (both inclusive). */
export function randomInt(random: UniformSource, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

/** True with probability p. */
export function chance(random: UniformSource, p: number): boolean {
  return p > 0 && random() < p;
}

/** A normal draw (Box-Muller; consumes two uniforms). */
export function normal(random: UniformSource, mean: number, stddev: number): number {
  const u1 = 1 - random(); // (0, 1], so the log is finite
  const u2 = random();
  return mean + stddev * Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

/** An exponential draw with the given mean. */
export function exponential(random: UniformSource, mean: number): number {
  return -mean * Math.log(1 - random());
}

/** A Pareto (type I) draw with scale x_m > 0 and shape alpha > 0; its mean is alpha*x_m/(alpha-1) for alpha > 1. */
export function pareto(random: UniformSource, scale: number, shape: number): number {
  return scale / (1 - random()) ** (1 / shape);
}

/** A uniform pick from a non-empty array. */
export function pick<T>(random: UniformSource, items: readonly T[]): T {
  if (items.length === 0) throw new RangeError("pick from an empty array");
  return items[Math.floor(random() * items.length)] as T;
}

/**
 * One seeded random stream (xoroshiro128+ from pure-rand). Every actor owns
 * one, derived from the run seed and its id, and so does the router; no two
 * share state, so adding an actor never perturbs another's draws.
 */
export class RandomStream {
  readonly #rng: ReturnType<typeof xoroshiro128plusFromState>;
  /** `next` bound to this stream, to pass where a UniformSource is wanted. */
  readonly next: UniformSource;

  constructor(state: readonly number[]) {
    this.#rng = xoroshiro128plusFromState(state);
    this.next = () => uniformFloat64(this.#rng);
  }

  /** The generator state, for snapshots and for resuming a stream elsewhere. */
  state(): number[] {
    return [...this.#rng.getState()];
  }
}

/** splitmix32: a well-mixed 32-bit sequence, used only to seed generators. */
function splitmix32(seed: number): () => number {
  let s = seed | 0;
  return () => {
    s = (s + 0x9e3779b9) | 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) | 0;
  };
}

/** FNV-1a over UTF-16 code units: a stable 32-bit hash of a stream name. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h | 0;
}

/**
 * The independent stream named `name` (an actor id, "router", ...) of the run
 * whose seed is `runSeed` (any non-negative safe integer). The same
 * (seed, name) always yields the same stream, in every host and thread.
 */
export function streamFor(runSeed: number, name: string): RandomStream {
  if (!Number.isSafeInteger(runSeed) || runSeed < 0) {
    throw new RangeError(`seed must be a non-negative safe integer, got ${runSeed}`);
  }
  const low = runSeed % 0x100000000;
  const high = Math.floor(runSeed / 0x100000000);
  const fromSeed = splitmix32(low ^ Math.imul(high, 0x27d4eb2f));
  const fromName = splitmix32(fnv1a(name));
  let state = [0, 1, 2, 3].map(() => fromSeed() ^ fromName());
  // xoroshiro128+ must not start from the all-zero state.
  if (state.every((word) => word === 0)) state = [1, 0, 0, 0];
  return new RandomStream(state);
}
