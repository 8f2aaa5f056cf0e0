import { MICROS_PER_SECOND, type Micros, seconds } from "@kcsim/protocol";

/**
 * A meter over virtual time (the sim's stand-in for a Yammer `Meter`): a
 * total count, and a rate in events per second over any window up to the
 * retention. Marks must come in non-decreasing time order.
 */
export class VirtualTimeMeter {
  readonly retention: Micros;
  #count = 0;
  /** Mark times (with repeats for multi-event marks) within the retention, oldest first. */
  readonly #marks: Micros[] = [];
  #head = 0;

  /** The default retention matches the longest Yammer moving average (15 minutes). */
  constructor(retention: Micros = seconds(15 * 60)) {
    if (!(retention > 0)) throw new RangeError(`meter retention must be positive, got ${retention}`);
    this.retention = retention;
  }

  get count(): number {
    return this.#count;
  }

  mark(now: Micros, events = 1): void {
    for (let i = 0; i < events; i++) this.#marks.push(now);
    this.#count += events;
    this.#prune(now);
  }

  /** Events per second in the window (now - window, now]. */
  rate(now: Micros, window: Micros): number {
    if (!(window > 0) || window > this.retention) {
      throw new RangeError(`meter window must be in (0, ${this.retention}] micros, got ${window}`);
    }
    this.#prune(now);
    let events = 0;
    for (let i = this.#marks.length - 1; i >= this.#head; i--) {
      const t = this.#marks[i] as Micros;
      if (t <= now - window) break;
      if (t <= now) events++;
    }
    return (events * MICROS_PER_SECOND) / window;
  }

  #prune(now: Micros): void {
    const horizon = now - this.retention;
    while (this.#head < this.#marks.length && (this.#marks[this.#head] as Micros) <= horizon) this.#head++;
    // Compact once the dead prefix dominates, so memory stays proportional to the retention.
    if (this.#head > 1024 && this.#head * 2 > this.#marks.length) {
      this.#marks.splice(0, this.#head);
      this.#head = 0;
    }
  }
}
