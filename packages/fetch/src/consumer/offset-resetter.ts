import {
  type ActorId,
  CONSUMER_REPLICA_ID,
  type Context,
  ErrorCode,
  getOrCreate,
  type ListOffsetsRequest,
  type ListOffsetsResponse,
  ListOffsetsTimestamp,
  ms,
  tpKey,
} from "@kcsim/protocol";
import type { OffsetResetObservation } from "../observations.js";
import type { BrokerConnections } from "./broker-connections.js";
import type { ClusterMetadata } from "./cluster-metadata.js";
import type { FetchConfig } from "./fetch-config.js";
import type { MetadataRefresher } from "./metadata-refresher.js";
import type { ListOffsetsStrategy, TopicPartitionState } from "./partition-state.js";
import type { SubscriptionState } from "./subscription-state.js";

export const LIST_OFFSETS_TIMEOUT_TIMER_PREFIX = "fetch.list-offsets-timeout.";

/** ListOffsets v8 (the last before KIP-1005's v9). */
const LIST_OFFSETS_API_VERSION = 8;

/** `ListOffsetsResponse.UNKNOWN_OFFSET`. */
const UNKNOWN_OFFSET = -1;

/** Partition errors after which the leader may have moved: retry after a metadata update. */
const RETRY_WITH_METADATA_UPDATE = new Set<number>([
  ErrorCode.NOT_LEADER_OR_FOLLOWER,
  ErrorCode.FENCED_LEADER_EPOCH,
  ErrorCode.UNKNOWN_LEADER_EPOCH,
  ErrorCode.LEADER_NOT_AVAILABLE,
  ErrorCode.KAFKA_STORAGE_ERROR,
  ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
]);

interface PendingReset {
  readonly strategy: ListOffsetsStrategy;
}

interface PendingListOffsets {
  readonly correlationId: number;
  readonly broker: ActorId;
  /** The partitions asked for, by key, with the strategy each asked with. */
  readonly partitions: ReadonlyMap<string, PendingReset>;
}

/**
 * Resets positions by auto.offset.reset (Kafka's `OffsetFetcher` /
 * `OffsetsRequestManager.resetPositionsIfNeeded`): partitions awaiting a
 * reset are grouped by leader into ListOffsets requests (EARLIEST = the log
 * start, LATEST = the log end, or the LSO under read_committed, as the broker
 * decides). A partition asked for is not asked again until request.timeout.ms
 * has passed; one that failed retries after retry.backoff.ms, with a metadata
 * update when the error says the leader may have moved. The answer only
 * applies if the partition still awaits the same reset (Kafka's
 * `maybeSeekUnvalidated`), and each applied reset is observed as `fetch.reset`.
 */
export class OffsetResetter {
  readonly #config: FetchConfig;
  readonly #subscriptions: SubscriptionState;
  readonly #metadata: ClusterMetadata;
  readonly #refresher: MetadataRefresher;
  readonly #connections: BrokerConnections;
  readonly #nextCorrelationId: () => number;
  readonly #pending = new Map<number, PendingListOffsets>();

  constructor(
    config: FetchConfig,
    subscriptions: SubscriptionState,
    metadata: ClusterMetadata,
    refresher: MetadataRefresher,
    connections: BrokerConnections,
    nextCorrelationId: () => number,
  ) {
    this.#config = config;
    this.#subscriptions = subscriptions;
    this.#metadata = metadata;
    this.#refresher = refresher;
    this.#connections = connections;
    this.#nextCorrelationId = nextCorrelationId;
  }

  /** Sends ListOffsets for every partition awaiting a reset whose leader is known and reachable. */
  maybeSend(ctx: Context): void {
    const now = ctx.now();
    const needing = this.#subscriptions.needingReset(now);
    // Asked on every pass of the fetcher; almost always nothing awaits a reset.
    if (needing.length === 0) return;
    const byBroker = new Map<ActorId, TopicPartitionState[]>();
    const epochs = new Map<string, number>();
    for (const state of needing) {
      const leader = this.#metadata.leader(state.partition);
      if (leader === undefined) {
        this.#refresher.requestUpdate();
        continue;
      }
      if (this.#connections.isUnavailable(leader.broker, now)) continue;
      getOrCreate(byBroker, leader.broker, () => []).push(state);
      epochs.set(state.key, leader.epoch);
    }
    for (const [broker, states] of byBroker) {
      const correlationId = this.#nextCorrelationId();
      const topics = new Map<string, ListOffsetsRequest["topics"][number]["partitions"]>();
      const partitions = new Map<string, PendingReset>();
      for (const state of states) {
        const strategy = state.resetStrategy ?? "latest";
        getOrCreate(topics, state.partition.topic, () => []).push({
          partitionIndex: state.partition.partition,
          currentLeaderEpoch: epochs.get(state.key) ?? -1,
          timestamp: strategy === "earliest" ? ListOffsetsTimestamp.EARLIEST : ListOffsetsTimestamp.LATEST,
        });
        partitions.set(state.key, { strategy });
        // Not asked again while this request may still be answered (Kafka's setNextAllowedRetry).
        state.nextRetryAt = now + this.#config.requestTimeout;
      }
      this.#pending.set(correlationId, { correlationId, broker, partitions });
      this.#connections.requestSent(broker);
      ctx.send(broker, {
        type: "ListOffsetsRequest",
        correlationId,
        apiVersion: LIST_OFFSETS_API_VERSION,
        clientId: this.#config.clientId,
        replicaId: CONSUMER_REPLICA_ID,
        isolationLevel: this.#config.isolationLevel,
        topics: [...topics].map(([name, ps]) => ({ name, partitions: ps })),
      });
      ctx.setTimer(`${LIST_OFFSETS_TIMEOUT_TIMER_PREFIX}${correlationId}`, this.#config.requestTimeout);
    }
  }

  /** Applies a ListOffsets answer; false if it answers no request of ours (late, duplicated, or from the wrong broker). */
  receive(from: ActorId, response: ListOffsetsResponse, ctx: Context): boolean {
    const pending = this.#pending.get(response.correlationId);
    if (pending === undefined || pending.broker !== from) return false;
    this.#pending.delete(response.correlationId);
    ctx.cancelTimer(`${LIST_OFFSETS_TIMEOUT_TIMER_PREFIX}${response.correlationId}`);
    this.#connections.responseReceived(from, ctx.now(), response.throttleTimeMs);
    const unanswered = new Set(pending.partitions.keys());
    const retry: string[] = [];
    for (const topic of response.topics) {
      for (const p of topic.partitions) {
        const key = tpKey(topic.name, p.partitionIndex);
        const asked = pending.partitions.get(key);
        if (asked === undefined || !unanswered.delete(key)) continue;
        if (p.errorCode === ErrorCode.NONE && p.offset !== UNKNOWN_OFFSET) {
          this.#apply(key, asked.strategy, p.offset, ctx);
          continue;
        }
        if (RETRY_WITH_METADATA_UPDATE.has(p.errorCode)) this.#refresher.requestUpdate();
        else if (p.errorCode !== ErrorCode.NONE) ctx.log.warn("ListOffsets failed", { partition: key, error: p.errorCode });
        retry.push(key);
      }
    }
    this.#retryLater([...retry, ...unanswered], ctx);
    return true;
  }

  /** A request timeout timer: returns the broker whose connection the timeout closes, or undefined if nothing was pending. */
  timedOut(timer: string, ctx: Context): ActorId | undefined {
    const correlationId = Number(timer.slice(LIST_OFFSETS_TIMEOUT_TIMER_PREFIX.length));
    const pending = this.#pending.get(correlationId);
    if (pending === undefined) return undefined;
    this.#fail(pending, ctx);
    return pending.broker;
  }

  /** Whether a ListOffsets request to `broker` is in flight. */
  hasRequestsTo(broker: ActorId): boolean {
    for (const pending of this.#pending.values()) if (pending.broker === broker) return true;
    return false;
  }

  /** The connection to `broker` closed: its requests in flight fail and their partitions retry after the backoff. */
  failRequestsTo(broker: ActorId, ctx: Context): void {
    for (const pending of [...this.#pending.values()]) {
      if (pending.broker !== broker) continue;
      ctx.cancelTimer(`${LIST_OFFSETS_TIMEOUT_TIMER_PREFIX}${pending.correlationId}`);
      this.#fail(pending, ctx);
    }
  }

  #fail(pending: PendingListOffsets, ctx: Context): void {
    this.#pending.delete(pending.correlationId);
    this.#refresher.requestUpdate();
    this.#retryLater([...pending.partitions.keys()], ctx);
  }

  #retryLater(keys: readonly string[], ctx: Context): void {
    const at = ctx.now() + ms(this.#config.retryBackoffMs);
    for (const key of keys) {
      const state = this.#subscriptions.getByKey(key);
      if (state?.awaitingReset()) state.nextRetryAt = at;
    }
  }

  #apply(key: string, strategy: ListOffsetsStrategy, offset: number, ctx: Context): void {
    const state = this.#subscriptions.getByKey(key);
    // The partition may have been revoked, seeked or reset differently meanwhile.
    if (state === undefined || !state.awaitingReset() || state.resetStrategy !== strategy) return;
    const reason = state.resetReason ?? "no-committed-offset";
    state.seek(offset);
    ctx.observe({
      type: "fetch.reset",
      topic: state.partition.topic,
      partition: state.partition.partition,
      strategy,
      offset,
      reason,
    } satisfies OffsetResetObservation);
  }
}
