import { type ActorId, type Context, ExponentialBackoff, type MetadataResponse, type Micros } from "@kcsim/protocol";
import type { BrokerConnections } from "./broker-connections.js";
import type { ClusterMetadata } from "./cluster-metadata.js";
import type { FetchConfig } from "./fetch-config.js";

/** The request timeout of the metadata request in flight. */
export const METADATA_TIMEOUT_TIMER = "fetch.metadata-timeout";

/** MetadataRequest v12 (topic ids in the response). */
const METADATA_API_VERSION = 12;

interface InFlightMetadata {
  readonly correlationId: number;
  readonly broker: ActorId;
}

/**
 * When and where the client refreshes its metadata (Kafka's `Metadata`
 * update timing with `NetworkClient`'s metadata updater): an update is due
 * at once when something asked for one (a leader error, an unknown leader, a
 * lost request), but never sooner than retry.backoff.ms after the previous
 * attempt (doubling per consecutive failure up to retry.backoff.max.ms), and
 * in any case every metadata.max.age.ms. One request at a time, to the least
 * loaded known broker; the bootstrap brokers before the first answer, or when
 * every known broker is in reconnect backoff (Kafka's rebootstrap).
 */
export class MetadataRefresher {
  readonly #config: FetchConfig;
  readonly #metadata: ClusterMetadata;
  readonly #bootstrap: readonly ActorId[];
  readonly #connections: BrokerConnections;
  readonly #nextCorrelationId: () => number;
  readonly #backoff: ExponentialBackoff;
  #needUpdate = true;
  #lastAttemptAt: Micros | null = null;
  #lastSuccessAt: Micros | null = null;
  #failures = 0;
  #inFlight: InFlightMetadata | null = null;

  constructor(
    config: FetchConfig,
    metadata: ClusterMetadata,
    bootstrap: readonly ActorId[],
    connections: BrokerConnections,
    nextCorrelationId: () => number,
  ) {
    this.#config = config;
    this.#metadata = metadata;
    this.#bootstrap = bootstrap;
    this.#connections = connections;
    this.#nextCorrelationId = nextCorrelationId;
    this.#backoff = new ExponentialBackoff(config.retryBackoffMs, config.retryBackoffMaxMs);
  }

  /** Asks for an update as soon as the backoff allows (Kafka's `requestUpdate`). */
  requestUpdate(): void {
    this.#needUpdate = true;
  }

  /** When the next refresh may go out, or null while one is in flight. */
  dueAt(): Micros | null {
    if (this.#inFlight !== null) return null;
    const earliest = this.#lastAttemptAt === null ? 0 : this.#lastAttemptAt + this.#backoff.backoff(this.#failures);
    if (this.#needUpdate || this.#lastSuccessAt === null) return earliest;
    return Math.max(earliest, this.#lastSuccessAt + this.#config.metadataMaxAge);
  }

  /** Sends a metadata request if one is due and a broker is reachable. */
  maybeSend(ctx: Context): void {
    const due = this.dueAt();
    const now = ctx.now();
    if (due === null || due > now) return;
    const known = this.#metadata.brokers();
    const broker =
      this.#connections.leastLoaded(known.length > 0 ? known : this.#bootstrap, now, () => ctx.random()) ??
      (known.length > 0 ? this.#connections.leastLoaded(this.#bootstrap, now, () => ctx.random()) : undefined);
    if (broker === undefined) return;
    const correlationId = this.#nextCorrelationId();
    this.#inFlight = { correlationId, broker };
    this.#connections.requestSent(broker);
    ctx.send(broker, {
      type: "MetadataRequest",
      correlationId,
      apiVersion: METADATA_API_VERSION,
      clientId: this.#config.clientId,
      topics: this.#metadata.topicNames().map((name) => ({ topicId: null, name })),
    });
    ctx.setTimer(METADATA_TIMEOUT_TIMER, this.#config.requestTimeout);
  }

  /** Applies the response to the request in flight; false if the response answers no request of ours. */
  receive(from: ActorId, response: MetadataResponse, ctx: Context): boolean {
    const inFlight = this.#inFlight;
    if (inFlight === null || inFlight.correlationId !== response.correlationId || inFlight.broker !== from) return false;
    this.#inFlight = null;
    ctx.cancelTimer(METADATA_TIMEOUT_TIMER);
    this.#connections.responseReceived(from, ctx.now(), response.throttleTimeMs);
    this.#metadata.update(response);
    const now = ctx.now();
    this.#lastAttemptAt = now;
    this.#lastSuccessAt = now;
    this.#failures = 0;
    this.#needUpdate = false;
    return true;
  }

  /** The request in flight timed out: returns its broker (whose connection is now closed), or undefined. */
  timedOut(ctx: Context): ActorId | undefined {
    const inFlight = this.#inFlight;
    if (inFlight === null) return undefined;
    this.#failed(ctx.now());
    return inFlight.broker;
  }

  /** Whether the metadata request in flight went to `broker`. */
  hasRequestTo(broker: ActorId): boolean {
    return this.#inFlight?.broker === broker;
  }

  /** The connection to `broker` closed: a request in flight to it fails. */
  failRequestsTo(broker: ActorId, ctx: Context): void {
    if (this.#inFlight?.broker !== broker) return;
    ctx.cancelTimer(METADATA_TIMEOUT_TIMER);
    this.#failed(ctx.now());
  }

  #failed(now: Micros): void {
    this.#inFlight = null;
    this.#lastAttemptAt = now;
    this.#failures++;
    this.#needUpdate = true;
  }
}
