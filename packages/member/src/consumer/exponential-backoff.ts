import { type Micros, ms } from "@kcsim/protocol";

/**
 * Kafka's `ExponentialBackoff` without jitter: retry.backoff.ms doubled per
 * failed attempt, capped at retry.backoff.max.ms (100, 200, 400, 800, 1000).
 * Jitter is left out so a run's timing reads straight off the config.
 */
export class ExponentialBackoff {
  readonly #initialUs: Micros;
  readonly #maxUs: Micros;

  constructor(initialMs: number, maxMs: number) {
    this.#initialUs = ms(initialMs);
    this.#maxUs = ms(Math.max(initialMs, maxMs));
  }

  /** The wait after `attempts` consecutive failures (0 = after the first). */
  backoff(attempts: number): Micros {
    return Math.min(this.#maxUs, this.#initialUs * 2 ** Math.min(attempts, 30));
  }
}
