import {
  type ActorId,
  type ActorLogger,
  type Context,
  type DurableLog,
  ErrorCode,
  type FetchRequest,
  type FetchResponse,
  type FetchResponsePartition,
  type JsonValue,
  type ListOffsetsRequest,
  type ListOffsetsResponse,
  ListOffsetsTimestamp,
  type Message,
  type MetadataRequest,
  type MetadataResponse,
  type Micros,
  ms,
  type Observation,
  type RecordBatch,
  resolveConsumerConfig,
  streamFor,
  type TopicPartition,
  topicIdFor,
  tpKey,
} from "@kcsim/protocol";
import {
  Fetcher,
  type FetcherTopic,
  FetchManager,
  FetchSessionCache,
  NO_PREFERRED_READ_REPLICA,
  type PartitionReadResult,
} from "../src/index.js";

/** Shared builders for the Fetcher tests (not a test file itself). */

export const CONSUMER: ActorId = "consumer-1";
export const TOPIC = "orders";
export const TOPIC_ID = topicIdFor(TOPIC);
export const P0: TopicPartition = { topic: TOPIC, partition: 0 };
export const P1: TopicPartition = { topic: TOPIC, partition: 1 };
export const P2: TopicPartition = { topic: TOPIC, partition: 2 };
export const TOPICS: readonly FetcherTopic[] = [{ name: TOPIC, id: TOPIC_ID, partitions: 3 }];
/** Broker actor ids by node id. */
export const BROKERS: ReadonlyMap<number, ActorId> = new Map([
  [1, "broker-1"],
  [2, "broker-2"],
]);
export const RECORD_BYTES = 100;
/** Kafka's per-batch overhead in DefaultRecordBatch (61 bytes), for batch sizes. */
const BATCH_OVERHEAD = 61;

export interface SentMessage {
  readonly to: ActorId;
  readonly message: Message;
}

/** A Context for driving one actor by hand: virtual time, recorded sends, timers and observations. */
export class FakeContext implements Context {
  readonly self: ActorId = CONSUMER;
  readonly sent: SentMessage[] = [];
  readonly timers = new Map<string, Micros>();
  readonly observations: Observation[] = [];
  readonly warnings: string[] = [];
  readonly #random = streamFor(7, CONSUMER).next;
  #now: Micros = 0;
  readonly storage: DurableLog = {
    append() {},
    readAll: () => [],
    length: 0,
  };
  readonly log: ActorLogger = {
    debug() {},
    info() {},
    warn: (message: string) => {
      this.warnings.push(message);
    },
    error: (message: string) => {
      this.warnings.push(message);
    },
  };

  now(): Micros {
    return this.#now;
  }

  setNow(now: Micros): void {
    if (now < this.#now) throw new RangeError(`time goes forward: ${now} < ${this.#now}`);
    this.#now = now;
  }

  send(to: ActorId, message: Message): void {
    this.sent.push({ to, message });
  }

  setTimer(name: string, after: Micros): void {
    if (!Number.isInteger(after) || after < 0) throw new RangeError(`timer ${name} after ${after}`);
    this.timers.set(name, this.#now + after);
  }

  cancelTimer(name: string): void {
    this.timers.delete(name);
  }

  /** The datagram-like test network has no connections to close or configure. */
  closeConnection(): void {}
  configureConnections(): void {}
  hasTimer(name: string): boolean {
    return this.timers.has(name);
  }

  random(): number {
    return this.#random();
  }

  observe(event: Observation): void {
    this.observations.push(event);
  }

  /** Takes (and forgets) what was sent so far. */
  takeSent(): SentMessage[] {
    return this.sent.splice(0, this.sent.length);
  }

  observed(type: string): Observation[] {
    return this.observations.filter((o) => o.type === type);
  }
}

/** Metadata from brokers 1 and 2 naming each listed partition of TOPIC (index = place in the list) with its leader (-1: none) and epoch. */
export function metadataResponseOf(partitions: readonly { readonly leaderId: number; readonly leaderEpoch: number }[]): MetadataResponse {
  return {
    type: "MetadataResponse",
    correlationId: 1,
    throttleTimeMs: 0,
    brokers: [
      { nodeId: 1, host: "broker-1", port: 9092, rack: null },
      { nodeId: 2, host: "broker-2", port: 9092, rack: null },
    ],
    controllerId: 1,
    topics: [
      {
        errorCode: ErrorCode.NONE,
        name: TOPIC,
        topicId: TOPIC_ID,
        isInternal: false,
        partitions: partitions.map(({ leaderId, leaderEpoch }, partitionIndex) => ({
          errorCode: ErrorCode.NONE,
          partitionIndex,
          leaderId,
          leaderEpoch,
          replicaNodes: [1, 2],
          isrNodes: [1, 2],
        })),
      },
    ],
  };
}

/** A resolved consumer config with overrides. */
export function consumerConfig(overrides: Record<string, JsonValue> = {}) {
  return resolveConsumerConfig({ "client.id": CONSUMER, ...overrides });
}

export function newFetcher(overrides: Record<string, JsonValue> = {}, bootstrap: readonly ActorId[] = ["broker-1"]): Fetcher {
  return new Fetcher(consumerConfig(overrides), bootstrap, TOPICS);
}

/** A batch of `count` records (or one control record) starting at `baseOffset`. */
export function batchOf(baseOffset: number, count: number, options: { control?: boolean; leaderEpoch?: number } = {}): RecordBatch {
  const records = Array.from({ length: count }, (_, i) => ({
    offsetDelta: i,
    timestampDelta: i,
    key: options.control ? "COMMIT" : null,
    value: options.control ? null : `v${baseOffset + i}`,
    sizeInBytes: RECORD_BYTES,
  }));
  return {
    baseOffset,
    lastOffsetDelta: count - 1,
    partitionLeaderEpoch: options.leaderEpoch ?? 0,
    sizeInBytes: BATCH_OVERHEAD + count * RECORD_BYTES,
    baseTimestamp: 1_000,
    producerId: options.control ? 7 : -1,
    producerEpoch: options.control ? 0 : -1,
    baseSequence: -1,
    isTransactional: options.control === true,
    isControl: options.control === true,
    records,
  };
}

/** The (topic-partition, fetch offset) pairs a request lists, in order. */
export function requestedPartitions(request: FetchRequest): { key: string; offset: number; leaderEpoch: number }[] {
  return request.topics.flatMap((t) =>
    t.partitions.map((p) => ({
      key: tpKey(t.topicId === TOPIC_ID ? TOPIC : t.topicId, p.partition),
      offset: p.fetchOffset,
      leaderEpoch: p.currentLeaderEpoch,
    })),
  );
}

export function forgottenPartitions(request: FetchRequest): string[] {
  return request.forgottenTopicsData.flatMap((t) => t.partitions.map((p) => tpKey(t.topicId === TOPIC_ID ? TOPIC : t.topicId, p)));
}

/** One partition's log as the fake cluster keeps it (shared by whichever broker leads it). */
export interface PartitionLog {
  leader: number;
  leaderEpoch: number;
  logStartOffset: number;
  batches: RecordBatch[];
}

function logEndOffset(log: PartitionLog): number {
  const last = log.batches[log.batches.length - 1];
  return last === undefined ? log.logStartOffset : last.baseOffset + last.lastOffsetDelta + 1;
}

/**
 * A tiny cluster serving partition logs: Metadata (leaders), ListOffsets and
 * Fetch, with the real broker-side KIP-227 session manager per broker.
 * High watermark = log end. (The world, not the cluster, holds empty fetch
 * answers for fetch.max.wait.ms.)
 */
export class FakeCluster {
  readonly logs = new Map<string, PartitionLog>();
  readonly sessions = new Map<number, FetchManager>();
  /** Brokers whose metadata is stale: they keep answering with this frozen view of the leaders. */
  readonly staleMetadata = new Map<number, Map<string, { leader: number; leaderEpoch: number }>>();

  constructor(partitions: number, leaderOf: (partition: number) => number = () => 1) {
    for (let p = 0; p < partitions; p++)
      this.logs.set(tpKey(TOPIC, p), { leader: leaderOf(p), leaderEpoch: 0, logStartOffset: 0, batches: [] });
    for (const nodeId of BROKERS.keys()) {
      this.sessions.set(nodeId, new FetchManager(new FetchSessionCache({ random: streamFor(3, `broker-${nodeId}`).next, shardCount: 1 })));
    }
  }

  log(partition: TopicPartition): PartitionLog {
    const log = this.logs.get(tpKey(partition.topic, partition.partition));
    if (log === undefined) throw new Error(`no log for ${tpKey(partition.topic, partition.partition)}`);
    return log;
  }

  /** Appends `count` records (one batch) to a partition; returns the batch's base offset. */
  produce(partition: TopicPartition, count: number): number {
    const log = this.log(partition);
    const base = logEndOffset(log);
    log.batches.push(batchOf(base, count, { leaderEpoch: log.leaderEpoch }));
    return base;
  }

  /** Appends a transaction marker (a control batch of one record). */
  produceControl(partition: TopicPartition): number {
    const log = this.log(partition);
    const base = logEndOffset(log);
    log.batches.push(batchOf(base, 1, { control: true, leaderEpoch: log.leaderEpoch }));
    return base;
  }

  /** Deletes whole batches below `offset` (retention). */
  truncateBefore(partition: TopicPartition, offset: number): void {
    const log = this.log(partition);
    log.batches = log.batches.filter((b) => b.baseOffset + b.lastOffsetDelta >= offset);
    log.logStartOffset = offset;
  }

  moveLeader(partition: TopicPartition, leader: number): void {
    const log = this.log(partition);
    log.leader = leader;
    log.leaderEpoch++;
  }

  endOffset(partition: TopicPartition): number {
    return logEndOffset(this.log(partition));
  }

  nodeOf(broker: ActorId): number {
    for (const [nodeId, host] of BROKERS) if (host === broker) return nodeId;
    throw new Error(`unknown broker ${broker}`);
  }

  /** The broker's answer to a request (undefined for messages it does not serve). */
  handle(broker: ActorId, message: Message, now: Micros): Message | undefined {
    const nodeId = this.nodeOf(broker);
    switch (message.type) {
      case "MetadataRequest":
        return this.metadata(nodeId, message);
      case "ListOffsetsRequest":
        return this.listOffsets(nodeId, message);
      case "FetchRequest":
        return this.fetch(nodeId, message, now);
      default:
        return undefined;
    }
  }

  metadata(nodeId: number, request: MetadataRequest): MetadataResponse {
    const stale = this.staleMetadata.get(nodeId);
    const partitions = [...this.logs.entries()].map(([key, log]) => {
      const view = stale?.get(key) ?? log;
      return {
        errorCode: ErrorCode.NONE,
        partitionIndex: Number(key.slice(TOPIC.length + 1)),
        leaderId: view.leader,
        leaderEpoch: view.leaderEpoch,
        replicaNodes: [...BROKERS.keys()],
        isrNodes: [...BROKERS.keys()],
      };
    });
    return {
      type: "MetadataResponse",
      correlationId: request.correlationId,
      throttleTimeMs: 0,
      brokers: [...BROKERS].map(([id, host]) => ({ nodeId: id, host, port: 9092, rack: null })),
      controllerId: 1,
      topics: [{ errorCode: ErrorCode.NONE, name: TOPIC, topicId: TOPIC_ID, isInternal: false, partitions }],
    };
  }

  listOffsets(nodeId: number, request: ListOffsetsRequest): ListOffsetsResponse {
    return {
      type: "ListOffsetsResponse",
      correlationId: request.correlationId,
      throttleTimeMs: 0,
      topics: request.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => {
          const log = this.log({ topic: t.name, partition: p.partitionIndex });
          if (log.leader !== nodeId) {
            return {
              partitionIndex: p.partitionIndex,
              errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER,
              timestamp: -1,
              offset: -1,
              leaderEpoch: -1,
            };
          }
          const offset = p.timestamp === ListOffsetsTimestamp.EARLIEST ? log.logStartOffset : logEndOffset(log);
          return { partitionIndex: p.partitionIndex, errorCode: ErrorCode.NONE, timestamp: -1, offset, leaderEpoch: log.leaderEpoch };
        }),
      })),
    };
  }

  fetch(nodeId: number, request: FetchRequest, now: Micros): FetchResponse {
    const manager = this.sessions.get(nodeId);
    if (manager === undefined) throw new Error(`no broker ${nodeId}`);
    const context = manager.newContext(request, now);
    let budget = request.maxBytes;
    let firstData = true;
    const reads: PartitionReadResult[] = context.partitions().map((target) => {
      const log = this.log({ topic: TOPIC, partition: target.partition });
      const answer = (errorCode: number, records: RecordBatch[] = []): PartitionReadResult => {
        const known = errorCode === ErrorCode.NONE || errorCode === ErrorCode.OFFSET_OUT_OF_RANGE;
        const data: FetchResponsePartition = {
          partitionIndex: target.partition,
          errorCode,
          highWatermark: known ? logEndOffset(log) : -1,
          lastStableOffset: known ? logEndOffset(log) : -1,
          logStartOffset: known ? log.logStartOffset : -1,
          abortedTransactions: null,
          preferredReadReplica: NO_PREFERRED_READ_REPLICA,
          records,
        };
        return { topicId: target.topicId, data };
      };
      if (log.leader !== nodeId) return answer(ErrorCode.NOT_LEADER_OR_FOLLOWER);
      if (target.currentLeaderEpoch >= 0 && target.currentLeaderEpoch < log.leaderEpoch) return answer(ErrorCode.FENCED_LEADER_EPOCH);
      if (target.fetchOffset < log.logStartOffset || target.fetchOffset > logEndOffset(log)) return answer(ErrorCode.OFFSET_OUT_OF_RANGE);
      const records: RecordBatch[] = [];
      let partitionBudget = Math.min(target.partitionMaxBytes, budget);
      for (const batch of log.batches) {
        if (batch.baseOffset + batch.lastOffsetDelta < target.fetchOffset) continue;
        // KIP-74: the first batch of the first partition with data goes out whole.
        if (batch.sizeInBytes > partitionBudget && !(firstData && records.length === 0)) break;
        records.push(batch);
        partitionBudget -= batch.sizeInBytes;
        budget -= batch.sizeInBytes;
      }
      if (records.length > 0) firstData = false;
      return answer(ErrorCode.NONE, records);
    });
    return context.updateAndGenerateResponse(reads, now);
  }
}

interface InFlight {
  readonly at: Micros;
  readonly seq: number;
  readonly from: ActorId;
  readonly to: ActorId;
  readonly message: Message;
}

/**
 * A Fetcher inside a consumer, wired to a FakeCluster through a wire with a
 * fixed one-way latency. Timers and deliveries run in time order (messages
 * before timers at the same instant). `intercept` may drop (return null) or
 * replace a message on its way to the consumer. A crashed broker loses the
 * answers it still held (parked fetches) and, as the harness does, answers
 * whatever reaches it with a SimDisconnect.
 */
export class FetcherWorld {
  readonly ctx = new FakeContext();
  readonly cluster: FakeCluster;
  readonly fetcher: Fetcher;
  /** One-way latency of every message. */
  readonly latency: Micros;
  /** Every request the consumer sent, with its destination, in order. */
  readonly requests: SentMessage[] = [];
  intercept: ((from: ActorId, message: Message) => Message | null) | undefined;
  /** Brokers whose process is not running. */
  readonly crashed = new Set<ActorId>();
  /** What `fetcher.receive` returned for each SimDisconnect delivered, in order. */
  readonly disconnectsTaken: boolean[] = [];
  /** Called for each message the consumer sends, right after the fetcher call that sent it (the state it was sent in). */
  onSend: ((sent: SentMessage) => void) | undefined;
  #wire: InFlight[] = [];
  #seq = 0;

  constructor(cluster: FakeCluster, fetcher: Fetcher, latency: Micros = ms(1)) {
    this.cluster = cluster;
    this.fetcher = fetcher;
    this.latency = latency;
  }

  /** Runs `action` on the fetcher now, then puts what it sent on the wire. */
  act<T>(action: (fetcher: Fetcher, ctx: FakeContext) => T): T {
    const result = action(this.fetcher, this.ctx);
    this.#flush();
    return result;
  }

  /** Processes deliveries and timers up to and including `until`. */
  runUntil(until: Micros): void {
    for (;;) {
      const next = this.#nextEventAt();
      if (next === null || next > until) break;
      this.#step();
    }
    if (this.ctx.now() < until) this.ctx.setNow(until);
  }

  /** Runs for `duration` more. */
  run(duration: Micros): void {
    this.runUntil(this.ctx.now() + duration);
  }

  fetchRequests(): { to: ActorId; request: FetchRequest }[] {
    return this.requests.flatMap(({ to, message }) => (message.type === "FetchRequest" ? [{ to, request: message }] : []));
  }

  requestsOfType(type: Message["type"]): SentMessage[] {
    return this.requests.filter((r) => r.message.type === type);
  }

  /** Messages still on the wire. */
  inFlight(): readonly InFlight[] {
    return this.#wire;
  }

  /** Crashes a broker now: the answers it has not sent yet are gone, and it resets every connection until `restart`. */
  crash(broker: ActorId): void {
    this.crashed.add(broker);
    this.#wire = this.#wire.filter((m) => m.from !== broker || m.at - this.latency <= this.ctx.now());
  }

  restart(broker: ActorId): void {
    this.crashed.delete(broker);
  }

  #flush(): void {
    for (const sent of this.ctx.takeSent()) {
      this.onSend?.(sent);
      this.requests.push(sent);
      this.#put(CONSUMER, sent.to, sent.message);
    }
  }

  /** Long poll, roughly: a fetch that found nothing is answered (empty) after fetch.max.wait.ms. */
  #holdFor(request: Message, answer: Message): Micros {
    if (request.type !== "FetchRequest" || answer.type !== "FetchResponse" || answer.errorCode !== ErrorCode.NONE) return 0;
    const partitions = answer.responses.flatMap((t) => t.partitions);
    const empty = partitions.every((p) => p.errorCode === ErrorCode.NONE && p.records.length === 0);
    return empty ? ms(request.maxWaitMs) : 0;
  }

  #put(from: ActorId, to: ActorId, message: Message, hold: Micros = 0): void {
    this.#wire.push({ at: this.ctx.now() + hold + this.latency, seq: this.#seq++, from, to, message });
    this.#wire.sort((a, b) => a.at - b.at || a.seq - b.seq);
  }

  #nextTimer(): [string, Micros] | undefined {
    let best: [string, Micros] | undefined;
    for (const entry of this.ctx.timers) if (best === undefined || entry[1] < best[1]) best = entry;
    return best;
  }

  #nextEventAt(): Micros | null {
    const message = this.#wire[0]?.at;
    const timer = this.#nextTimer()?.[1];
    if (message === undefined) return timer ?? null;
    return timer === undefined ? message : Math.min(message, timer);
  }

  #step(): void {
    const message = this.#wire[0];
    const timer = this.#nextTimer();
    if (message !== undefined && (timer === undefined || message.at <= timer[1])) {
      this.#wire.shift();
      this.ctx.setNow(message.at);
      if (message.to === CONSUMER) {
        const delivered = this.intercept === undefined ? message.message : this.intercept(message.from, message.message);
        if (delivered !== null) {
          const taken = this.fetcher.receive(message.from, delivered, this.ctx);
          if (delivered.type === "SimDisconnect") this.disconnectsTaken.push(taken);
        }
        this.#flush();
      } else if (this.crashed.has(message.to)) {
        // The dead process's host resets the connection (never in answer to a reset).
        if (message.message.type !== "SimDisconnect")
          this.#put(message.to, CONSUMER, { type: "SimDisconnect", reason: "crashed", connection: "*" });
      } else {
        const answer = this.cluster.handle(message.to, message.message, this.ctx.now());
        if (answer !== undefined) this.#put(message.to, CONSUMER, answer, this.#holdFor(message.message, answer));
      }
      return;
    }
    if (timer === undefined) return;
    this.ctx.timers.delete(timer[0]);
    this.ctx.setNow(timer[1]);
    this.fetcher.fire(timer[0], this.ctx);
    this.#flush();
  }
}

/** A world with a fresh cluster and fetcher, the partitions assigned and seeked to `offset`. */
export function startedWorld(
  options: {
    partitions?: readonly TopicPartition[];
    config?: Record<string, JsonValue>;
    leaderOf?: (partition: number) => number;
    seekTo?: number;
  } = {},
): FetcherWorld {
  const world = new FetcherWorld(new FakeCluster(3, options.leaderOf), newFetcher(options.config ?? {}));
  const partitions = options.partitions ?? [P0];
  world.act((f, ctx) => {
    f.assign(partitions, ctx);
    for (const tp of partitions) f.seek(tp, options.seekTo ?? 0, ctx);
  });
  return world;
}
