import { type ExponentialBackoff, type Micros, ms } from "@kcsim/protocol";
import { RequestState } from "./request-state.js";

/**
 * Heartbeat timing (spec 2.3, `AbstractHeartbeatRequestManager.HeartbeatRequestState`):
 * the interval comes from the last successful response (initially 0, so the
 * first heartbeat is immediate); the interval timer restarts at every send;
 * a failure expires it (the next heartbeat waits only for the backoff).
 */
export class HeartbeatRequestState extends RequestState {
  #intervalUs: Micros = 0;
  #intervalEndsAt: Micros;

  constructor(backoff: ExponentialBackoff, now: Micros) {
    super(backoff);
    this.#intervalEndsAt = now;
  }

  get intervalMs(): number {
    return this.#intervalUs / 1000;
  }

  intervalElapsed(now: Micros): boolean {
    return now >= this.#intervalEndsAt;
  }

  /** Interval elapsed, nothing in flight, backoff over. */
  override canSendRequest(now: Micros): boolean {
    return this.intervalElapsed(now) && super.canSendRequest(now);
  }

  /** When the next interval-driven heartbeat may go (ignores in-flight). */
  timeToNextHeartbeat(now: Micros): Micros {
    if (this.intervalElapsed(now)) return this.remainingBackoff(now);
    return this.#intervalEndsAt - now;
  }

  /** Restarts the interval timer (done whenever a heartbeat is sent). */
  resetTimer(now: Micros): void {
    this.#intervalEndsAt = now + this.#intervalUs;
  }

  /** A new interval from a response restarts the timer from now; an unchanged one does not. */
  updateHeartbeatInterval(intervalMs: number, now: Micros): void {
    const intervalUs = ms(Math.max(0, intervalMs));
    if (intervalUs === this.#intervalUs) return;
    this.#intervalUs = intervalUs;
    this.#intervalEndsAt = now + intervalUs;
  }

  override onFailedAttempt(now: Micros): void {
    // After a failure the next heartbeat need not wait for the interval: only
    // for the backoff (load in progress) or not at all (fencing, coordinator moved).
    this.#intervalEndsAt = now;
    super.onFailedAttempt(now);
  }
}
