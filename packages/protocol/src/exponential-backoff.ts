import type { UniformSource } from "./random.js";
import { type Micros, ms } from "./time.js";

/**
 * Kafka's `ExponentialBackoff(initial, 2, max, jitter)`: the wait after n
 * consecutive failures is initial * 2^n, capped at max, times a factor drawn
 * uniformly from [1 - jitter, 1 + jitter) when a random source is given (and
 * capped at max again, as Kafka does). The clients' retry backoffs leave the
 * jitter out, so a run's timing reads straight off the config; the kernel's
 * reconnect and connection-setup backoffs draw it from the seed, as Kafka's
 * NetworkClient does (jitter 0.2).
 */
export class ExponentialBackoff {
  readonly #initialUs: Micros;
  readonly #maxUs: Micros;
  readonly #jitter: number;

  constructor(initialMs: number, maxMs: number, jitter = 0) {
    this.#initialUs = ms(initialMs);
    this.#maxUs = ms(Math.max(initialMs, maxMs));
    this.#jitter = jitter;
  }

  /** The wait after `attempts` consecutive failures (0 gives the initial backoff). */
  backoff(attempts: number, random?: UniformSource): Micros {
    const term = Math.min(this.#maxUs, this.#initialUs * 2 ** Math.min(Math.max(attempts, 0), 30));
    if (random === undefined || this.#jitter === 0) return term;
    const factor = 1 - this.#jitter + random() * 2 * this.#jitter;
    return Math.min(this.#maxUs, Math.floor(term * factor));
  }
}
