import { type ActorId, type Context, ErrorCode, type MetadataResponse, type Micros, tpKey } from "@kcsim/protocol";

/** The timer of the Metadata request in flight. */
export const METADATA_TIMEOUT_TIMER = "txn-metadata-timeout";

/** Metadata v12 (topic ids in the response), as the clients send it. */
const METADATA_API_VERSION = 12;

/**
 * Where the data partitions' leaders are, for the transaction markers
 * (Kafka's coordinator reads its broker's metadata cache; this actor has
 * none, so it asks the data brokers with Metadata requests, one at a time,
 * round-robin, no more often than once per backoff). A leader is forgotten
 * when a marker to it fails with a leadership error or a disconnect, and
 * asked for again.
 */
export class PartitionLeaders {
  /** tpKey -> leader's actor id. */
  readonly #leaders = new Map<string, ActorId>();
  /** Topics whose leaders are wanted. */
  readonly #wanted = new Set<string>();
  #inFlight: { readonly correlationId: number; readonly broker: ActorId } | null = null;
  #nextBroker = 0;
  #lastAttemptAt: Micros | null = null;

  constructor(
    readonly brokers: readonly ActorId[],
    readonly requestTimeout: Micros,
    readonly backoff: Micros,
    readonly nextCorrelationId: () => number,
    /** The connection its Metadata requests ride (its owner's). */
    readonly connection: string,
  ) {}

  leaderOf(topic: string, partition: number): ActorId | undefined {
    return this.#leaders.get(tpKey(topic, partition));
  }

  invalidate(topic: string, partition: number): void {
    this.#leaders.delete(tpKey(topic, partition));
  }

  /** Asks for the topic's leaders on the next refresh. */
  want(topic: string): void {
    this.#wanted.add(topic);
  }

  get inFlight(): boolean {
    return this.#inFlight !== null;
  }

  /** When the next Metadata request may go out (now if none went out yet). */
  nextAttemptAt(): Micros {
    return this.#lastAttemptAt === null ? 0 : this.#lastAttemptAt + this.backoff;
  }

  /** Sends a Metadata request for the wanted topics if none is in flight and the backoff has passed. */
  maybeRefresh(ctx: Context): void {
    if (this.#inFlight !== null || this.#wanted.size === 0 || this.brokers.length === 0 || ctx.now() < this.nextAttemptAt()) return;
    const broker = this.brokers[this.#nextBroker++ % this.brokers.length] as ActorId;
    const correlationId = this.nextCorrelationId();
    this.#inFlight = { correlationId, broker };
    this.#lastAttemptAt = ctx.now();
    ctx.send(
      broker,
      {
        type: "MetadataRequest",
        correlationId,
        apiVersion: METADATA_API_VERSION,
        clientId: ctx.self,
        topics: [...this.#wanted].sort().map((name) => ({ topicId: null, name })),
      },
      this.connection,
    );
    ctx.setTimer(METADATA_TIMEOUT_TIMER, this.requestTimeout);
  }

  /** Applies the answer to the request in flight; false if it answers no request of ours. */
  onResponse(from: ActorId, response: MetadataResponse, ctx: Context): boolean {
    if (this.#inFlight === null || this.#inFlight.correlationId !== response.correlationId || this.#inFlight.broker !== from) return false;
    this.#inFlight = null;
    ctx.cancelTimer(METADATA_TIMEOUT_TIMER);
    const hosts = new Map(response.brokers.map((broker) => [broker.nodeId, broker.host]));
    for (const topic of response.topics) {
      this.#wanted.delete(topic.name);
      for (const partition of topic.partitions) {
        const host = partition.errorCode === ErrorCode.NONE ? hosts.get(partition.leaderId) : undefined;
        if (host === undefined) this.#leaders.delete(tpKey(topic.name, partition.partitionIndex));
        else this.#leaders.set(tpKey(topic.name, partition.partitionIndex), host);
      }
    }
    return true;
  }

  /** The request in flight failed (disconnect or timeout): the next one goes to another broker after the backoff. */
  failInFlight(ctx: Context): void {
    if (this.#inFlight === null) return;
    this.#inFlight = null;
    ctx.cancelTimer(METADATA_TIMEOUT_TIMER);
  }

  /** The broker the request in flight went to, or null. */
  get inFlightTo(): ActorId | null {
    return this.#inFlight?.broker ?? null;
  }

  /** Whether the request in flight went to `peer`. */
  hasRequestTo(peer: ActorId): boolean {
    return this.#inFlight?.broker === peer;
  }

  /** Known leaders (for snapshots): tpKey -> actor id, sorted. */
  known(): [string, ActorId][] {
    return [...this.#leaders.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }
}
