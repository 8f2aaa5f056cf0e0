/**
 * Kafka's client metric stats (`org.apache.kafka.common.metrics.stats`) over
 * virtual time in milliseconds: a windowed stat keeps `samples` samples of
 * `windowMs` each (Kafka's defaults metrics.num.samples = 2,
 * metrics.sample.window.ms = 30000), forgets samples older than
 * samples * windowMs, and combines the rest. A stat with no events measures
 * NaN, as in Kafka.
 */

export const METRICS_SAMPLE_WINDOW_MS = 30_000;
export const METRICS_NUM_SAMPLES = 2;

export interface Sample {
  value: number;
  eventCount: number;
  lastWindowMs: number;
}

export interface MeasurableStat {
  record(value: number, nowMs: number): void;
  measure(nowMs: number): number;
}

/** Kafka's `SampledStat`. */
export abstract class SampledStat implements MeasurableStat {
  readonly #initialValue: number;
  readonly #windowMs: number;
  readonly #numSamples: number;
  readonly #samples: Sample[] = [];
  #current = 0;

  constructor(initialValue: number, windowMs = METRICS_SAMPLE_WINDOW_MS, numSamples = METRICS_NUM_SAMPLES) {
    this.#initialValue = initialValue;
    this.#windowMs = windowMs;
    this.#numSamples = numSamples;
  }

  get windowMs(): number {
    return this.#windowMs;
  }

  get numSamples(): number {
    return this.#numSamples;
  }

  record(value: number, nowMs: number): void {
    let sample = this.#currentSample(nowMs);
    if (nowMs - sample.lastWindowMs >= this.#windowMs) sample = this.#advance(nowMs);
    sample.value = this.update(sample.value, value);
    sample.eventCount++;
  }

  measure(nowMs: number): number {
    this.purgeObsoleteSamples(nowMs);
    return this.combine(this.#samples);
  }

  /** Samples whose window started samples * windowMs ago or earlier start over. */
  purgeObsoleteSamples(nowMs: number): void {
    const expireAge = this.#numSamples * this.#windowMs;
    for (const sample of this.#samples) if (nowMs - sample.lastWindowMs >= expireAge) this.#reset(sample, nowMs);
  }

  /** The sample whose window started first (creating one if there is none). */
  oldest(nowMs: number): Sample {
    if (this.#samples.length === 0) this.#samples.push(this.#newSample(nowMs));
    let oldest = this.#samples[0] as Sample;
    for (const sample of this.#samples) if (sample.lastWindowMs < oldest.lastWindowMs) oldest = sample;
    return oldest;
  }

  protected abstract update(current: number, value: number): number;
  protected abstract combine(samples: readonly Sample[]): number;

  #currentSample(nowMs: number): Sample {
    if (this.#samples.length === 0) this.#samples.push(this.#newSample(nowMs));
    return this.#samples[this.#current] as Sample;
  }

  #advance(nowMs: number): Sample {
    this.#current = (this.#current + 1) % this.#numSamples;
    const existing = this.#samples[this.#current];
    if (existing === undefined) {
      const sample = this.#newSample(nowMs);
      this.#samples.push(sample);
      return sample;
    }
    this.#reset(existing, nowMs);
    return existing;
  }

  #newSample(nowMs: number): Sample {
    return { value: this.#initialValue, eventCount: 0, lastWindowMs: nowMs };
  }

  #reset(sample: Sample, nowMs: number): void {
    sample.value = this.#initialValue;
    sample.eventCount = 0;
    sample.lastWindowMs = nowMs;
  }
}

function eventCount(samples: readonly Sample[]): number {
  let count = 0;
  for (const sample of samples) count += sample.eventCount;
  return count;
}

export class WindowedAvg extends SampledStat {
  constructor() {
    super(0);
  }
  protected update(current: number, value: number): number {
    return current + value;
  }
  protected combine(samples: readonly Sample[]): number {
    const count = eventCount(samples);
    if (count === 0) return Number.NaN;
    let total = 0;
    for (const sample of samples) total += sample.value;
    return total / count;
  }
}

export class WindowedMax extends SampledStat {
  constructor() {
    super(Number.NEGATIVE_INFINITY);
  }
  protected update(current: number, value: number): number {
    return Math.max(current, value);
  }
  protected combine(samples: readonly Sample[]): number {
    if (eventCount(samples) === 0) return Number.NaN;
    let max = Number.NEGATIVE_INFINITY;
    for (const sample of samples) if (sample.eventCount > 0) max = Math.max(max, sample.value);
    return max;
  }
}

export class WindowedMin extends SampledStat {
  constructor() {
    super(Number.POSITIVE_INFINITY);
  }
  protected update(current: number, value: number): number {
    return Math.min(current, value);
  }
  protected combine(samples: readonly Sample[]): number {
    if (eventCount(samples) === 0) return Number.NaN;
    let min = Number.POSITIVE_INFINITY;
    for (const sample of samples) if (sample.eventCount > 0) min = Math.min(min, sample.value);
    return min;
  }
}

export class WindowedSum extends SampledStat {
  constructor() {
    super(0);
  }
  protected update(current: number, value: number): number {
    return current + value;
  }
  protected combine(samples: readonly Sample[]): number {
    let total = 0;
    for (const sample of samples) total += sample.value;
    return total;
  }
}

/** Counts events whatever their value. */
export class WindowedCount extends WindowedSum {
  protected override update(current: number): number {
    return current + 1;
  }
}

/**
 * Kafka's `Rate` (per second): the windowed total divided by the time the
 * samples cover, which is at least (samples - 1) full windows so a fresh
 * rate does not spike.
 */
export class Rate implements MeasurableStat {
  readonly #stat: WindowedSum;

  constructor(stat: WindowedSum = new WindowedSum()) {
    this.#stat = stat;
  }

  record(value: number, nowMs: number): void {
    this.#stat.record(value, nowMs);
  }

  measure(nowMs: number): number {
    const total = this.#stat.measure(nowMs);
    return total / (this.#windowSizeMs(nowMs) / 1000);
  }

  #windowSizeMs(nowMs: number): number {
    this.#stat.purgeObsoleteSamples(nowMs);
    let elapsed = nowMs - this.#stat.oldest(nowMs).lastWindowMs;
    const fullWindows = Math.floor(elapsed / this.#stat.windowMs);
    const minFullWindows = this.#stat.numSamples - 1;
    if (fullWindows < minFullWindows) elapsed += (minFullWindows - fullWindows) * this.#stat.windowMs;
    return Math.max(elapsed, 1);
  }
}

/** Kafka's `CumulativeSum`: the total of every value ever recorded. */
export class CumulativeSum implements MeasurableStat {
  #total = 0;
  record(value: number): void {
    this.#total += value;
  }
  measure(): number {
    return this.#total;
  }
}

/** Kafka's `CumulativeCount`: how many values were ever recorded. */
export class CumulativeCount implements MeasurableStat {
  #count = 0;
  record(): void {
    this.#count++;
  }
  measure(): number {
    return this.#count;
  }
}

/** Kafka's `Value`: the last value recorded. */
export class LastValue implements MeasurableStat {
  #value = 0;
  record(value: number): void {
    this.#value = value;
  }
  measure(): number {
    return this.#value;
  }
}
