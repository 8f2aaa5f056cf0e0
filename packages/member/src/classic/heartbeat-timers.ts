import { type ExponentialBackoff, type Micros, ms } from "@kcsim/protocol";
import { TimerClock } from "../consumer/timer-clock.js";

export interface HeartbeatSettings {
  readonly heartbeatIntervalMs: number;
  readonly sessionTimeoutMs: number;
  readonly maxPollIntervalMs: number;
  /** retry.backoff.ms doubling up to retry.backoff.max.ms. */
  readonly retryBackoff: ExponentialBackoff;
}

/**
 * The three timers of Kafka's classic `Heartbeat`: when the next heartbeat
 * is due, when the session is presumed lost without a successful response,
 * and when max.poll.interval.ms runs out without a poll(). A failed
 * heartbeat is followed by the next after the backoff, which doubles with
 * each failure in a row (`retryBackoff.backoff(heartbeatAttempts++)`) until
 * a heartbeat is answered. Deadlines are on the member's own clock, which
 * all three timers read through one `TimerClock` (Kafka's `Heartbeat.update`
 * updates the three `Timer`s together): a clock stepped back does not move
 * them back.
 */
export class HeartbeatTimers {
  readonly #intervalUs: Micros;
  readonly #sessionUs: Micros;
  readonly #maxPollUs: Micros;
  readonly #retryBackoff: ExponentialBackoff;
  readonly #clock: TimerClock;
  #failedAttempts = 0;
  heartbeatDueAt: Micros;
  sessionEndsAt: Micros;
  pollTimerEndsAt: Micros;
  lastPollAt: Micros;

  constructor(settings: HeartbeatSettings, now: Micros) {
    this.#intervalUs = ms(settings.heartbeatIntervalMs);
    this.#sessionUs = ms(settings.sessionTimeoutMs);
    this.#maxPollUs = ms(settings.maxPollIntervalMs);
    this.#retryBackoff = settings.retryBackoff;
    this.#clock = new TimerClock(now);
    this.heartbeatDueAt = now + this.#intervalUs;
    this.sessionEndsAt = now + this.#sessionUs;
    this.pollTimerEndsAt = now + this.#maxPollUs;
    this.lastPollAt = now;
  }

  /** `poll`: a pass of poll()'s loop began. */
  poll(now: Micros): void {
    const at = this.#clock.update(now);
    this.lastPollAt = at;
    this.pollTimerEndsAt = at + this.#maxPollUs;
  }

  sentHeartbeat(now: Micros): void {
    const at = this.#clock.update(now);
    this.heartbeatDueAt = at + this.#intervalUs;
  }

  /** A heartbeat failed: the next one goes after the backoff (retry.backoff.ms, doubled per failure in a row). */
  failHeartbeat(now: Micros): void {
    const at = this.#clock.update(now);
    this.heartbeatDueAt = at + this.#retryBackoff.backoff(this.#failedAttempts++);
  }

  /** A heartbeat was answered: the session goes on, and the backoff starts over. */
  receiveHeartbeat(now: Micros): void {
    const at = this.#clock.update(now);
    this.#failedAttempts = 0;
    this.sessionEndsAt = at + this.#sessionUs;
  }

  resetSessionTimeout(now: Micros): void {
    const at = this.#clock.update(now);
    this.sessionEndsAt = at + this.#sessionUs;
  }

  /** `resetTimeouts`, done when the heartbeat thread is enabled (JoinGroup answered): the session, the poll timer and the next heartbeat start over. */
  resetTimeouts(now: Micros): void {
    const at = this.#clock.update(now);
    this.sessionEndsAt = at + this.#sessionUs;
    this.heartbeatDueAt = at + this.#intervalUs;
    this.poll(at);
  }

  get intervalUs(): Micros {
    return this.#intervalUs;
  }

  shouldHeartbeat(now: Micros): boolean {
    const at = this.#clock.update(now);
    return at >= this.heartbeatDueAt;
  }

  sessionTimeoutExpired(now: Micros): boolean {
    const at = this.#clock.update(now);
    return at >= this.sessionEndsAt;
  }

  pollTimeoutExpired(now: Micros): boolean {
    const at = this.#clock.update(now);
    return at >= this.pollTimerEndsAt;
  }
}
