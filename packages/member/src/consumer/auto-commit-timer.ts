import { type Micros, ms } from "@kcsim/protocol";

/**
 * When the next auto-commit is due (Kafka's `AutoCommitState`). It is only
 * consulted when the application calls poll(), so auto-commits happen
 * inside poll, every auto.commit.interval.ms at most, one in flight at a time.
 */
export class AutoCommitTimer {
  readonly #intervalUs: Micros;
  #dueAt: Micros;
  inFlight = false;

  constructor(intervalMs: number, now: Micros) {
    this.#intervalUs = ms(intervalMs);
    this.#dueAt = now + this.#intervalUs;
  }

  shouldCommit(now: Micros): boolean {
    return !this.inFlight && now >= this.#dueAt;
  }

  /** The next auto-commit is an interval from now. */
  reset(now: Micros): void {
    this.#dueAt = now + this.#intervalUs;
  }

  /** A retriable failure: try again after the backoff instead of a whole interval. */
  resetWithBackoff(now: Micros, backoffUs: Micros): void {
    this.#dueAt = now + backoffUs;
  }
}
