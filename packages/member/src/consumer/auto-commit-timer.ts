import { type Micros, ms } from "@kcsim/protocol";

/**
 * When the next auto-commit on the interval is due (the timer of Kafka's
 * `AutoCommitState`; its one-auto-commit-in-flight rule is kept by the
 * CommitRequestManager). It is only consulted when the application calls
 * poll(), so interval auto-commits happen inside poll, every
 * auto.commit.interval.ms at most.
 */
export class AutoCommitTimer {
  readonly #intervalUs: Micros;
  #dueAt: Micros;

  constructor(intervalMs: number, now: Micros) {
    this.#intervalUs = ms(intervalMs);
    this.#dueAt = now + this.#intervalUs;
  }

  isDue(now: Micros): boolean {
    return now >= this.#dueAt;
  }

  /** How long until the next auto-commit is due; one due now (or overdue) is taken as made now: an interval. */
  timeToNext(now: Micros): Micros {
    const left = this.#dueAt - now;
    return left > 0 ? left : this.#intervalUs;
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
