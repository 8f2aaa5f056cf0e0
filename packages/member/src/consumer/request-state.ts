import type { ExponentialBackoff, Micros } from "@kcsim/protocol";

/**
 * The retry bookkeeping of one kind of request (Kafka's `RequestState`):
 * whether one is in flight, and how long to back off after failures.
 */
export class RequestState {
  readonly #backoff: ExponentialBackoff;
  #lastReceivedAt: Micros | null = null;
  #attempts = 0;
  #backoffUs: Micros;
  #inFlight = false;

  constructor(backoff: ExponentialBackoff) {
    this.#backoff = backoff;
    this.#backoffUs = backoff.backoff(0);
  }

  get inFlight(): boolean {
    return this.#inFlight;
  }

  get failedAttempts(): number {
    return this.#attempts;
  }

  /** Nothing in flight and the backoff since the last answer is over. */
  canSendRequest(now: Micros): boolean {
    return !this.#inFlight && this.remainingBackoff(now) <= 0;
  }

  /** Still waiting out the backoff of a failed attempt (a success leaves only the short pause after any answer). */
  backingOffAfterFailure(now: Micros): boolean {
    return this.#attempts > 0 && this.remainingBackoff(now) > 0;
  }

  remainingBackoff(now: Micros): Micros {
    if (this.#lastReceivedAt === null) return 0;
    return Math.max(0, this.#backoffUs - (now - this.#lastReceivedAt));
  }

  onSendAttempt(): void {
    this.#inFlight = true;
  }

  onSuccessfulAttempt(now: Micros): void {
    this.#inFlight = false;
    this.#lastReceivedAt = now;
    this.#attempts = 0;
    this.#backoffUs = this.#backoff.backoff(0);
  }

  onFailedAttempt(now: Micros): void {
    this.#inFlight = false;
    this.#lastReceivedAt = now;
    this.#backoffUs = this.#backoff.backoff(this.#attempts);
    this.#attempts++;
  }

  /** Forgets in-flight state and backoff: the next request may go at once. */
  reset(): void {
    this.#inFlight = false;
    this.#lastReceivedAt = null;
    this.#attempts = 0;
    this.#backoffUs = this.#backoff.backoff(0);
  }
}
