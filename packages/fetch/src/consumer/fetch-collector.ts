import { type Context, ErrorCode, type Micros, type TopicPartition } from "@kcsim/protocol";
import { CompletedFetch } from "./completed-fetch.js";
import type { FetchBuffer } from "./fetch-buffer.js";
import type { FetchConfig } from "./fetch-config.js";
import type { FetchMetrics } from "./fetch-metrics.js";
import { FetchMetricsAggregator } from "./fetch-metrics-aggregator.js";
import type { FetchedPartition } from "./fetch-request-manager.js";
import type { MetadataRefresher } from "./metadata-refresher.js";
import type { TopicPartitionState } from "./partition-state.js";
import type { ConsumedRecord } from "./record-source.js";
import type { SubscriptionState } from "./subscription-state.js";

/** Partition errors after which the leader is not asked again until new metadata arrives (Kafka's `awaitUpdate`). */
const AWAIT_METADATA_ERRORS = new Set<number>([
  ErrorCode.NOT_LEADER_OR_FOLLOWER,
  ErrorCode.FENCED_LEADER_EPOCH,
  ErrorCode.LEADER_NOT_AVAILABLE,
  ErrorCode.KAFKA_STORAGE_ERROR,
  ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
  ErrorCode.UNKNOWN_TOPIC_ID,
]);

/**
 * Between the wire and the application (Kafka's `FetchCollector`): takes in
 * each partition of a fetch answer, keeping its data only if the partition
 * still has a position equal to the offset it was fetched at and reacting to
 * its error, then hands buffered records out to poll, advancing positions.
 *
 * Kafka initializes a partition's data lazily, inside poll(); here it is done
 * as the answer arrives, so a leader error or OFFSET_OUT_OF_RANGE is acted on
 * even while the application is not polling, and data with nothing for the
 * application (transaction markers, aborted transactions under
 * read_committed) never sits in the buffer.
 */
export class FetchCollector {
  readonly #config: FetchConfig;
  readonly #subscriptions: SubscriptionState;
  readonly #buffer: FetchBuffer;
  readonly #metrics: FetchMetrics;
  readonly #refresher: MetadataRefresher;

  constructor(
    config: FetchConfig,
    subscriptions: SubscriptionState,
    buffer: FetchBuffer,
    metrics: FetchMetrics,
    refresher: MetadataRefresher,
  ) {
    this.#config = config;
    this.#subscriptions = subscriptions;
    this.#buffer = buffer;
    this.#metrics = metrics;
    this.#refresher = refresher;
  }

  /** The partitions of one usable fetch answer (Kafka's `handleFetchSuccess` buffering, then `initialize`). */
  receive(fetched: readonly FetchedPartition[], ctx: Context): void {
    if (fetched.length === 0) return;
    const aggregator = new FetchMetricsAggregator(
      this.#metrics,
      fetched.map((p) => p.key),
    );
    for (const partition of fetched) this.#initialize(partition, aggregator, ctx);
  }

  /**
   * Kafka's `collectFetch`: buffered data oldest first, at most
   * min(maxRecords, max.poll.records) records. Data whose partition is no
   * longer held, is stopped, or has moved since is dropped.
   */
  collect(maxRecords: number, now: Micros): ConsumedRecord[] {
    const limit = Math.min(maxRecords, this.#config.maxPollRecords);
    const out: ConsumedRecord[] = [];
    for (const fetch of this.#buffer.pending()) {
      if (out.length >= limit) break;
      const state = this.#deliverableTo(fetch);
      if (state === undefined) {
        fetch.drain(now);
        continue;
      }
      const records = fetch.fetchRecords(limit - out.length, now);
      // Skip what the application never sees (control batches, a compacted tail) now, so the position covers it.
      fetch.advanceToNextRecord(now);
      // The data continued from the position, so its next fetch offset is the new position.
      state.position = fetch.nextFetchOffset;
      for (const record of records) out.push(record);
      const lag = state.lag(this.#config.isolationLevel);
      if (lag !== null) this.#metrics.recordPartitionLag(state.partition, lag, now);
      const lead = state.lead();
      if (lead !== null) this.#metrics.recordPartitionLead(state.partition, lead, now);
      // Kafka moves a partition whose data was read to the end of the fetch order.
      if (fetch.isConsumed && fetch.bytesRead > 0) this.#subscriptions.moveToEnd(fetch.key);
    }
    return out;
  }

  hasRecords(): boolean {
    return this.#buffer.pending().some((fetch) => this.#deliverableTo(fetch) !== undefined);
  }

  /** Drops the buffered data of the partitions `drop` selects. */
  drop(drop: (key: string) => boolean, now: Micros): void {
    this.#buffer.drop(drop, now);
  }

  bufferedPartitions(): TopicPartition[] {
    return this.#buffer.pending().map((fetch) => fetch.partition);
  }

  /**
   * The state of the partition buffered data may be handed to: held, not
   * stopped, and still positioned where the data continues (Kafka's checks
   * in `fetchRecords`); undefined if the data is stale.
   */
  #deliverableTo(fetch: CompletedFetch): TopicPartitionState | undefined {
    const state = this.#subscriptions.getByKey(fetch.key);
    if (state === undefined || !state.hasValidPosition() || state.paused || state.position !== fetch.nextFetchOffset) return undefined;
    return state;
  }

  /** Kafka's `initialize`. */
  #initialize(fetched: FetchedPartition, aggregator: FetchMetricsAggregator, ctx: Context): void {
    const now = ctx.now();
    const { key, data, fetchOffset } = fetched;
    const state = this.#subscriptions.getByKey(key);
    if (state === undefined || !state.hasValidPosition()) {
      // Revoked, or reset, while the fetch was in flight.
      aggregator.record(key, 0, 0, now);
      return;
    }
    if (data.errorCode !== ErrorCode.NONE) {
      aggregator.record(key, 0, 0, now);
      this.#handleError(state, data.errorCode, fetchOffset, ctx);
      // Kafka moves a partition that failed to the end of the fetch order.
      this.#subscriptions.moveToEnd(key);
      return;
    }
    if (state.position !== fetchOffset) {
      // Fetched before a seek: not the data that follows the position.
      aggregator.record(key, 0, 0, now);
      return;
    }
    if (data.highWatermark >= 0) state.highWatermark = data.highWatermark;
    if (data.logStartOffset >= 0) state.logStartOffset = data.logStartOffset;
    if (data.lastStableOffset >= 0) state.lastStableOffset = data.lastStableOffset;
    if (state.paused) {
      // Stopped while the fetch was in flight: its data is dropped (RecordSource.setFetchable).
      aggregator.record(key, 0, 0, now);
      return;
    }
    const completed = new CompletedFetch(state.partition, key, data, fetchOffset, aggregator, this.#config.isolationLevel);
    const hasRecord = completed.advanceToNextRecord(now);
    // Offsets with nothing for the application (control batches, compacted away) are consumed at once.
    state.position = Math.max(fetchOffset, completed.nextFetchOffset);
    if (hasRecord) this.#buffer.add(completed);
  }

  /** Kafka's `handleInitializeErrors`. */
  #handleError(state: TopicPartitionState, errorCode: number, fetchOffset: number, ctx: Context): void {
    if (AWAIT_METADATA_ERRORS.has(errorCode)) {
      this.#refresher.requestUpdate();
      state.awaitingMetadata = true;
      return;
    }
    if (errorCode === ErrorCode.OFFSET_OUT_OF_RANGE) {
      // A stale answer (the position moved since) says nothing about the current position.
      if (state.position !== fetchOffset) return;
      const strategy = this.#config.defaultResetStrategy;
      if (strategy === "none") {
        state.outOfRange = true;
        this.#subscriptions.reportProblem(state, "out-of-range");
      } else {
        state.requestReset(strategy, "out-of-range");
      }
      return;
    }
    if (errorCode !== ErrorCode.UNKNOWN_LEADER_EPOCH && errorCode !== ErrorCode.UNKNOWN_SERVER_ERROR) {
      ctx.log.warn("unexpected fetch error", { partition: state.key, error: errorCode, fetchOffset });
    }
  }
}
