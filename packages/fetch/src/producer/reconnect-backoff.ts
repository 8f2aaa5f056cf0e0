import { type ActorId, ExponentialBackoff, type Micros } from "@kcsim/protocol";
import { earliestAfter } from "../earliest-after.js";

/**
 * Kafka's defaults for reconnect.backoff.ms and reconnect.backoff.max.ms.
 * The producer's config does not carry these settings yet, so the producer
 * uses Kafka's defaults.
 */
export const DEFAULT_RECONNECT_BACKOFF_MS = 50;
export const DEFAULT_RECONNECT_BACKOFF_MAX_MS = 1000;

interface ResetState {
  /** Resets since the broker last answered. */
  failures: number;
  /** Until when nothing is sent to the broker. */
  unavailableUntil: Micros;
}

/**
 * The producer's reconnect backoff (the part of Kafka's
 * `ClusterConnectionStates` its Sender uses): a broker that reset the
 * connection (its process is not running) is not sent to for
 * reconnect.backoff.ms, doubling per consecutive reset up to
 * reconnect.backoff.max.ms. Any answer from the broker clears the count.
 * Without this, a broker whose requests all failed at once would look like
 * the least loaded one and get every metadata request.
 */
export class ReconnectBackoff {
  readonly #backoff: ExponentialBackoff;
  readonly #states = new Map<ActorId, ResetState>();

  constructor(initialMs: number, maxMs: number) {
    this.#backoff = new ExponentialBackoff(initialMs, maxMs);
  }

  /** The broker reset the connection at `now`. */
  disconnected(host: ActorId, now: Micros): void {
    const state = this.#states.get(host) ?? { failures: 0, unavailableUntil: 0 };
    state.unavailableUntil = now + this.#backoff.backoff(state.failures);
    state.failures++;
    this.#states.set(host, state);
  }

  /** The broker answered: the connection works. */
  answered(host: ActorId): void {
    this.#states.delete(host);
  }

  isUnavailable(host: ActorId, now: Micros): boolean {
    const state = this.#states.get(host);
    return state !== undefined && now < state.unavailableUntil;
  }

  /** The earliest time after `now` a broker leaves its backoff, or null. */
  nextAvailableAt(now: Micros): Micros | null {
    // Asked on every pass of the sender, and almost always with no broker in backoff.
    if (this.#states.size === 0) return null;
    let next: Micros | null = null;
    for (const { unavailableUntil } of this.#states.values()) next = earliestAfter(now, next, unavailableUntil);
    return next;
  }
}
