import {
  type ActorId,
  type BrokerConfig,
  type Context,
  ErrorCode,
  type FetchResponse,
  type FetchResponsePartition,
  type ListOffsetsResponse,
  ListOffsetsTimestamp,
  type Micros,
  ms,
  type OffsetForLeaderEpochResponse,
  type RecordBatch,
  tpKey,
  UNDEFINED_EPOCH,
  UNDEFINED_EPOCH_OFFSET,
} from "@kcsim/protocol";
import type { SessionPartition } from "../session/fetch-request-data.js";
import { fetchRequestFor } from "../session/fetch-request-for.js";
import { FetchSessionHandler } from "../session/fetch-session-handler.js";
import type { Partition } from "./partition.js";
import { lastOffsetOf } from "./partition-log.js";

/** A replica fetcher's connections to its leader (Kafka: each fetcher thread has its own NetworkClient). */
export const REPLICA_FETCHER_CONNECTION = "replica-fetcher";
/**
 * Where a followed partition is in the follower's state machine (Kafka's
 * `PartitionFetchState`): finding its truncation point with
 * OffsetForLeaderEpoch, fetching, resolving OFFSET_OUT_OF_RANGE with
 * ListOffsets (latest, then earliest), or fenced (the leader has a newer
 * epoch: wait for new metadata).
 */
export type FollowerState = "truncating" | "fetching" | "out-of-range-latest" | "out-of-range-earliest" | "fenced";

interface FollowedPartition {
  /** `tpKey(topic, index)`. */
  readonly key: string;
  readonly partition: Partition;
  /** The leader epoch this broker follows the partition at. */
  readonly leaderEpoch: number;
  state: FollowerState;
  fetchOffset: number;
  /** No request for this partition before this time (backoff after an error). */
  delayedUntil: Micros;
  /** What the last fetch request asked of this partition, handed to the session again while it stays the same. */
  entry: SessionPartition | null;
  /** The correlation id of the last fetch request that asked for this partition (-1: none), and the offset it asked at. */
  requestedIn: number;
  requestedOffset: number;
}

type InFlight =
  | {
      readonly kind: "fetch";
      readonly correlationId: number;
      readonly sentAt: Micros;
      /** The partitions asked for, in request order (each remembers its offset: FollowedPartition.requested*). */
      readonly partitions: readonly FollowedPartition[];
    }
  | {
      readonly kind: "epochs" | "latest" | "earliest";
      readonly correlationId: number;
      readonly sentAt: Micros;
      readonly keys: readonly string[];
    };

/** What the fetcher needs from its broker. */
export interface ReplicaFetcherHost {
  readonly brokerId: number;
  readonly settings: BrokerConfig;
  nextCorrelationId(): number;
  /**
   * A follower's log lost the records from `offset` (its new log end, unless
   * given) up to `previousEndOffset` (observed as broker.truncate).
   */
  onTruncated(partition: Partition, previousEndOffset: number, offset?: number): void;
}

/**
 * What a fetch request asks of a followed partition: the entry of the last
 * request while nothing in it changed (most partitions of a follower's
 * session, between two fetches), else a new one.
 */
function sessionEntryOf(f: FollowedPartition, maxBytes: number): SessionPartition {
  const log = f.partition.log;
  const last = f.entry;
  if (
    last !== null &&
    last.data.fetchOffset === f.fetchOffset &&
    last.data.logStartOffset === log.logStartOffset &&
    last.data.partitionMaxBytes === maxBytes &&
    last.data.currentLeaderEpoch === f.leaderEpoch
  ) {
    return last;
  }
  const entry: SessionPartition = {
    topic: f.partition.topic,
    partition: f.partition.index,
    data: {
      topicId: f.partition.topicId,
      fetchOffset: f.fetchOffset,
      logStartOffset: log.logStartOffset,
      partitionMaxBytes: maxBytes,
      currentLeaderEpoch: f.leaderEpoch,
      // Divergence is found with OffsetForLeaderEpoch before fetching, so no last fetched epoch is sent.
      lastFetchedEpoch: UNDEFINED_EPOCH,
    },
  };
  f.entry = entry;
  return entry;
}

/** `keys` (made now if null) with `key` appended. */
function withKey(keys: string[] | null, key: string): string[] {
  const list = keys ?? [];
  list.push(key);
  return list;
}

/** Client id of the replica fetcher's requests. */
function clientIdOf(brokerId: number, leaderId: number): string {
  return `replica-fetcher-${brokerId}-${leaderId}`;
}

/**
 * The follower side of replication for the partitions one leader leads
 * (Kafka's `ReplicaFetcherThread`): one request at a time to the leader.
 * Partitions start by truncating to where their log agrees with the
 * leader's (OffsetForLeaderEpoch, KIP-101/279; a log without epochs cuts to
 * its high watermark), then fetch continuously through a KIP-227 session
 * (replica.fetch.wait.max.ms, min bytes, max bytes), appending what they
 * get and taking the leader's high watermark and log start offset. Errors
 * delay a partition by replica.fetch.backoff.ms; a lost request times out
 * after replica.socket.timeout.ms, and a request to a leader whose process
 * is not running fails at once when the leader resets the connection
 * (SimDisconnect). Either transport error closes the fetch session (the next
 * fetch is full, naming the old session id at epoch 0) and delays the
 * request's partitions by replica.fetch.backoff.ms.
 */
export class ReplicaFetcher {
  readonly leaderId: number;
  readonly leaderHost: ActorId;
  readonly #host: ReplicaFetcherHost;
  readonly #session: FetchSessionHandler;
  /** The client id of its requests and the name of its timer, made once (both are per leader). */
  readonly #clientId: string;
  readonly timerName: string;
  readonly #partitions = new Map<string, FollowedPartition>();
  #inFlight: InFlight | null = null;

  constructor(leaderId: number, leaderHost: ActorId, host: ReplicaFetcherHost) {
    this.leaderId = leaderId;
    this.leaderHost = leaderHost;
    this.#host = host;
    this.#session = new FetchSessionHandler(leaderId);
    this.#clientId = clientIdOf(host.brokerId, leaderId);
    this.timerName = `fetcher:${leaderId}`;
  }

  get isEmpty(): boolean {
    return this.#partitions.size === 0;
  }

  /** Starts following a partition at a leader epoch: it truncates first (with the next request). */
  add(partition: Partition, leaderEpoch: number): void {
    const key = tpKey(partition.topic, partition.index);
    this.#partitions.set(key, {
      key,
      partition,
      leaderEpoch,
      state: "truncating",
      fetchOffset: partition.log.logEndOffset,
      delayedUntil: 0,
      entry: null,
      requestedIn: -1,
      requestedOffset: -1,
    });
  }

  remove(key: string): void {
    this.#partitions.delete(key);
  }

  states(): { topic: string; partition: number; state: FollowerState; fetchOffset: number }[] {
    return [...this.#partitions.values()].map((f) => ({
      topic: f.partition.topic,
      partition: f.partition.index,
      state: f.state,
      fetchOffset: f.fetchOffset,
    }));
  }

  /** Sends the next request if none is in flight, and arms the fetcher's timer. */
  maybeSend(ctx: Context): void {
    const now = ctx.now();
    if (this.#inFlight === null) {
      this.#truncateWithoutEpochs();
      // The partitions not delayed, by state, in one pass (in partition order within each state).
      // The lists other than fetching are made only when a partition is in that state (rarely).
      let truncating: string[] | null = null;
      let latest: string[] | null = null;
      let earliest: string[] | null = null;
      const fetching: FollowedPartition[] = [];
      for (const f of this.#partitions.values()) {
        if (f.delayedUntil > now) continue;
        if (f.state === "fetching") fetching.push(f);
        else if (f.state === "truncating") truncating = withKey(truncating, f.key);
        else if (f.state === "out-of-range-latest") latest = withKey(latest, f.key);
        else if (f.state === "out-of-range-earliest") earliest = withKey(earliest, f.key);
      }
      if (truncating !== null) this.#sendEpochs(truncating, ctx);
      else if (latest !== null) this.#sendListOffsets("latest", latest, ctx);
      else if (earliest !== null) this.#sendListOffsets("earliest", earliest, ctx);
      else this.#sendFetch(fetching, ctx);
    }
    this.#armTimer(ctx);
  }

  #armTimer(ctx: Context): void {
    const now = ctx.now();
    let wakeAt: Micros | undefined;
    if (this.#inFlight !== null) {
      wakeAt = this.#inFlight.sentAt + ms(this.#host.settings["replica.socket.timeout.ms"]);
    } else {
      for (const f of this.#partitions.values()) {
        if (f.state !== "fenced" && f.delayedUntil > now) wakeAt = Math.min(wakeAt ?? f.delayedUntil, f.delayedUntil);
      }
    }
    if (wakeAt === undefined) ctx.cancelTimer(this.timerName);
    else ctx.setTimer(this.timerName, Math.max(1, wakeAt - now));
  }

  /** The fetcher's timer: a request timed out (transport error), or a backoff ended. */
  onTimer(ctx: Context): void {
    const inFlight = this.#inFlight;
    if (inFlight !== null && ctx.now() >= inFlight.sentAt + ms(this.#host.settings["replica.socket.timeout.ms"])) {
      ctx.closeConnection(this.leaderHost, REPLICA_FETCHER_CONNECTION);
      this.#failInFlight(inFlight, ctx.now());
    }
    this.maybeSend(ctx);
  }

  /**
   * The leader reset the connection (its process is not running): the
   * request in flight fails at once as a transport error. Returns false when
   * nothing was in flight (a repeated reset changes nothing).
   */
  disconnected(ctx: Context): boolean {
    const inFlight = this.#inFlight;
    if (inFlight === null) return false;
    this.#failInFlight(inFlight, ctx.now());
    this.maybeSend(ctx);
    return true;
  }

  /** Kafka's handling of a failed request: a fetch closes the session (`handleError`), and the partitions asked for back off. */
  #failInFlight(inFlight: InFlight, now: Micros): void {
    this.#inFlight = null;
    if (inFlight.kind === "fetch") this.#session.handleError();
    const keys = inFlight.kind === "fetch" ? inFlight.partitions.map((f) => f.key) : inFlight.keys;
    for (const key of keys) this.#delay(key, now);
  }

  #delay(key: string, now: Micros): void {
    const f = this.#partitions.get(key);
    if (f !== undefined) f.delayedUntil = now + ms(this.#host.settings["replica.fetch.backoff.ms"]);
  }

  /** Partitions whose log has no leader epochs cannot ask where they diverge: they cut back to their high watermark. */
  #truncateWithoutEpochs(): void {
    for (const f of this.#partitions.values()) {
      if (f.state !== "truncating" || f.partition.log.latestEpoch() !== undefined) continue;
      this.#truncateTo(f, f.partition.log.highWatermark);
      f.state = "fetching";
      f.fetchOffset = f.partition.log.logEndOffset;
    }
  }

  #truncateTo(f: FollowedPartition, offset: number): void {
    const previousEnd = f.partition.log.logEndOffset;
    if (f.partition.log.truncateTo(offset) !== undefined) this.#host.onTruncated(f.partition, previousEnd);
  }

  #sendEpochs(keys: string[], ctx: Context): void {
    const correlationId = this.#host.nextCorrelationId();
    const byTopic = new Map<string, { partition: number; currentLeaderEpoch: number; leaderEpoch: number }[]>();
    for (const key of keys) {
      const f = this.#partitions.get(key) as FollowedPartition;
      const list = byTopic.get(f.partition.topic) ?? [];
      list.push({
        partition: f.partition.index,
        currentLeaderEpoch: f.leaderEpoch,
        leaderEpoch: f.partition.log.latestEpoch() ?? UNDEFINED_EPOCH,
      });
      byTopic.set(f.partition.topic, list);
    }
    this.#inFlight = { kind: "epochs", correlationId, sentAt: ctx.now(), keys };
    ctx.send(
      this.leaderHost,
      {
        type: "OffsetForLeaderEpochRequest",
        correlationId,
        apiVersion: 4,
        clientId: this.#clientId,
        replicaId: this.#host.brokerId,
        topics: [...byTopic].map(([topic, partitions]) => ({ topic, partitions })),
      },
      REPLICA_FETCHER_CONNECTION,
    );
  }

  #sendListOffsets(which: "latest" | "earliest", keys: string[], ctx: Context): void {
    const correlationId = this.#host.nextCorrelationId();
    const timestamp = which === "latest" ? ListOffsetsTimestamp.LATEST : ListOffsetsTimestamp.EARLIEST;
    const byTopic = new Map<string, { partitionIndex: number; currentLeaderEpoch: number; timestamp: number }[]>();
    for (const key of keys) {
      const f = this.#partitions.get(key) as FollowedPartition;
      const list = byTopic.get(f.partition.topic) ?? [];
      list.push({ partitionIndex: f.partition.index, currentLeaderEpoch: f.leaderEpoch, timestamp });
      byTopic.set(f.partition.topic, list);
    }
    this.#inFlight = { kind: which, correlationId, sentAt: ctx.now(), keys };
    ctx.send(
      this.leaderHost,
      {
        type: "ListOffsetsRequest",
        correlationId,
        apiVersion: 8,
        clientId: this.#clientId,
        replicaId: this.#host.brokerId,
        isolationLevel: 0,
        topics: [...byTopic].map(([name, partitions]) => ({ name, partitions })),
      },
      REPLICA_FETCHER_CONNECTION,
    );
  }

  #sendFetch(partitions: readonly FollowedPartition[], ctx: Context): void {
    if (partitions.length === 0) return;
    const settings = this.#host.settings;
    const maxBytes = settings["replica.fetch.max.bytes"];
    const builder = this.#session.newBuilder();
    for (const f of partitions) builder.addEntry(f.key, sessionEntryOf(f, maxBytes));
    const correlationId = this.#host.nextCorrelationId();
    for (const f of partitions) {
      f.requestedIn = correlationId;
      f.requestedOffset = f.fetchOffset;
    }
    const request = fetchRequestFor(builder.build(), {
      correlationId,
      clientId: this.#clientId,
      replicaId: this.#host.brokerId,
      maxWaitMs: settings["replica.fetch.wait.max.ms"],
      minBytes: settings["replica.fetch.min.bytes"],
      maxBytes: settings["replica.fetch.response.max.bytes"],
    });
    this.#inFlight = { kind: "fetch", correlationId, sentAt: ctx.now(), partitions };
    ctx.send(this.leaderHost, request, REPLICA_FETCHER_CONNECTION);
  }

  /** Whether `correlationId` is this fetcher's request in flight. */
  owns(correlationId: number): boolean {
    return this.#inFlight?.correlationId === correlationId;
  }

  onFetchResponse(response: FetchResponse, ctx: Context): void {
    const inFlight = this.#inFlight;
    if (inFlight?.kind !== "fetch" || inFlight.correlationId !== response.correlationId) return;
    this.#inFlight = null;
    if (this.#session.handleResponse(response)) {
      const names = this.#session.sessionTopicNames();
      // Indexed loops: a delivered message's arrays are frozen, and for-of over a frozen array makes an iterator each time.
      const topics = response.responses;
      for (let t = 0; t < topics.length; t++) {
        const topic = topics[t] as FetchResponse["responses"][number];
        const name = names.get(topic.topicId);
        if (name === undefined) continue;
        const partitions = topic.partitions;
        for (let p = 0; p < partitions.length; p++) {
          const data = partitions[p] as FetchResponsePartition;
          this.#processPartitionData(tpKey(name, data.partitionIndex), inFlight.correlationId, data, ctx);
        }
      }
    }
    this.maybeSend(ctx);
  }

  /** One partition of a fetch response (Kafka's `processPartitionData` and its error handling). */
  #processPartitionData(key: string, correlationId: number, data: FetchResponsePartition, ctx: Context): void {
    const f = this.#partitions.get(key);
    // The partition left this fetcher (a partition added again is a new entry), or moved on, since the request went out.
    if (f === undefined || f.state !== "fetching" || f.requestedIn !== correlationId || f.requestedOffset !== f.fetchOffset) return;
    const log = f.partition.log;
    const nowMs = Math.floor(ctx.now() / 1000);
    switch (data.errorCode) {
      case ErrorCode.NONE: {
        const batches = data.records;
        for (let i = 0; i < batches.length; i++) {
          const batch = batches[i] as RecordBatch;
          if (lastOffsetOf(batch) < log.logEndOffset) continue;
          // An empty log may start inside the leader's first batch (the leader's log start moved into it).
          if (log.logEndOffset === log.logStartOffset && batch.baseOffset < log.logEndOffset) log.truncateFullyAndStartAt(batch.baseOffset);
          if (!log.appendAsFollower(batch, nowMs)) {
            f.state = "truncating";
            return;
          }
        }
        log.updateHighWatermark(data.highWatermark);
        log.maybeIncrementLogStartOffset(data.logStartOffset);
        f.fetchOffset = log.logEndOffset;
        return;
      }
      case ErrorCode.OFFSET_OUT_OF_RANGE:
        f.state = "out-of-range-latest";
        return;
      case ErrorCode.FENCED_LEADER_EPOCH:
        // The leader is at a newer epoch than we follow: wait for the metadata that says so.
        f.state = "fenced";
        return;
      default:
        this.#delay(key, ctx.now());
    }
  }

  onOffsetForLeaderEpochResponse(response: OffsetForLeaderEpochResponse, ctx: Context): void {
    const inFlight = this.#inFlight;
    if (inFlight?.kind !== "epochs" || inFlight.correlationId !== response.correlationId) return;
    this.#inFlight = null;
    for (const topic of response.topics) {
      for (const p of topic.partitions) {
        const key = tpKey(topic.topic, p.partition);
        const f = this.#partitions.get(key);
        if (f === undefined || f.state !== "truncating" || !inFlight.keys.includes(key)) continue;
        if (p.errorCode === ErrorCode.NONE) this.#truncateByLeaderEpoch(f, p.leaderEpoch, p.endOffset);
        else if (p.errorCode === ErrorCode.FENCED_LEADER_EPOCH) f.state = "fenced";
        else this.#delay(key, ctx.now());
      }
    }
    this.maybeSend(ctx);
  }

  /**
   * Where the follower's log stops agreeing with the leader's (Kafka's
   * `getOffsetTruncationState`): the leader answered with its end offset of
   * the largest epoch at most our latest one. If we know that epoch, cut to
   * the smaller of the two end offsets; if we do not, cut to the end of our
   * largest epoch below it and ask again.
   */
  #truncateByLeaderEpoch(f: FollowedPartition, leaderEpoch: number, leaderEndOffset: number): void {
    const log = f.partition.log;
    let offset: number;
    let completed = true;
    if (leaderEndOffset === UNDEFINED_EPOCH_OFFSET) {
      offset = log.highWatermark;
    } else if (leaderEpoch === UNDEFINED_EPOCH) {
      offset = Math.min(leaderEndOffset, log.logEndOffset);
    } else {
      const ours = log.epochCache.endOffsetFor(leaderEpoch, log.logEndOffset);
      if (ours.endOffset === UNDEFINED_EPOCH_OFFSET) {
        offset = Math.min(leaderEndOffset, log.logEndOffset);
      } else if (ours.epoch !== leaderEpoch) {
        offset = Math.min(ours.endOffset, log.logEndOffset);
        completed = false;
      } else {
        offset = Math.min(ours.endOffset, leaderEndOffset, log.logEndOffset);
      }
    }
    this.#truncateTo(f, offset);
    if (completed) {
      f.state = "fetching";
      f.fetchOffset = log.logEndOffset;
    }
  }

  onListOffsetsResponse(response: ListOffsetsResponse, ctx: Context): void {
    const inFlight = this.#inFlight;
    if (inFlight === null || inFlight.kind === "fetch" || inFlight.kind === "epochs" || inFlight.correlationId !== response.correlationId)
      return;
    this.#inFlight = null;
    for (const topic of response.topics) {
      for (const p of topic.partitions) {
        const key = tpKey(topic.name, p.partitionIndex);
        const f = this.#partitions.get(key);
        if (f === undefined || !inFlight.keys.includes(key) || f.state !== `out-of-range-${inFlight.kind}`) continue;
        if (p.errorCode !== ErrorCode.NONE) {
          if (p.errorCode === ErrorCode.FENCED_LEADER_EPOCH) f.state = "fenced";
          else this.#delay(key, ctx.now());
          continue;
        }
        this.#resolveOutOfRange(f, inFlight.kind, p.offset);
      }
    }
    this.maybeSend(ctx);
  }

  /**
   * OFFSET_OUT_OF_RANGE on a follower (Kafka's `fetchOffsetAndTruncate`): if
   * the leader's log ends before ours, cut back to its end; otherwise our log
   * end is below the leader's log start, so start over at the leader's log start.
   */
  #resolveOutOfRange(f: FollowedPartition, which: "latest" | "earliest", leaderOffset: number): void {
    const log = f.partition.log;
    if (which === "latest") {
      if (leaderOffset < log.logEndOffset) {
        this.#truncateTo(f, leaderOffset);
        f.state = "fetching";
        f.fetchOffset = log.logEndOffset;
      } else {
        f.state = "out-of-range-earliest";
      }
      return;
    }
    if (leaderOffset > log.logEndOffset) {
      const previousStart = log.logStartOffset;
      const previousEnd = log.logEndOffset;
      log.truncateFullyAndStartAt(leaderOffset);
      if (previousEnd > previousStart) this.#host.onTruncated(f.partition, previousEnd, previousStart);
    }
    f.state = "fetching";
    f.fetchOffset = Math.max(leaderOffset, log.logEndOffset);
  }
}
