import { type ActorId, ExponentialBackoff, type Micros, ms } from "@kcsim/protocol";
import { earliestAfter } from "../earliest-after.js";

interface ConnectionState {
  inFlight: number;
  /** Consecutive disconnects (reset by any response). */
  failures: number;
  /** Until when the broker is in reconnect backoff (Kafka's `isUnavailable`). */
  unavailableUntil: Micros;
  /** Until when the broker asked the client to hold its requests (KIP-219 throttling). */
  throttledUntil: Micros;
}

/**
 * The client's view of its connections to brokers (the part of Kafka's
 * `ClusterConnectionStates` and `NetworkClient` the fetcher needs): requests
 * in flight per broker, and the reconnect backoff after a disconnect (a
 * request that timed out closes its connection; a broker whose process is
 * not running resets it), doubling from
 * reconnect.backoff.ms up to reconnect.backoff.max.ms, and the throttle a
 * broker asked for (KIP-219: the client sends nothing more to it until the
 * throttle time has passed).
 */
export class BrokerConnections {
  readonly #backoff: ExponentialBackoff;
  readonly #states = new Map<ActorId, ConnectionState>();

  constructor(reconnectBackoffMs: number, reconnectBackoffMaxMs: number) {
    this.#backoff = new ExponentialBackoff(reconnectBackoffMs, reconnectBackoffMaxMs);
  }

  #state(broker: ActorId): ConnectionState {
    let state = this.#states.get(broker);
    if (state === undefined) {
      state = { inFlight: 0, failures: 0, unavailableUntil: 0, throttledUntil: 0 };
      this.#states.set(broker, state);
    }
    return state;
  }

  /** In reconnect backoff or throttled: nothing can be sent to the broker now. */
  isUnavailable(broker: ActorId, now: Micros): boolean {
    const state = this.#states.get(broker);
    return state !== undefined && (now < state.unavailableUntil || now < state.throttledUntil);
  }

  inFlight(broker: ActorId): number {
    return this.#states.get(broker)?.inFlight ?? 0;
  }

  requestSent(broker: ActorId): void {
    this.#state(broker).inFlight++;
  }

  /** A response arrived: the connection works; a throttle time in it holds further requests to the broker. */
  responseReceived(broker: ActorId, now: Micros, throttleTimeMs = 0): void {
    const state = this.#state(broker);
    state.inFlight = Math.max(0, state.inFlight - 1);
    state.failures = 0;
    if (throttleTimeMs > 0) state.throttledUntil = Math.max(state.throttledUntil, now + ms(throttleTimeMs));
  }

  /** The connection was closed (a request timed out, or the broker reset it): everything in flight on it fails, and reconnecting waits. */
  disconnected(broker: ActorId, now: Micros): void {
    const state = this.#state(broker);
    state.inFlight = 0;
    state.unavailableUntil = now + this.#backoff.backoff(state.failures);
    state.failures++;
  }

  /**
   * Kafka's `leastLoadedNode`: among the candidates not in backoff, the one
   * with the fewest requests in flight, scanning from a random offset so ties
   * do not always pick the same broker.
   */
  leastLoaded(candidates: readonly ActorId[], now: Micros, random: () => number): ActorId | undefined {
    if (candidates.length === 0) return undefined;
    const offset = Math.floor(random() * candidates.length);
    let best: ActorId | undefined;
    let bestInFlight = Number.POSITIVE_INFINITY;
    for (let i = 0; i < candidates.length; i++) {
      const broker = candidates[(offset + i) % candidates.length] as ActorId;
      if (this.isUnavailable(broker, now)) continue;
      const inFlight = this.inFlight(broker);
      if (inFlight < bestInFlight) {
        best = broker;
        bestInFlight = inFlight;
      }
    }
    return best;
  }

  /** The earliest time after `now` a broker leaves its reconnect backoff or throttle, or null. */
  nextAvailableAt(now: Micros): Micros | null {
    let next: Micros | null = null;
    for (const state of this.#states.values()) {
      next = earliestAfter(now, next, state.unavailableUntil);
      next = earliestAfter(now, next, state.throttledUntil);
    }
    return next;
  }
}
