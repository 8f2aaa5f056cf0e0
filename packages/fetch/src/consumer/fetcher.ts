import {
  type ActorId,
  type ConsumerConfig,
  type Context,
  disconnects,
  type Message,
  type Micros,
  type TopicPartition,
  tpKey,
} from "@kcsim/protocol";
import { earliestAfter } from "../earliest-after.js";
import { AssignedLeaders } from "./assigned-leaders.js";
import { BrokerConnections } from "./broker-connections.js";
import { ClusterMetadata, type FetcherTopic } from "./cluster-metadata.js";
import { FetchBuffer } from "./fetch-buffer.js";
import { FetchCollector } from "./fetch-collector.js";
import { type FetchConfig, fetchConfigOf } from "./fetch-config.js";
import { FetchMetrics, type FetchMetricsSnapshot } from "./fetch-metrics.js";
import { FETCH_TIMEOUT_TIMER_PREFIX, FetchRequestManager } from "./fetch-request-manager.js";
import { METADATA_TIMEOUT_TIMER, MetadataRefresher } from "./metadata-refresher.js";
import { LIST_OFFSETS_TIMEOUT_TIMER_PREFIX, OffsetResetter } from "./offset-resetter.js";
import type { TopicPartitionState } from "./partition-state.js";
import { ListedRecords, NO_RECORDS, type PolledRecords } from "./polled-records.js";
import type { OffsetResetStrategy, PositionProblem, RecordSource } from "./record-source.js";
import { SubscriptionState } from "./subscription-state.js";

/** Wakes the fetcher when a backoff ends or metadata is due (nothing else would). */
export const FETCH_WAKEUP_TIMER = "fetch.wakeup";

/** Where the fetcher's own correlation ids start by default: far from the member's, so traces read clearly. */
const DEFAULT_FIRST_CORRELATION_ID = 1_000_000;

export interface FetcherOptions {
  /** The correlation ids of the fetcher's requests (e.g. the member's counter); its own counter by default. */
  readonly nextCorrelationId?: () => number;
}

/**
 * The consumer's fetcher (Kafka's `Fetcher` / `FetchRequestManager` with
 * `FetchCollector`, `FetchBuffer`, `SubscriptionState`, `OffsetFetcher` and
 * `FetchMetricsManager`), living inside the consumer actor and speaking
 * through its Context:
 * - metadata: leaders from MetadataRequest, refreshed on leader errors,
 *   lost requests and every metadata.max.age.ms;
 * - fetches: grouped by leader, one KIP-227 session and at most one fetch in
 *   flight per broker, sent whenever a broker is free and some partition is
 *   fetchable and has nothing buffered, so the next fetch is on the wire
 *   while the application works through the previous one (prefetch);
 * - poll: buffered records in arrival order, at most max.poll.records,
 *   advancing positions; data whose fetch offset no longer matches the
 *   position, or whose partition was revoked or stopped, is dropped;
 * - positions: seek, or reset by auto.offset.reset through ListOffsets, also
 *   after OFFSET_OUT_OF_RANGE.
 * - isolation.level=read_committed: fetches ask for isolation level 1, so
 *   leaders return data only below the last stable offset, with the aborted
 *   transactions overlapping it; their batches are skipped, control
 *   records are never handed out (under either level), a reset to latest
 *   is the last stable offset, and lag is measured to it.
 *
 * - connections: a request that times out, or a SimDisconnect from a broker
 *   (its process is not running: the connection was reset), closes the
 *   connection as Kafka's NetworkClient does: every request in flight to that
 *   broker fails at once, the broker waits out reconnect.backoff.ms, and
 *   metadata is refreshed.
 *
 * Messages: MetadataResponse, ListOffsetsResponse, FetchResponse,
 * SimDisconnect. Timers: `fetch.*`. Call `metrics(now)` for the
 * consumer-fetch-manager metrics.
 */
export class Fetcher implements RecordSource {
  readonly #config: FetchConfig;
  readonly #subscriptions = new SubscriptionState();
  readonly #metadata: ClusterMetadata;
  readonly #connections: BrokerConnections;
  readonly #refresher: MetadataRefresher;
  readonly #resetter: OffsetResetter;
  readonly #fetches: FetchRequestManager;
  readonly #buffer = new FetchBuffer();
  readonly #metrics = new FetchMetrics();
  readonly #collector: FetchCollector;
  readonly #assignedLeaders: AssignedLeaders;
  /** When FETCH_WAKEUP_TIMER is armed to fire, if it is. */
  #wakeupAt: Micros | null = null;

  constructor(config: ConsumerConfig, bootstrap: readonly ActorId[], topics: readonly FetcherTopic[], options: FetcherOptions = {}) {
    if (bootstrap.length === 0) throw new RangeError("the fetcher needs at least one bootstrap broker");
    this.#config = fetchConfigOf(config);
    let next = DEFAULT_FIRST_CORRELATION_ID;
    const nextCorrelationId = options.nextCorrelationId ?? (() => next++);
    this.#metadata = new ClusterMetadata(topics);
    this.#connections = new BrokerConnections(this.#config.reconnectBackoffMs, this.#config.reconnectBackoffMaxMs);
    this.#refresher = new MetadataRefresher(this.#config, this.#metadata, [...bootstrap], this.#connections, nextCorrelationId);
    this.#resetter = new OffsetResetter(
      this.#config,
      this.#subscriptions,
      this.#metadata,
      this.#refresher,
      this.#connections,
      nextCorrelationId,
    );
    this.#fetches = new FetchRequestManager(
      this.#config,
      this.#metadata,
      this.#refresher,
      this.#connections,
      this.#metrics,
      nextCorrelationId,
    );
    this.#collector = new FetchCollector(this.#config, this.#subscriptions, this.#buffer, this.#metrics, this.#refresher);
    this.#assignedLeaders = new AssignedLeaders(this.#metadata, this.#subscriptions);
  }

  assign(partitions: readonly TopicPartition[], ctx: Context): void {
    const removed = this.#subscriptions.assign(partitions);
    if (removed.length > 0) {
      const gone = new Set(removed.map((state) => state.key));
      this.#collector.drop((key) => gone.has(key), ctx.now());
    }
    this.#metrics.retainPartitions(new Set(partitions.map((tp) => tpKey(tp.topic, tp.partition))));
    this.#pump(ctx);
  }

  setFetchable(partitions: readonly TopicPartition[], fetchable: boolean, ctx: Context): void {
    const changed = new Set<string>();
    for (const partition of partitions) {
      const state = this.#subscriptions.get(partition);
      if (state === undefined) continue;
      state.paused = !fetchable;
      changed.add(state.key);
    }
    if (!fetchable) this.#collector.drop((key) => changed.has(key), ctx.now());
    this.#pump(ctx);
  }

  seek(partition: TopicPartition, offset: number, ctx: Context): void {
    const state = this.#subscriptions.get(partition);
    if (state === undefined) {
      ctx.log.warn("seek on a partition the fetcher does not hold", { partition: tpKey(partition.topic, partition.partition), offset });
      return;
    }
    state.seek(offset);
    this.#collector.drop((key) => key === state.key, ctx.now());
    this.#pump(ctx);
  }

  resetPosition(partition: TopicPartition, strategy: OffsetResetStrategy, ctx: Context): void {
    const state = this.#subscriptions.get(partition);
    if (state === undefined) {
      ctx.log.warn("reset of a partition the fetcher does not hold", { partition: tpKey(partition.topic, partition.partition), strategy });
      return;
    }
    this.#collector.drop((key) => key === state.key, ctx.now());
    if (strategy === "none") {
      // NoOffsetForPartitionException: nothing to start from, and no strategy to find something.
      state.clearPosition();
      this.#subscriptions.reportProblem(state, "no-offset");
    } else {
      state.requestReset(strategy, "no-committed-offset");
    }
    this.#pump(ctx);
  }

  position(partition: TopicPartition): number | null {
    return this.#subscriptions.get(partition)?.position ?? null;
  }

  /**
   * Buffered records for the application (at most min(maxRecords,
   * max.poll.records)). Prefetch follows: partitions whose data is now
   * consumed are fetched again before the application gets its records.
   */
  poll(maxRecords: number, ctx: Context): PolledRecords {
    const records = this.#collector.collect(maxRecords, ctx.now());
    this.#pump(ctx);
    return records.length === 0 ? NO_RECORDS : new ListedRecords(records);
  }

  hasRecords(): boolean {
    return this.#collector.hasRecords();
  }

  takePositionProblems(): PositionProblem[] {
    return this.#subscriptions.takeProblems();
  }

  lag(partition: TopicPartition): number | null {
    return this.#subscriptions.get(partition)?.lag(this.#config.isolationLevel) ?? null;
  }

  receive(from: ActorId, message: Message, ctx: Context): boolean {
    switch (message.type) {
      case "FetchResponse":
        this.#collector.receive(this.#fetches.receive(from, message, ctx) ?? [], ctx);
        break;
      case "ListOffsetsResponse":
        this.#resetter.receive(from, message, ctx);
        break;
      case "MetadataResponse":
        if (!this.#refresher.receive(from, message, ctx)) return false;
        // New leaders (or the same ones again): partitions held back by a leader error may be fetched.
        for (const state of this.#subscriptions.all()) state.awaitingMetadata = false;
        break;
      case "SimDisconnect":
        // Another client's connection, or nothing of ours in flight to the peer (a repeat): not ours.
        if (!disconnects(message, "") || !this.#hasRequestsInFlightTo(from)) return false;
        this.#disconnect(from, ctx);
        break;
      default:
        return false;
    }
    this.#pump(ctx);
    return true;
  }

  fire(timer: string, ctx: Context): boolean {
    if (!timer.startsWith("fetch.")) return false;
    if (timer === FETCH_WAKEUP_TIMER) this.#wakeupAt = null;
    let disconnected: ActorId | undefined;
    if (timer === METADATA_TIMEOUT_TIMER) disconnected = this.#refresher.timedOut(ctx);
    else if (timer.startsWith(FETCH_TIMEOUT_TIMER_PREFIX)) disconnected = this.#fetches.timedOut(timer, ctx);
    else if (timer.startsWith(LIST_OFFSETS_TIMEOUT_TIMER_PREFIX)) disconnected = this.#resetter.timedOut(timer, ctx);
    if (disconnected !== undefined) {
      // A request timed out: NetworkClient closes its connection, failing everything else in flight on it.
      ctx.closeConnection(disconnected);
      this.#disconnect(disconnected, ctx);
    }
    this.#pump(ctx);
    return true;
  }

  nextReadyAt(_now: Micros): Micros | null {
    return null;
  }

  /** Partitions with fetched data the application has not taken yet (they are not fetched meanwhile). */
  bufferedPartitions(): TopicPartition[] {
    return this.#collector.bufferedPartitions();
  }

  /** The consumer-fetch-manager metrics at `now` (rates over virtual time). */
  metrics(now: Micros): FetchMetricsSnapshot {
    return this.#metrics.snapshot(now);
  }

  #hasRequestsInFlightTo(broker: ActorId): boolean {
    return this.#fetches.hasRequestTo(broker) || this.#resetter.hasRequestsTo(broker) || this.#refresher.hasRequestTo(broker);
  }

  /**
   * The connection to `broker` is gone (a request to it got no answer in
   * time, or the broker reset it): Kafka's NetworkClient closes it, failing
   * every request in flight on it as a disconnect, puts the broker in
   * reconnect backoff and asks for a metadata update.
   */
  #disconnect(broker: ActorId, ctx: Context): void {
    this.#connections.disconnected(broker, ctx.now());
    this.#fetches.failRequestsTo(broker, ctx);
    this.#resetter.failRequestsTo(broker, ctx);
    this.#refresher.failRequestsTo(broker, ctx);
    this.#refresher.requestUpdate();
  }

  /** Sends whatever can go now (metadata, ListOffsets, fetches), then arms the wake-up for whatever must wait. */
  #pump(ctx: Context): void {
    const now = ctx.now();
    const wanted = this.#subscriptions.size > 0;
    if (wanted) {
      this.#refresher.maybeSend(ctx);
      this.#resetter.maybeSend(ctx);
      // With a fetch in flight to every leader of the assignment (most passes), no partition could go: none is looked at.
      const leaders = this.#assignedLeaders.nodes();
      if (leaders === null || !this.#fetches.fetchingFromAll(leaders)) this.#fetches.maybeSend(this.#fetchablePartitions(), ctx);
      // Sending may have found an unknown leader and asked for metadata.
      this.#refresher.maybeSend(ctx);
    }
    // The earliest of what is due after now.
    let next: Micros | null = null;
    if (wanted) {
      next = earliestAfter(now, next, this.#refresher.dueAt());
      next = earliestAfter(now, next, this.#subscriptions.nextResetRetryAt(now));
      next = earliestAfter(now, next, this.#connections.nextAvailableAt(now));
    }
    // Touch the timer only when its due time changes: every call is an event in the actor's trace.
    if (next === this.#wakeupAt) return;
    if (next === null) ctx.cancelTimer(FETCH_WAKEUP_TIMER);
    else ctx.setTimer(FETCH_WAKEUP_TIMER, next - now);
    this.#wakeupAt = next;
  }

  /** Kafka's `fetchablePartitions`: fetchable, and nothing buffered for them. */
  #fetchablePartitions(): TopicPartitionState[] {
    const buffered = this.#buffer.bufferedPartitions();
    const fetchable: TopicPartitionState[] = [];
    for (const state of this.#subscriptions.all()) if (state.isFetchable() && !buffered.has(state.key)) fetchable.push(state);
    return fetchable;
  }
}
