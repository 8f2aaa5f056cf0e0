import {
  type ActorId,
  CONSUMER_REPLICA_ID,
  type Context,
  ErrorCode,
  errorName,
  type FetchRequest,
  type FetchResponse,
  type FetchResponsePartition,
  type Micros,
  type RecordBatch,
  type TopicPartition,
  tpKey,
} from "@kcsim/protocol";
import type { FetchRoundObservation } from "../observations.js";
import { isFull } from "../session/fetch-metadata.js";
import type { FetchRequestData, PartitionFetchData, SessionPartition } from "../session/fetch-request-data.js";
import { fetchRequestFor } from "../session/fetch-request-for.js";
import { type FetchRequestBuilder, FetchSessionHandler } from "../session/fetch-session-handler.js";
import { fetchRequestBytes, fetchResponseBytes } from "../session/fetch-wire-size.js";
import type { BrokerConnections } from "./broker-connections.js";
import type { ClusterMetadata, PartitionLeader } from "./cluster-metadata.js";
import type { FetchConfig } from "./fetch-config.js";
import type { FetchMetrics } from "./fetch-metrics.js";
import type { MetadataRefresher } from "./metadata-refresher.js";
import type { TopicPartitionState } from "./partition-state.js";

export const FETCH_TIMEOUT_TIMER_PREFIX = "fetch.request-timeout.";

/** Consumers fetch with no log start offset (`FetchRequest.INVALID_LOG_START_OFFSET`) and no last fetched epoch. */
const INVALID_LOG_START_OFFSET = -1;
const NO_LAST_FETCHED_EPOCH = -1;

/**
 * The session entry for a partition's next fetch: the one made last time
 * while its fetch data stays the same (the session handler then compares
 * nothing), else a new one, kept on the partition state.
 */
function sessionEntryOf(
  state: TopicPartitionState,
  topicId: string,
  position: number,
  maxBytes: number,
  leaderEpoch: number,
): SessionPartition {
  const last = state.fetchEntry;
  if (
    last !== null &&
    last.data.topicId === topicId &&
    last.data.fetchOffset === position &&
    last.data.partitionMaxBytes === maxBytes &&
    last.data.currentLeaderEpoch === leaderEpoch
  ) {
    return last;
  }
  const data: PartitionFetchData = {
    topicId,
    fetchOffset: position,
    logStartOffset: INVALID_LOG_START_OFFSET,
    partitionMaxBytes: maxBytes,
    currentLeaderEpoch: leaderEpoch,
    lastFetchedEpoch: NO_LAST_FETCHED_EPOCH,
  };
  const entry: SessionPartition = { topic: state.partition.topic, partition: state.partition.partition, data };
  state.fetchEntry = entry;
  return entry;
}

/** The fetch offset of each partition of the session a request was built for, by tpKey. */
function requestedOffsetsOf(data: FetchRequestData): Map<string, number> {
  const offsets = new Map<string, number>();
  const partitions = data.sessionPartitions;
  for (let i = 0; i < partitions.length; i++) {
    const p = partitions[i] as SessionPartition;
    offsets.set(tpKey(p.topic, p.partition), p.data.fetchOffset);
  }
  return offsets;
}

interface PendingFetch {
  readonly correlationId: number;
  readonly nodeId: number;
  readonly broker: ActorId;
  readonly data: FetchRequestData;
  readonly request: FetchRequest;
  readonly sentAt: Micros;
}

/** A partition's part of a usable fetch response, with the offset its request asked for. */
export interface FetchedPartition {
  readonly partition: TopicPartition;
  readonly key: string;
  readonly fetchOffset: number;
  readonly data: FetchResponsePartition;
}

/** User records in a response partition (control batches are never handed out). */
function recordCount(data: FetchResponsePartition): number {
  let records = 0;
  // Indexed: a delivered message's arrays are frozen, and for-of over a frozen array makes an iterator each time.
  const batches = data.records;
  for (let i = 0; i < batches.length; i++) {
    const batch = batches[i] as RecordBatch;
    if (!batch.isControl) records += batch.records.length;
  }
  return records;
}

/**
 * The sending half of Kafka's `AbstractFetch`: one KIP-227 session handler
 * per broker, at most one fetch in flight per broker, requests built from
 * the fetchable partitions grouped by leader, and the session-level handling
 * of each answer (a session error or a lost response sends the next request
 * full). Every round trip is observed as `fetch.round`.
 */
export class FetchRequestManager {
  readonly #config: FetchConfig;
  readonly #metadata: ClusterMetadata;
  readonly #refresher: MetadataRefresher;
  readonly #connections: BrokerConnections;
  readonly #metrics: FetchMetrics;
  readonly #nextCorrelationId: () => number;
  readonly #sessions = new Map<number, FetchSessionHandler>();
  readonly #pending = new Map<number, PendingFetch>();

  constructor(
    config: FetchConfig,
    metadata: ClusterMetadata,
    refresher: MetadataRefresher,
    connections: BrokerConnections,
    metrics: FetchMetrics,
    nextCorrelationId: () => number,
  ) {
    this.#config = config;
    this.#metadata = metadata;
    this.#refresher = refresher;
    this.#connections = connections;
    this.#metrics = metrics;
    this.#nextCorrelationId = nextCorrelationId;
  }

  /**
   * The partition's leader, looked up once per metadata version (the
   * metadata changes only by an update, which moves its version): asked for
   * every fetchable partition on every pass.
   */
  #leaderOf(state: TopicPartitionState): PartitionLeader | undefined {
    const version = this.#metadata.version;
    if (state.leaderVersion !== version) {
      state.leader = this.#metadata.leader(state.partition);
      state.leaderVersion = version;
    }
    return state.leader;
  }

  /**
   * Kafka's `prepareFetchRequests` + send: each partition (in fetch order)
   * goes to its leader unless the leader is unknown (metadata update
   * requested), in reconnect backoff, or still answering the previous fetch.
   */
  maybeSend(fetchable: readonly TopicPartitionState[], ctx: Context): void {
    const now = ctx.now();
    // Made on the first partition that can go (most passes find every leader's fetch still in flight).
    let builders: Map<number, { broker: ActorId; builder: FetchRequestBuilder }> | undefined;
    for (const state of fetchable) {
      if (state.position === null) continue;
      const leader = this.#leaderOf(state);
      if (leader === undefined) {
        this.#refresher.requestUpdate();
        continue;
      }
      if (this.#connections.isUnavailable(leader.broker, now) || this.#pending.has(leader.nodeId)) continue;
      builders ??= new Map();
      let entry = builders.get(leader.nodeId);
      if (entry === undefined) {
        let handler = this.#sessions.get(leader.nodeId);
        if (handler === undefined) {
          handler = new FetchSessionHandler(leader.nodeId);
          this.#sessions.set(leader.nodeId, handler);
        }
        entry = { broker: leader.broker, builder: handler.newBuilder() };
        builders.set(leader.nodeId, entry);
      }
      const topicId = this.#metadata.topicId(state.partition.topic);
      entry.builder.addEntry(state.key, sessionEntryOf(state, topicId, state.position, this.#config.fetchSize, leader.epoch));
    }
    if (builders === undefined) return;
    for (const [nodeId, { broker, builder }] of builders) {
      const data = builder.build();
      const correlationId = this.#nextCorrelationId();
      const request = fetchRequestFor(data, {
        correlationId,
        clientId: this.#config.clientId,
        replicaId: CONSUMER_REPLICA_ID,
        maxWaitMs: this.#config.maxWaitMs,
        minBytes: this.#config.minBytes,
        maxBytes: this.#config.maxBytes,
        isolationLevel: this.#config.isolationLevel,
        rackId: this.#config.rackId,
      });
      this.#pending.set(nodeId, { correlationId, nodeId, broker, data, request, sentAt: now });
      this.#connections.requestSent(broker);
      ctx.send(broker, request);
      ctx.setTimer(`${FETCH_TIMEOUT_TIMER_PREFIX}${nodeId}`, this.#config.requestTimeout);
    }
  }

  /**
   * Kafka's `handleFetchSuccess`: the partitions of a usable answer, each
   * with the offset it was fetched at; an empty list when the session could
   * not use the answer, or null when the message answers no fetch in flight
   * (late, duplicated, or from the wrong broker).
   */
  receive(from: ActorId, response: FetchResponse, ctx: Context): FetchedPartition[] | null {
    let pending: PendingFetch | undefined;
    for (const p of this.#pending.values()) {
      if (p.correlationId === response.correlationId && p.broker === from) {
        pending = p;
        break;
      }
    }
    if (pending === undefined) return null;
    const now = ctx.now();
    this.#pending.delete(pending.nodeId);
    ctx.cancelTimer(`${FETCH_TIMEOUT_TIMER_PREFIX}${pending.nodeId}`);
    this.#connections.responseReceived(from, now, response.throttleTimeMs);
    this.#metrics.recordThrottleTime(response.throttleTimeMs, now);
    const handler = this.#sessions.get(pending.nodeId);
    const usable = handler?.handleResponse(response) ?? false;
    this.#observeRound(pending, ctx, {
      sessionId: usable ? response.sessionId : pending.data.metadata.sessionId,
      responseBytes: fetchResponseBytes(response),
      records: response.responses.reduce((n, topic) => n + topic.partitions.reduce((m, p) => m + recordCount(p), 0), 0),
      error: errorName(response.errorCode),
    });
    if (handler === undefined || !usable) {
      if (response.errorCode === ErrorCode.FETCH_SESSION_TOPIC_ID_ERROR) this.#refresher.requestUpdate();
      return [];
    }
    // Built on the first partition the response names (an incremental response is mostly empty).
    let requested: Map<string, number> | null = null;
    const topicNames = handler.sessionTopicNames();
    const fetched: FetchedPartition[] = [];
    const topics = response.responses;
    for (let t = 0; t < topics.length; t++) {
      const topic = topics[t] as FetchResponse["responses"][number];
      const name = topicNames.get(topic.topicId);
      if (name === undefined) continue;
      const partitions = topic.partitions;
      for (let p = 0; p < partitions.length; p++) {
        const data = partitions[p] as FetchResponsePartition;
        const key = tpKey(name, data.partitionIndex);
        requested ??= requestedOffsetsOf(pending.data);
        const fetchOffset = requested.get(key);
        if (fetchOffset === undefined) {
          ctx.log.error("fetch response for a partition the request did not have", { partition: key, broker: from });
          continue;
        }
        fetched.push({ partition: { topic: name, partition: data.partitionIndex }, key, fetchOffset, data });
      }
    }
    this.#metrics.recordLatency(now - pending.sentAt, now);
    return fetched;
  }

  /** A fetch request timed out: returns the broker whose connection this closes, or undefined if nothing was pending. */
  timedOut(timer: string, ctx: Context): ActorId | undefined {
    const nodeId = Number(timer.slice(FETCH_TIMEOUT_TIMER_PREFIX.length));
    const pending = this.#pending.get(nodeId);
    if (pending === undefined) return undefined;
    this.#fail(pending, ErrorCode.REQUEST_TIMED_OUT, ctx);
    return pending.broker;
  }

  /** Whether a fetch is in flight to each of these nodes. */
  fetchingFromAll(nodes: readonly number[]): boolean {
    for (const node of nodes) if (!this.#pending.has(node)) return false;
    return true;
  }

  /** Whether a fetch to `broker` is in flight. */
  hasRequestTo(broker: ActorId): boolean {
    for (const pending of this.#pending.values()) if (pending.broker === broker) return true;
    return false;
  }

  /** The connection to `broker` closed: a fetch in flight to it fails (Kafka's `handleFetchFailure`). */
  failRequestsTo(broker: ActorId, ctx: Context): void {
    for (const pending of [...this.#pending.values()]) {
      if (pending.broker !== broker) continue;
      ctx.cancelTimer(`${FETCH_TIMEOUT_TIMER_PREFIX}${pending.nodeId}`);
      this.#fail(pending, ErrorCode.NETWORK_EXCEPTION, ctx);
    }
  }

  #fail(pending: PendingFetch, error: number, ctx: Context): void {
    this.#pending.delete(pending.nodeId);
    // The session may or may not have seen the request: close it and start a new one with a full request.
    this.#sessions.get(pending.nodeId)?.handleError();
    this.#observeRound(pending, ctx, { sessionId: pending.data.metadata.sessionId, responseBytes: 0, records: 0, error: errorName(error) });
  }

  #observeRound(
    pending: PendingFetch,
    ctx: Context,
    outcome: { readonly sessionId: number; readonly responseBytes: number; readonly records: number; readonly error: string },
  ): void {
    ctx.observe({
      type: "fetch.round",
      broker: pending.broker,
      full: isFull(pending.data.metadata),
      sessionId: outcome.sessionId,
      requestPartitions: pending.data.toSend.length,
      requestBytes: fetchRequestBytes(pending.request),
      responseBytes: outcome.responseBytes,
      records: outcome.records,
      error: outcome.error,
    } satisfies FetchRoundObservation);
  }
}
