import { type ExponentialBackoff, type Micros, ms } from "@kcsim/protocol";

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
 * a heartbeat is answered. Deadlines are virtual microseconds.
 */
export class HeartbeatTimers {
  readonly #intervalUs: Micros;
  readonly #sessionUs: Micros;
  readonly #maxPollUs: Micros;
  readonly #retryBackoff: ExponentialBackoff;
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
    this.heartbeatDueAt = now + this.#intervalUs;
    this.sessionEndsAt = now + this.#sessionUs;
    this.pollTimerEndsAt = now + this.#maxPollUs;
    this.lastPollAt = now;
  }

  /** `poll`: the application called poll(). */
  poll(now: Micros): void {
    this.lastPollAt = now;
    this.pollTimerEndsAt = now + this.#maxPollUs;
  }

  sentHeartbeat(now: Micros): void {
    this.heartbeatDueAt = now + this.#intervalUs;
  }

  /** A heartbeat failed: the next one goes after the backoff (retry.backoff.ms, doubled per failure in a row). */
  failHeartbeat(now: Micros): void {
    this.heartbeatDueAt = now + this.#retryBackoff.backoff(this.#failedAttempts++);
  }

  /** A heartbeat was answered: the session goes on, and the backoff starts over. */
  receiveHeartbeat(now: Micros): void {
    this.#failedAttempts = 0;
    this.sessionEndsAt = now + this.#sessionUs;
  }

  resetSessionTimeout(now: Micros): void {
    this.sessionEndsAt = now + this.#sessionUs;
  }

  /**
   * `resetTimeouts`, done when the heartbeat thread is enabled (JoinGroup
   * answered). Kafka also restarts the poll timer here; this member does
   * not, so a poll timeout always lands exactly max.poll.interval.ms after
   * the last poll().
   */
  resetTimeouts(now: Micros): void {
    this.sessionEndsAt = now + this.#sessionUs;
    this.heartbeatDueAt = now + this.#intervalUs;
  }

  shouldHeartbeat(now: Micros): boolean {
    return now >= this.heartbeatDueAt;
  }

  sessionTimeoutExpired(now: Micros): boolean {
    return now >= this.sessionEndsAt;
  }

  pollTimeoutExpired(now: Micros): boolean {
    return now >= this.pollTimerEndsAt;
  }
}
