import { type Micros, ms } from "@kcsim/protocol";

/**
 * Kafka's `ExponentialBackoff(initial, 2, max, jitter)` without the jitter:
 * the wait after n consecutive failures is initial * 2^n, capped at max.
 * Leaving the jitter out keeps a run's timing readable straight off the
 * config (the member's backoff makes the same choice).
 */
export class ExponentialBackoff {
  readonly #initial: Micros;
  readonly #max: Micros;

  constructor(initialMs: number, maxMs: number) {
    this.#initial = ms(initialMs);
    this.#max = ms(Math.max(initialMs, maxMs));
  }

  /** The wait after `failures` consecutive failures (0 gives the initial backoff). */
  backoff(failures: number): Micros {
    return Math.min(this.#max, this.#initial * 2 ** Math.min(Math.max(failures, 0), 30));
  }
}
