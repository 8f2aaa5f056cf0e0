import {
  type ActorId,
  type Context,
  ErrorCode,
  GROUP_METADATA_TOPIC_NAME,
  type MetadataResponse,
  type Micros,
  parseTpKey,
  type WriteTxnMarkersRequest,
  type WriteTxnMarkersResponse,
} from "@kcsim/protocol";
import { METADATA_TIMEOUT_TIMER, PartitionLeaders } from "./partition-leaders.js";

/** The marker channel's connections to brokers and group coordinators (Kafka: TransactionMarkerChannelManager's own NetworkClient). */
export const TXN_MARKER_CONNECTION = "txn-markers";
/** The timer that sends markers waiting for a retry (or for leaders). */
export const MARKER_RETRY_TIMER = "txn-marker-retry";

/** Prefix of the timers of WriteTxnMarkers requests in flight (one per request: prefix + correlation id). */
export const MARKER_REQUEST_TIMEOUT_PREFIX = "txn-marker-timeout:";

/** WriteTxnMarkers v1 (what coordinators before Kafka 4.2 send): every marker is of transaction version 0. */
const WRITE_TXN_MARKERS_API_VERSION = 1;
/**
 * WriteTxnMarkers v2 (KIP-1228, Kafka 4.2): each marker carries its
 * transaction's version. Sent when a marker's version is not v1's implied
 * 0 (Kafka 4.2 always sends v2; for version 0 markers the two are the same).
 */
const WRITE_TXN_MARKERS_V2_API_VERSION = 2;

/** The markers one transaction still has to get written. */
export interface MarkerTarget {
  readonly transactionalId: string;
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly committed: boolean;
  readonly coordinatorEpoch: number;
  /** The transaction's `clientTransactionVersion` (TransactionMarkerChannelManager#addTxnMarkersToBrokerQueue). */
  readonly transactionVersion: number;
  /** tpKeys. */
  readonly partitions: readonly string[];
}

/** What came back for one partition's marker (NETWORK_EXCEPTION: connection reset; REQUEST_TIMED_OUT: no answer). */
export interface MarkerResult {
  readonly transactionalId: string;
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly committed: boolean;
  readonly topic: string;
  readonly partition: number;
  readonly errorCode: number;
}

interface PendingMarkers {
  readonly target: MarkerTarget;
  /** Tells this round of markers from an earlier one of the same transactional id. */
  readonly generation: number;
  /** Waiting to be sent. */
  readonly queued: Set<string>;
  /** In a request in flight. */
  readonly inFlight: Set<string>;
}

interface InFlightRequest {
  readonly destination: ActorId;
  readonly entries: readonly { readonly transactionalId: string; readonly generation: number; readonly partitions: readonly string[] }[];
}

export interface TxnMarkerChannelConfig {
  /**
   * Correlation ids start above this: each start of the coordinator uses
   * its own range, so a late answer to a request of an earlier life never
   * matches a new request.
   */
  readonly correlationIdBase: number;
  readonly brokers: readonly ActorId[];
  readonly groupCoordinators: readonly ActorId[];
  readonly requestTimeout: Micros;
  readonly retryBackoff: Micros;
}

/**
 * Sends transaction markers (Kafka's `TransactionMarkerChannelManager`):
 * markers for a `__consumer_offsets` partition p go to the group
 * coordinator groupCoordinators[p mod n]; markers for data partitions go to
 * the partition's leader, found with Metadata requests to the brokers.
 * Every send drains what is queued into one WriteTxnMarkers request per
 * destination (one marker entry per transaction). A request fails as a
 * whole when its destination resets the connection (SimDisconnect) or does
 * not answer within request.timeout.ms. The coordinator decides what to do
 * with each partition's result (`retry`, done, or `remove` the transaction);
 * retries go out after the backoff.
 */
export class TxnMarkerChannel {
  readonly #pending = new Map<string, PendingMarkers>();
  readonly #inFlight = new Map<number, InFlightRequest>();
  readonly #leaders: PartitionLeaders;
  #correlation = 0;
  #generation = 0;

  constructor(readonly config: TxnMarkerChannelConfig) {
    this.#correlation = config.correlationIdBase;
    this.#leaders = new PartitionLeaders(
      config.brokers,
      config.requestTimeout,
      config.retryBackoff,
      () => ++this.#correlation,
      TXN_MARKER_CONNECTION,
    );
  }

  /** Starts writing a transaction's markers (Kafka's `addTxnMarkersToSend`). */
  addTxnMarkersToSend(ctx: Context, target: MarkerTarget): void {
    this.#pending.set(target.transactionalId, {
      target,
      generation: ++this.#generation,
      queued: new Set(target.partitions),
      inFlight: new Set(),
    });
    this.drain(ctx);
  }

  /** Stops sending the transaction's markers (answers still in flight are ignored). */
  removeMarkersForTxnId(transactionalId: string): void {
    this.#pending.delete(transactionalId);
  }

  /** Whether the transaction has markers waiting or in flight. */
  isBusy(transactionalId: string): boolean {
    const pending = this.#pending.get(transactionalId);
    return pending !== undefined && (pending.queued.size > 0 || pending.inFlight.size > 0);
  }

  /** Sends the partition's marker again after the backoff, to a leader looked up afresh for a data partition. */
  retry(ctx: Context, transactionalId: string, topicPartition: string): void {
    const pending = this.#pending.get(transactionalId);
    if (pending === undefined) return;
    const { topic, partition } = parseTpKey(topicPartition);
    if (topic !== GROUP_METADATA_TOPIC_NAME) this.#leaders.invalidate(topic, partition);
    pending.queued.add(topicPartition);
    if (!ctx.hasTimer(MARKER_RETRY_TIMER)) ctx.setTimer(MARKER_RETRY_TIMER, this.config.retryBackoff);
  }

  /** Sends every queued marker whose destination is known; asks for unknown leaders. */
  drain(ctx: Context): void {
    const batches = new Map<ActorId, Map<string, string[]>>();
    let unroutable = false;
    for (const [transactionalId, pending] of this.#pending) {
      for (const topicPartition of [...pending.queued]) {
        const destination = this.#destinationOf(topicPartition);
        if (destination === undefined) {
          unroutable = true;
          continue;
        }
        pending.queued.delete(topicPartition);
        pending.inFlight.add(topicPartition);
        let byTxn = batches.get(destination);
        if (byTxn === undefined) {
          byTxn = new Map();
          batches.set(destination, byTxn);
        }
        const partitions = byTxn.get(transactionalId);
        if (partitions === undefined) byTxn.set(transactionalId, [topicPartition]);
        else partitions.push(topicPartition);
      }
    }
    for (const [destination, byTxn] of batches) this.#send(ctx, destination, byTxn);
    if (!unroutable) return;
    this.#leaders.maybeRefresh(ctx);
    if (!this.#leaders.inFlight && !ctx.hasTimer(MARKER_RETRY_TIMER)) {
      ctx.setTimer(MARKER_RETRY_TIMER, Math.max(1, this.#leaders.nextAttemptAt() - ctx.now()));
    }
  }

  /** The results of a WriteTxnMarkers answer (empty if it answers no request in flight). */
  onWriteTxnMarkersResponse(from: ActorId, response: WriteTxnMarkersResponse, ctx: Context): MarkerResult[] {
    const request = this.#inFlight.get(response.correlationId);
    if (request === undefined || request.destination !== from) return [];
    this.#inFlight.delete(response.correlationId);
    ctx.cancelTimer(MARKER_REQUEST_TIMEOUT_PREFIX + response.correlationId);
    const errors = new Map<string, number>();
    for (const marker of response.markers) {
      for (const topic of marker.topics) {
        for (const partition of topic.partitions)
          errors.set(`${marker.producerId}:${topic.name}-${partition.partitionIndex}`, partition.errorCode);
      }
    }
    return this.#results(
      request,
      (producerId, topicPartition) => errors.get(`${producerId}:${topicPartition}`) ?? ErrorCode.UNKNOWN_SERVER_ERROR,
    );
  }

  /** The channel's connection to `peer` is gone: every request in flight on it fails (NETWORK_EXCEPTION). */
  onDisconnect(peer: ActorId, ctx: Context): MarkerResult[] {
    if (this.#leaders.hasRequestTo(peer)) {
      this.#leaders.failInFlight(ctx);
      this.drain(ctx);
    }
    const results: MarkerResult[] = [];
    for (const [correlationId, request] of [...this.#inFlight]) {
      if (request.destination !== peer) continue;
      this.#inFlight.delete(correlationId);
      ctx.cancelTimer(MARKER_REQUEST_TIMEOUT_PREFIX + correlationId);
      results.push(...this.#results(request, () => ErrorCode.NETWORK_EXCEPTION));
    }
    return results;
  }

  onMetadataResponse(from: ActorId, response: MetadataResponse, ctx: Context): void {
    if (this.#leaders.onResponse(from, response, ctx)) this.drain(ctx);
  }

  /**
   * Handles the channel's timers: the retry timer drains; a request timeout
   * fails its request (REQUEST_TIMED_OUT results). Null for a timer that is
   * not the channel's.
   */
  onTimer(name: string, ctx: Context): MarkerResult[] | null {
    if (name === MARKER_RETRY_TIMER) {
      this.drain(ctx);
      return [];
    }
    // A request timed out: NetworkClient closes its connection, and everything else in flight on it fails as a disconnect.
    if (name === METADATA_TIMEOUT_TIMER) {
      const broker = this.#leaders.inFlightTo;
      this.#leaders.failInFlight(ctx);
      if (broker === null) {
        this.drain(ctx);
        return [];
      }
      ctx.closeConnection(broker, TXN_MARKER_CONNECTION);
      const results = this.onDisconnect(broker, ctx);
      this.drain(ctx);
      return results;
    }
    if (!name.startsWith(MARKER_REQUEST_TIMEOUT_PREFIX)) return null;
    const correlationId = Number(name.slice(MARKER_REQUEST_TIMEOUT_PREFIX.length));
    const request = this.#inFlight.get(correlationId);
    if (request === undefined) return [];
    this.#inFlight.delete(correlationId);
    ctx.closeConnection(request.destination, TXN_MARKER_CONNECTION);
    return [...this.#results(request, () => ErrorCode.REQUEST_TIMED_OUT), ...this.onDisconnect(request.destination, ctx)];
  }

  /** What the channel holds (for snapshots). */
  describe(): { transactionalId: string; queued: string[]; inFlight: string[] }[] {
    return [...this.#pending.values()].map((pending) => ({
      transactionalId: pending.target.transactionalId,
      queued: [...pending.queued].sort(),
      inFlight: [...pending.inFlight].sort(),
    }));
  }

  /** The known data-partition leaders (for snapshots). */
  knownLeaders(): [string, ActorId][] {
    return this.#leaders.known();
  }

  #destinationOf(topicPartition: string): ActorId | undefined {
    const { topic, partition } = parseTpKey(topicPartition);
    if (topic === GROUP_METADATA_TOPIC_NAME) {
      const coordinators = this.config.groupCoordinators;
      return coordinators[partition % coordinators.length];
    }
    const leader = this.#leaders.leaderOf(topic, partition);
    if (leader === undefined) this.#leaders.want(topic);
    return leader;
  }

  #send(ctx: Context, destination: ActorId, byTxn: ReadonlyMap<string, readonly string[]>): void {
    const correlationId = ++this.#correlation;
    const entries: { transactionalId: string; generation: number; partitions: readonly string[] }[] = [];
    const markers: WriteTxnMarkersRequest["markers"][number][] = [];
    for (const [transactionalId, partitions] of byTxn) {
      const pending = this.#pending.get(transactionalId);
      if (pending === undefined) continue;
      const { target, generation } = pending;
      entries.push({ transactionalId, generation, partitions });
      const byTopic = new Map<string, number[]>();
      for (const topicPartition of partitions) {
        const { topic, partition } = parseTpKey(topicPartition);
        const list = byTopic.get(topic);
        if (list === undefined) byTopic.set(topic, [partition]);
        else list.push(partition);
      }
      markers.push({
        producerId: target.producerId,
        producerEpoch: target.producerEpoch,
        transactionResult: target.committed,
        topics: [...byTopic].map(([name, partitionIndexes]) => ({ name, partitionIndexes })),
        coordinatorEpoch: target.coordinatorEpoch,
        transactionVersion: target.transactionVersion,
      });
    }
    this.#inFlight.set(correlationId, { destination, entries });
    ctx.send(
      destination,
      {
        type: "WriteTxnMarkersRequest",
        correlationId,
        apiVersion: markers.some((marker) => marker.transactionVersion !== 0)
          ? WRITE_TXN_MARKERS_V2_API_VERSION
          : WRITE_TXN_MARKERS_API_VERSION,
        clientId: ctx.self,
        markers,
      },
      TXN_MARKER_CONNECTION,
    );
    ctx.setTimer(MARKER_REQUEST_TIMEOUT_PREFIX + correlationId, this.config.requestTimeout);
  }

  /** One result per partition of a finished request whose transaction is still being completed. */
  #results(request: InFlightRequest, errorOf: (producerId: number, topicPartition: string) => number): MarkerResult[] {
    const results: MarkerResult[] = [];
    for (const { transactionalId, generation, partitions } of request.entries) {
      const pending = this.#pending.get(transactionalId);
      if (pending === undefined || pending.generation !== generation) continue;
      const { target } = pending;
      for (const topicPartition of partitions) {
        if (!pending.inFlight.delete(topicPartition)) continue;
        const { topic, partition } = parseTpKey(topicPartition);
        results.push({
          transactionalId,
          producerId: target.producerId,
          producerEpoch: target.producerEpoch,
          committed: target.committed,
          topic,
          partition,
          errorCode: errorOf(target.producerId, topicPartition),
        });
      }
    }
    return results;
  }
}
