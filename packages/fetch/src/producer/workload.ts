import { exponential, MICROS_PER_SECOND, type Micros, ms, normal, pareto, randomInt } from "@kcsim/protocol";
import type { ConfigReader } from "../cluster/config-reader.js";

/** Record value sizes, in the shapes of the harness's delay specs with bytes instead of ms. */
export type ValueBytesSpec =
  | { readonly dist: "fixed"; readonly bytes: number }
  | { readonly dist: "uniform"; readonly minBytes: number; readonly maxBytes: number }
  | { readonly dist: "normal"; readonly meanBytes: number; readonly stddevBytes: number }
  | { readonly dist: "exponential"; readonly meanBytes: number }
  | { readonly dist: "pareto"; readonly scaleBytes: number; readonly shape: number };

/** Record keys: `key-0 .. key-(count-1)`, uniform or Zipf (rank k with weight 1/(k+1)^exponent, exponent 1 by default). */
export interface KeySpec {
  readonly count: number;
  readonly dist: "uniform" | "zipf";
  readonly exponent: number;
}

/** A period with its own rate. */
export interface Burst {
  readonly atMs: number;
  readonly durationMs: number;
  readonly recordsPerSecond: number;
}

/**
 * What a producer sends: `{topic, recordsPerSecond, keys: {count, dist,
 * exponent?} | null, valueBytes, bursts?: [{atMs, durationMs,
 * recordsPerSecond}], stopAtMs?}`. Records come at evenly spaced times by
 * the rate in force (a burst overrides the base rate while it lasts; of
 * overlapping bursts the later listed wins).
 */
export interface WorkloadSpec {
  readonly topic: string;
  readonly recordsPerSecond: number;
  readonly keys: KeySpec | null;
  readonly valueBytes: ValueBytesSpec;
  readonly bursts: readonly Burst[];
  readonly stopAtMs: number | null;
}

/**
 * Bounds of a workload, so a typo cannot ask for a value no loop can size
 * or a key table no heap can hold: values up to 100 MiB (Kafka's
 * message.max.bytes is 1 MiB by default), up to a million keys and a
 * million records per second per producer, times within a day.
 */
export const MAX_VALUE_BYTES = 100 * 1024 * 1024;
export const MAX_KEYS = 1_000_000;
export const MAX_RECORDS_PER_SECOND = 1_000_000;
const MAX_WORKLOAD_MS = 86_400_000;

export function readWorkload(config: ConfigReader): WorkloadSpec {
  config.onlyKeys(["topic", "recordsPerSecond", "keys", "valueBytes", "bursts", "stopAtMs"]);
  const keysConfig = config.nullableObject("keys");
  let keys: KeySpec | null = null;
  if (keysConfig !== null) {
    keysConfig.onlyKeys(["count", "dist", "exponent"]);
    keys = {
      count: keysConfig.int("count", { min: 1, max: MAX_KEYS }),
      dist: keysConfig.string("dist", { oneOf: ["uniform", "zipf"] }) as KeySpec["dist"],
      exponent: keysConfig.number("exponent", { exclusiveMin: 0, max: 100, default: 1 }),
    };
  }
  const v = config.object("valueBytes");
  const dist = v.string("dist", { oneOf: ["fixed", "uniform", "normal", "exponential", "pareto"] });
  let valueBytes: ValueBytesSpec;
  switch (dist) {
    case "fixed":
      v.onlyKeys(["dist", "bytes"]);
      valueBytes = { dist, bytes: v.int("bytes", { min: 0, max: MAX_VALUE_BYTES }) };
      break;
    case "uniform": {
      v.onlyKeys(["dist", "minBytes", "maxBytes"]);
      const minBytes = v.int("minBytes", { min: 0, max: MAX_VALUE_BYTES });
      valueBytes = { dist, minBytes, maxBytes: v.int("maxBytes", { min: minBytes, max: MAX_VALUE_BYTES }) };
      break;
    }
    case "normal":
      v.onlyKeys(["dist", "meanBytes", "stddevBytes"]);
      valueBytes = {
        dist,
        meanBytes: v.number("meanBytes", { min: 0, max: MAX_VALUE_BYTES }),
        stddevBytes: v.number("stddevBytes", { min: 0, max: MAX_VALUE_BYTES }),
      };
      break;
    case "exponential":
      v.onlyKeys(["dist", "meanBytes"]);
      valueBytes = { dist, meanBytes: v.number("meanBytes", { min: 0, max: MAX_VALUE_BYTES }) };
      break;
    default:
      v.onlyKeys(["dist", "scaleBytes", "shape"]);
      valueBytes = {
        dist: "pareto",
        scaleBytes: v.number("scaleBytes", { exclusiveMin: 0, max: MAX_VALUE_BYTES }),
        shape: v.number("shape", { min: 0.01, max: 1000 }),
      };
  }
  const bursts = config.objects("bursts", { optional: true }).map((b) => {
    b.onlyKeys(["atMs", "durationMs", "recordsPerSecond"]);
    return {
      atMs: b.number("atMs", { min: 0, max: MAX_WORKLOAD_MS }),
      durationMs: b.number("durationMs", { min: 0, max: MAX_WORKLOAD_MS }),
      recordsPerSecond: b.number("recordsPerSecond", { min: 0, max: MAX_RECORDS_PER_SECOND }),
    };
  });
  return {
    topic: config.string("topic"),
    recordsPerSecond: config.number("recordsPerSecond", { min: 0, max: MAX_RECORDS_PER_SECOND }),
    keys,
    valueBytes,
    bursts,
    stopAtMs: config.has("stopAtMs") ? config.number("stopAtMs", { min: 0, max: MAX_WORKLOAD_MS }) : null,
  };
}

/** A value size drawn from its distribution: whole bytes, never negative. */
export function sampleValueBytes(spec: ValueBytesSpec, random: () => number): number {
  let bytes: number;
  switch (spec.dist) {
    case "fixed":
      bytes = spec.bytes;
      break;
    case "uniform":
      bytes = randomInt(random, spec.minBytes, spec.maxBytes);
      break;
    case "normal":
      bytes = normal(random, spec.meanBytes, spec.stddevBytes);
      break;
    case "exponential":
      bytes = exponential(random, spec.meanBytes);
      break;
    case "pareto":
      bytes = pareto(random, spec.scaleBytes, spec.shape);
      break;
  }
  // A heavy tail is cut at the largest value a workload may ask for.
  return Math.min(MAX_VALUE_BYTES, Math.max(0, Math.round(bytes)));
}

/** Picks record keys by a KeySpec (Zipf through its cumulative weights). */
export class KeyChooser {
  readonly #spec: KeySpec;
  readonly #cumulative: number[] = [];

  constructor(spec: KeySpec) {
    this.#spec = spec;
    if (spec.dist === "zipf") {
      let total = 0;
      for (let k = 0; k < spec.count; k++) {
        total += 1 / (k + 1) ** spec.exponent;
        this.#cumulative.push(total);
      }
    }
  }

  next(random: () => number): string {
    if (this.#spec.dist === "uniform") return `key-${randomInt(random, 0, this.#spec.count - 1)}`;
    const total = this.#cumulative[this.#cumulative.length - 1] as number;
    const u = random() * total;
    let lo = 0;
    let hi = this.#cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.#cumulative[mid] as number) <= u) lo = mid + 1;
      else hi = mid;
    }
    return `key-${lo}`;
  }
}

/**
 * When records are due: the rate is piecewise constant (base rate, bursts,
 * zero after stopAtMs), and record n is due when the rate integrated from
 * the start reaches n.
 */
export class RecordSchedule {
  readonly #spec: WorkloadSpec;
  /** Times where the rate may change, ascending. */
  readonly #boundaries: Micros[];
  /** Records owed but not yet due, as a fraction. */
  #credit = 0;
  #lastAt: Micros = 0;

  constructor(spec: WorkloadSpec) {
    this.#spec = spec;
    const times = new Set<Micros>();
    for (const b of spec.bursts) {
      times.add(ms(b.atMs));
      times.add(ms(b.atMs + b.durationMs));
    }
    if (spec.stopAtMs !== null) times.add(ms(spec.stopAtMs));
    this.#boundaries = [...times].sort((a, b) => a - b);
  }

  /** Records per second at `t` (the rate of the piece starting at or before `t`). */
  rateAt(t: Micros): number {
    if (this.#spec.stopAtMs !== null && t >= ms(this.#spec.stopAtMs)) return 0;
    let rate = this.#spec.recordsPerSecond;
    for (const b of this.#spec.bursts) if (t >= ms(b.atMs) && t < ms(b.atMs + b.durationMs)) rate = b.recordsPerSecond;
    return rate;
  }

  #nextBoundaryAfter(t: Micros): Micros | undefined {
    return this.#boundaries.find((b) => b > t);
  }

  /** Starts the schedule at `t` (the producer's start). */
  reset(t: Micros): void {
    this.#lastAt = t;
    this.#credit = 0;
  }

  /** Records due between the last call and `now`. */
  take(now: Micros): number {
    let t = this.#lastAt;
    while (t < now) {
      const end = Math.min(now, this.#nextBoundaryAfter(t) ?? now);
      this.#credit += (this.rateAt(t) * (end - t)) / MICROS_PER_SECOND;
      t = end;
    }
    this.#lastAt = now;
    // A hair of tolerance so float sums land records on their due tick.
    const due = Math.floor(this.#credit + 1e-9);
    this.#credit = Math.max(0, this.#credit - due);
    return due;
  }

  /** When the next record is due, or undefined if none ever is. */
  nextDueAt(): Micros | undefined {
    let t = this.#lastAt;
    let needed = 1 - this.#credit;
    for (;;) {
      const rate = this.rateAt(t);
      const boundary = this.#nextBoundaryAfter(t);
      if (rate > 0) {
        const reachedAt = t + Math.ceil((needed * MICROS_PER_SECOND) / rate - 1e-6);
        if (boundary === undefined || reachedAt <= boundary) return Math.max(reachedAt, this.#lastAt + 1);
        needed -= (rate * (boundary - t)) / MICROS_PER_SECOND;
      }
      if (boundary === undefined) return undefined;
      t = boundary;
    }
  }
}
