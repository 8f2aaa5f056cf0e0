import {
  type ActorId,
  type Context,
  DEFAULT_TRANSACTION_VERSION,
  disconnects,
  ErrorCode,
  type JsonValue,
  type Message,
  type MetadataResponse,
  type Micros,
  ms,
  type ProduceRequest,
  type ProduceResponse,
  type ProducerConfig,
  toMs,
} from "@kcsim/protocol";
import type { ProducerAckObservation, ProducerIdObservation, ProducerTransactionObservation } from "../observations.js";
import { type InFlightProduce, InFlightProduceRequests } from "./in-flight-produce-requests.js";
import { partitionForKey } from "./murmur2.js";
import { keyBytesOf, ProducerBatch, type ProducerRecord } from "./producer-batch.js";
import { clientError, type ProducerError, producerErrorOf } from "./producer-error.js";
import type { ProducerIdAndEpoch } from "./producer-id-and-epoch.js";
import { ProducerMetadata } from "./producer-metadata.js";
import { DEFAULT_RECONNECT_BACKOFF_MAX_MS, DEFAULT_RECONNECT_BACKOFF_MS, ReconnectBackoff } from "./reconnect-backoff.js";
import { type DrainGate, RecordAccumulator, UNKNOWN_PARTITION } from "./record-accumulator.js";
import { RECORD_BATCH_OVERHEAD } from "./record-size.js";
import { SendHandle } from "./send-handle.js";
import {
  type ProducerIdChangeReason,
  RETRIABLE_PRODUCE_ERRORS,
  TransactionManager,
  type TransactionOutcome,
} from "./transaction-manager.js";
import type { TxnRequestHandler } from "./txn-request-handler.js";

/** The sender loop's wake-up (the producer's own timers start with "produce."). */
export const SENDER_TIMER = "produce.sender";
/** A transactional request's deadline or retry backoff (the transaction manager's timers start with "txn."). */
export const TXN_TIMER = "txn.request";

/** The Produce version the client sends (Kafka's transactional producer before transaction version 2 is capped at v11). */
const PRODUCE_VERSION = 9;
/** Produce v12: a transactional producer of transaction version 2, whose partition leaders add its partitions (KIP-890 part 2). */
const PRODUCE_VERSION_TRANSACTION_V2 = 12;

/** Kafka's producer retry backoff jitter (KIP-580). */
const RETRY_JITTER = 0.2;

/** Errors that mean the producer's metadata is stale (Kafka's InvalidMetadataException subclasses). */
const INVALID_METADATA = new Set<number>([
  ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
  ErrorCode.LEADER_NOT_AVAILABLE,
  ErrorCode.NOT_LEADER_OR_FOLLOWER,
  ErrorCode.REPLICA_NOT_AVAILABLE,
  ErrorCode.NETWORK_EXCEPTION,
  ErrorCode.KAFKA_STORAGE_ERROR,
  ErrorCode.FENCED_LEADER_EPOCH,
  ErrorCode.UNKNOWN_LEADER_EPOCH,
  ErrorCode.UNKNOWN_TOPIC_ID,
]);

/** A topic the producer may write. */
export interface ProducerTopic {
  readonly name: string;
  readonly partitions: number;
}

/** How a producer client is set up. */
export interface ProducerClientConfig {
  /** The client id of its requests. */
  readonly clientId: string;
  /** Kafka producer settings, resolved. */
  readonly settings: ProducerConfig;
  /** acks resolved to -1 (all), 0 or 1. */
  readonly acks: -1 | 0 | 1;
  /** Broker actor ids to ask for metadata before any is known. */
  readonly bootstrap: readonly ActorId[];
  readonly topics: readonly ProducerTopic[];
  /** enable.idempotence as it applies (after Kafka's rules for an unset value). */
  readonly idempotent: boolean;
  /** transactional.id (null: not transactional). */
  readonly transactionalId: string | null;
  /** Transaction coordinator actor ids to send FindCoordinator(TRANSACTION) to. */
  readonly transactionCoordinators: readonly ActorId[];
  /** Group coordinator actor ids to send FindCoordinator(GROUP) to (sendOffsetsToTransaction). */
  readonly groupCoordinators: readonly ActorId[];
  /**
   * The cluster's finalized `transaction.version` feature level as the
   * client reads it (Kafka: ApiVersions), fixed for the run: 2 and above
   * runs transactions by KIP-890 part 2 (see TransactionManager). 0 by
   * default.
   */
  readonly transactionVersion?: number;
}

export interface ProducerClientOptions {
  /** The correlation ids of the client's requests (e.g. its host's counter); its own counter, from a random start, by default. */
  readonly nextCorrelationId?: () => number;
  /**
   * The name of its connections: "" (a producer process's own connections)
   * unless it shares its process with another client, as the producer an
   * application embeds beside its consumer does (Kafka: each client has its
   * own NetworkClient, so its own connections).
   */
  readonly connection?: string;
}

/** What the application hands to `send`. */
export interface OutgoingRecord {
  readonly topic: string;
  readonly key: string | null;
  readonly value: string;
  /** Bytes of the value the record stands for (the value itself is only a tag). */
  readonly valueBytes: number;
  /** When the application made the record (defaults to now): the start of its delivery timeout. */
  readonly createdAt?: Micros;
}

interface InFlightMetadata {
  readonly correlationId: number;
  readonly host: ActorId;
  readonly sentAt: Micros;
}

/** Where a transactional request can go now. */
type TxnTarget =
  | { readonly kind: "ready"; readonly target: ActorId }
  | { readonly kind: "unknown-coordinator" }
  | { readonly kind: "unreachable" };

/** `hosts` (made now if null) with `host` added. */
function withHost(hosts: Set<ActorId> | null, host: ActorId): Set<ActorId> {
  const set = hosts ?? new Set<ActorId>();
  set.add(host);
  return set;
}

/**
 * A Kafka producer client without an actor around it (Kafka's
 * `KafkaProducer` with its `Sender`, `RecordAccumulator`, `ProducerMetadata`
 * and `TransactionManager`): its host routes it the messages and timers it
 * does not handle itself (`receive`/`fire` say whether they were the
 * client's) and it speaks through the host's Context.
 *
 * - send: records are partitioned (murmur2 of the key; keyless records
 *   stick to a partition for batch.size bytes, KIP-794), batched per
 *   partition (linger.ms, batch.size) and sent to the leaders, at most max.in.flight.requests.per.connection requests per
 *   broker, with request.timeout.ms, retries with exponential backoff until
 *   delivery.timeout.ms, and metadata refreshes on leader errors; each
 *   record's SendHandle completes with its offset or error, and each batch's
 *   outcome is observed as `producer.ack`.
 * - idempotence (enable.idempotence): a producer id from a broker
 *   (InitProducerId without transactional id), per-partition sequences
 *   stamped at the first drain and kept across retries, retried batches
 *   re-queued in sequence order, and the transaction manager's handling of
 *   OUT_OF_ORDER_SEQUENCE_NUMBER, UNKNOWN_PRODUCER_ID, unresolved sequences
 *   and epoch bumps; DUPLICATE_SEQUENCE_NUMBER counts as acknowledged.
 * - transactions (transactional.id): the transaction manager's requests go
 *   out one at a time before any data (FindCoordinator to the configured
 *   coordinators, then InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn,
 *   TxnOffsetCommit, EndTxn; under transaction version 2 no
 *   AddPartitionsToTxn or AddOffsetsToTxn, and Produce v12) — see
 *   TransactionalProducer for the API.
 * - connections: a request timeout, or a SimDisconnect from a peer whose
 *   process is not running, fails every request in flight to that peer as
 *   a disconnect; the peer then waits out a reconnect backoff.
 *
 * Messages: MetadataResponse, ProduceResponse, the transaction responses,
 * SimDisconnect. Timers: `produce.sender`, `txn.request`.
 */
export class ProducerClient {
  readonly config: ProducerClientConfig;
  readonly transactionManager: TransactionManager | null;
  readonly #metadata: ProducerMetadata;
  readonly #accumulator: RecordAccumulator;
  readonly #reconnect = new ReconnectBackoff(DEFAULT_RECONNECT_BACKOFF_MS, DEFAULT_RECONNECT_BACKOFF_MAX_MS);
  readonly #produceInFlight = new InFlightProduceRequests();
  /** Batches created and not completed yet, queued or in flight (Kafka's `IncompleteBatches`). */
  readonly #incomplete = new Set<ProducerBatch>();
  readonly #nextCorrelationIdOption: (() => number) | undefined;
  /** The name of this producer's connections ("" unless it shares its process with another client). */
  readonly #connection: string;
  #metadataInFlight: InFlightMetadata | null = null;
  /** The actor's random stream, from its first start or send (the built-in partitioner draws from it). */
  #random: (() => number) | null = null;
  #correlationId = 0;
  #hostRotation = 0;
  #coordinatorRotation = 0;
  #acknowledged = 0;
  #failed = 0;
  /** The context of the event being handled (the transaction manager's observations go through it). */
  #ctx: Context | null = null;
  #notifications: (() => void)[] = [];
  #notifying = false;
  /** When the transactional request timer is due, if armed. */
  #txnWakeAt: Micros | null = null;
  /** The Produce version of its requests (Kafka's `Sender.sendProduceRequest`). */
  readonly #produceVersion: number;

  constructor(config: ProducerClientConfig, options: ProducerClientOptions = {}) {
    this.config = config;
    const s = config.settings;
    this.#nextCorrelationIdOption = options.nextCorrelationId;
    this.#connection = options.connection ?? "";
    this.#metadata = new ProducerMetadata(
      config.topics,
      ms(s["retry.backoff.ms"]),
      ms(s["retry.backoff.max.ms"]),
      ms(s["metadata.max.age.ms"]),
    );
    this.#accumulator = new RecordAccumulator(s["batch.size"], ms(s["linger.ms"]), {
      adaptive: s["partitioner.adaptive.partitioning.enable"],
      availabilityTimeout: ms(s["partitioner.availability.timeout.ms"]),
      random: () => (this.#random as () => number)(),
      cluster: this.#metadata,
    });
    const schedule = (notify: () => void) => this.#notifications.push(notify);
    const transactionVersion = config.transactionVersion ?? DEFAULT_TRANSACTION_VERSION;
    // kcsim's idempotent producer keeps its version whatever transaction.version says (Kafka's sends the latest).
    this.#produceVersion = config.transactionalId !== null && transactionVersion >= 2 ? PRODUCE_VERSION_TRANSACTION_V2 : PRODUCE_VERSION;
    this.transactionManager =
      config.idempotent || config.transactionalId !== null
        ? new TransactionManager({
            transactionalId: config.transactionalId,
            transactionTimeoutMs: s["transaction.timeout.ms"],
            retryBackoff: ms(s["retry.backoff.ms"]),
            transactionVersion,
            schedule,
            events: {
              producerIdChanged: (producer, reason) => this.#observeProducerId(producer, reason),
              transactionEnded: (outcome, producer, records, error) => this.#observeTransaction(outcome, producer, records, error),
            },
          })
        : null;
  }

  /** Sets up the client's random parts (the partitioner's draws, correlation ids) and starts its sender. */
  start(ctx: Context): void {
    this.#random = () => ctx.random();
    this.#correlationId = Math.floor(ctx.random() * 2 ** 30);
    if (this.transactionManager?.isTransactional) this.#coordinatorRotation = Math.floor(ctx.random() * 1024);
    this.wakeup(ctx);
  }

  #nextCorrelationId(): number {
    return this.#nextCorrelationIdOption?.() ?? ++this.#correlationId;
  }

  /** Runs the sender now (after an API call changed something), then the callbacks of what completed. */
  wakeup(ctx: Context): void {
    this.#ctx = ctx;
    this.#runOnce(ctx);
    this.#notify();
  }

  /** Queues a callback notification (results and handles completed while handling an event). */
  schedule(notify: () => void): void {
    this.#notifications.push(notify);
  }

  #notify(): void {
    if (this.#notifying) return;
    this.#notifying = true;
    try {
      for (let notify = this.#notifications.shift(); notify !== undefined; notify = this.#notifications.shift()) notify();
    } finally {
      this.#notifying = false;
    }
  }

  // --- KafkaProducer.send ---

  /**
   * KafkaProducer.send: a keyed record goes to murmur2(key) % partitions; a
   * keyless one (or any, with partitioner.ignore.keys) to the topic's
   * sticky partition, which the accumulator's built-in partitioner picks as
   * it appends (KIP-794). A record larger than max.request.size fails at
   * once, before it has a partition (Kafka's callback reports -1, keyed or
   * not); so does one the transaction manager refuses (no transaction
   * begun, an error state), reported at the partition it would have gone
   * to (a keyless one at the sticky partition).
   */
  send(record: OutgoingRecord, ctx: Context): SendHandle {
    this.#ctx = ctx;
    this.#random ??= () => ctx.random();
    const now = ctx.now();
    const { topic } = record;
    const partitions = this.#metadata.partitionCount(topic);
    const keyed = record.key !== null && !this.config.settings["partitioner.ignore.keys"];
    const schedule = (notify: () => void) => this.#notifications.push(notify);
    const createdAt = record.createdAt ?? now;
    const entry: ProducerRecord = {
      key: record.key,
      keyBytes: keyBytesOf(record.key),
      value: record.value,
      valueBytes: record.valueBytes,
      timestampMs: Math.floor(createdAt / 1000),
      createdAt,
    };
    const tm = this.transactionManager;
    const refusal = partitions === 0 ? producerErrorOf(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) : (tm?.sendRefusal() ?? null);
    // The key's partition, or UNKNOWN_PARTITION: the accumulator's built-in partitioner places the record.
    const target = keyed && partitions > 0 ? partitionForKey(record.key as string, partitions) : UNKNOWN_PARTITION;
    if (refusal !== null) {
      const partition = partitions === 0 ? -1 : keyed ? target : this.#accumulator.stickyPartition(topic);
      return this.#failedSend(topic, partition, refusal, createdAt, ctx);
    }
    const recordBytes = RECORD_BATCH_OVERHEAD + ProducerBatch.recordBytes(entry, 0, 0);
    if (recordBytes > this.config.settings["max.request.size"]) {
      const error = producerErrorOf(ErrorCode.MESSAGE_TOO_LARGE);
      tm?.sendFailed(error);
      return this.#failedSend(topic, UNKNOWN_PARTITION, error, createdAt, ctx);
    }
    const handle = new SendHandle(topic, target, schedule);
    const appended = this.#accumulator.append(topic, target, entry, handle);
    handle.setPartition(appended.partition);
    this.#incomplete.add(appended.batch);
    if (tm?.isTransactional) tm.maybeAddPartition({ topic, partition: appended.partition });
    this.wakeup(ctx);
    return handle;
  }

  #failedSend(topic: string, partition: number, error: ProducerError, createdAt: Micros, ctx: Context): SendHandle {
    const handle = new SendHandle(topic, partition, (notify) => this.#notifications.push(notify));
    handle.complete(-1, error);
    this.#failed++;
    this.#observeAck(topic, partition, -1, 1, error.errorCode, createdAt, null, ctx);
    return handle;
  }

  // --- the Sender ---

  /**
   * One pass of Kafka's Sender: time out requests; with a transaction
   * manager, resolve sequences, fail everything after a fatal error, bump
   * an idempotent epoch if needed, and send the next transactional request
   * (no data goes out while one is in flight or waiting to be retried);
   * expire batches; refresh metadata; send what is ready; then sleep until
   * something is due.
   */
  /** The metadata's leader lookup as a function value, made once (the sender passes it on every pass). */
  readonly #leaderOf = (topic: string, partition: number): number | undefined => this.#metadata.leaderOf(topic, partition);

  #runOnce(ctx: Context): void {
    const now = ctx.now();
    const settings = this.config.settings;
    const requestTimeout = ms(settings["request.timeout.ms"]);
    const deliveryTimeout = ms(settings["delivery.timeout.ms"]);
    this.#timeOutRequests(now, requestTimeout, ctx);
    const tm = this.transactionManager;
    let holdData = false;
    this.#txnWakeAt = null;
    if (tm !== null) {
      tm.maybeResolveSequences();
      if (tm.hasFatalError) {
        const error = tm.lastError ?? clientError("KafkaException");
        for (const batch of [...this.#incomplete]) this.#failBatch(batch, error, false, ctx);
        this.#accumulator.takeBatches("all");
        holdData = true;
      } else {
        tm.bumpIdempotentEpochAndResetIdIfNeeded();
        holdData = this.#maybeSendTransactionalRequest(ctx);
      }
    }
    this.#expireBatches(now, deliveryTimeout, ctx);
    const leaderOf = this.#leaderOf;
    const gate: DrainGate | undefined = tm ?? undefined;
    // Kafka's sender skips its ready pass while a transactional request goes first: such a pass leaves the load stats alone.
    const ready = this.#accumulator.ready(leaderOf, now, gate, tm?.isCompleting ?? false, !holdData);
    if (ready.unknownLeader) this.#metadata.requestUpdate();
    this.#maybeSendMetadata(ctx);
    if (!holdData) {
      const maxInFlight = settings["max.in.flight.requests.per.connection"];
      const reachable = (node: number) => {
        const host = this.#metadata.hostOf(node);
        return host === undefined || !this.#reconnect.isUnavailable(host, now);
      };
      const nodes: number[] = [];
      for (const node of ready.readyNodes) {
        const canDrain = this.#produceInFlight.countTo(node) < maxInFlight && reachable(node);
        this.#accumulator.updateNodeLatencyStats(node, now, canDrain);
        if (canDrain) nodes.push(node);
      }
      for (const [node, batches] of this.#accumulator.drain(leaderOf, nodes, settings["max.request.size"], now, gate))
        this.#sendProduce(node, batches, ctx);
    }
    this.#armTimers(now, ready.nextReadyCheckDelay, holdData, ctx);
  }

  #armTimers(now: Micros, nextReadyCheckDelay: Micros, holdData: boolean, ctx: Context): void {
    const settings = this.config.settings;
    const requestTimeout = ms(settings["request.timeout.ms"]);
    const deliveryTimeout = ms(settings["delivery.timeout.ms"]);
    let wakeAt = holdData ? Number.POSITIVE_INFINITY : now + nextReadyCheckDelay;
    const inFlight = this.#produceInFlight.inSendOrder();
    for (let i = 0; i < inFlight.length; i++) {
      const request = inFlight[i] as InFlightProduce;
      wakeAt = Math.min(wakeAt, request.sentAt + requestTimeout);
      const batches = request.batches;
      for (let b = 0; b < batches.length; b++) {
        const batch = batches[b] as ProducerBatch;
        if (!batch.done) wakeAt = Math.min(wakeAt, batch.createdAt + deliveryTimeout);
      }
    }
    const oldest = this.#accumulator.oldestCreatedAt();
    if (oldest !== undefined) wakeAt = Math.min(wakeAt, oldest + deliveryTimeout);
    const reconnectAt = this.#reconnect.nextAvailableAt(now);
    if (reconnectAt !== null) wakeAt = Math.min(wakeAt, reconnectAt);
    if (this.#metadataInFlight !== null) wakeAt = Math.min(wakeAt, this.#metadataInFlight.sentAt + requestTimeout);
    else if (this.#hasMetadataHost(now)) wakeAt = Math.min(wakeAt, Math.max(this.#metadata.dueAt(), now + 1));
    if (Number.isFinite(wakeAt)) ctx.setTimer(SENDER_TIMER, Math.max(1, wakeAt - now));
    else ctx.cancelTimer(SENDER_TIMER);

    const txnInFlight = this.transactionManager?.inFlightRequest ?? null;
    const txnAt = txnInFlight !== null ? txnInFlight.sentAt + requestTimeout : this.#txnWakeAt;
    if (txnAt !== null) ctx.setTimer(TXN_TIMER, Math.max(1, txnAt - now));
    else ctx.cancelTimer(TXN_TIMER);
  }

  /**
   * Batches past delivery.timeout.ms fail (Kafka's `expiredBatches` and
   * `getExpiredInflightBatches`); one that was ever sent leaves its
   * partition's sequences unresolved (it may or may not be in the log).
   */
  #expireBatches(now: Micros, deliveryTimeout: Micros, ctx: Context): void {
    // Queued batches first, then those in flight, as Kafka's sender fails them.
    const queued = this.#accumulator.expiredBatches(deliveryTimeout, now);
    let inFlightExpired: ProducerBatch[] | null = null;
    const inFlight = this.#produceInFlight.inSendOrder();
    for (let i = 0; i < inFlight.length; i++) {
      const batches = (inFlight[i] as InFlightProduce).batches;
      for (let b = 0; b < batches.length; b++) {
        const batch = batches[b] as ProducerBatch;
        if (batch.done || now - batch.createdAt < deliveryTimeout) continue;
        inFlightExpired ??= [];
        inFlightExpired.push(batch);
      }
    }
    for (const batch of queued) this.#expireBatch(batch, ctx);
    if (inFlightExpired !== null) for (const batch of inFlightExpired) this.#expireBatch(batch, ctx);
  }

  #expireBatch(batch: ProducerBatch, ctx: Context): void {
    if (batch.done) return;
    this.#failBatch(batch, producerErrorOf(ErrorCode.REQUEST_TIMED_OUT), false, ctx);
    this.#accumulator.unmute(batch.topic, batch.partition);
    if (this.transactionManager !== null && batch.everSent && batch.hasSequence) this.transactionManager.markSequenceUnresolved(batch);
  }

  /** A request unanswered for request.timeout.ms closes its connection: everything in flight on it fails (Kafka's NetworkClient). */
  #timeOutRequests(now: Micros, requestTimeout: Micros, ctx: Context): void {
    // Made on the first request timed out (checked on every pass of the sender, almost always none).
    let timedOut: Set<ActorId> | null = null;
    const inFlight = this.#produceInFlight.inSendOrder();
    for (let i = 0; i < inFlight.length; i++) {
      const request = inFlight[i] as InFlightProduce;
      if (now - request.sentAt >= requestTimeout) timedOut = withHost(timedOut, request.host);
    }
    const metadata = this.#metadataInFlight;
    if (metadata !== null && now - metadata.sentAt >= requestTimeout) timedOut = withHost(timedOut, metadata.host);
    const txn = this.transactionManager?.inFlightRequest ?? null;
    if (txn !== null && now - txn.sentAt >= requestTimeout) timedOut = withHost(timedOut, txn.target);
    if (timedOut !== null) for (const host of timedOut) this.#disconnect(host, ctx, true);
  }

  /**
   * The connection to `host` is gone (a request timed out, or the peer reset
   * it): every request in flight on it fails as a disconnect, the peer waits
   * out a reconnect backoff and metadata is refreshed. Returns whether
   * anything was in flight to it.
   */
  #disconnect(host: ActorId, ctx: Context, timedOut = false): boolean {
    if (timedOut) ctx.closeConnection(host, this.#connection);
    const now = ctx.now();
    let failed = false;
    for (const request of [...this.#produceInFlight.inSendOrder()]) {
      if (request.host !== host) continue;
      this.#produceInFlight.delete(request.correlationId);
      for (const batch of request.batches) this.#completeBatch(batch, ErrorCode.NETWORK_EXCEPTION, -1, -1, ctx);
      failed = true;
    }
    if (this.#metadataInFlight?.host === host) {
      this.#metadataInFlight = null;
      this.#metadata.failed(now);
      failed = true;
    }
    const tm = this.transactionManager;
    if (tm?.inFlightRequest?.target === host) {
      tm.inFlightFailed();
      failed = true;
    }
    if (failed) {
      this.#reconnect.disconnected(host, now);
      this.#metadata.requestUpdate();
    }
    return failed;
  }

  // --- transactional requests ---

  /**
   * Kafka's `maybeSendAndPollTransactionalRequest`: returns true while data
   * must wait (a transactional request in flight, sent now, or waiting its
   * retry backoff). An aborting transaction first fails the batches that
   * never went out.
   */
  #maybeSendTransactionalRequest(ctx: Context): boolean {
    const tm = this.transactionManager as TransactionManager;
    const now = ctx.now();
    if (tm.hasInFlightRequest) return true;
    if ((tm.hasAbortableError || tm.isAborting) && this.#accumulator.hasUndrained) {
      const error = tm.lastError ?? clientError("TransactionAbortedException");
      for (const batch of this.#accumulator.takeBatches("unstamped")) this.#failBatch(batch, error, false, ctx);
    }
    for (;;) {
      const handler = tm.nextRequest(this.#incomplete.size > 0);
      if (handler === null) return false;
      if (handler.isRetry) {
        // Kafka's sender sleeps retry.backoff.ms before resending a transactional request.
        handler.retryAt ??= now + tm.retryBackoffOf(handler);
        if (handler.retryAt > now) {
          tm.putBack(handler);
          this.#txnWakeAt = handler.retryAt;
          return true;
        }
      }
      const target = this.#targetOf(handler, now);
      if (target.kind !== "ready") {
        const type = handler.coordinatorType(tm.isTransactional);
        const key = handler.coordinatorKey(tm.transactionalId);
        if (type !== null && key !== null) tm.lookupCoordinator(type, key);
        else if (handler.request.kind !== "find-coordinator") this.#metadata.requestUpdate();
        tm.retry(handler);
        continue;
      }
      handler.retryAt = null;
      // The next lookup asks the next coordinator: one that does not own the key answers NOT_COORDINATOR here.
      if (handler.request.kind === "find-coordinator") this.#coordinatorRotation++;
      const correlationId = this.#nextCorrelationId();
      tm.setInFlight({ correlationId, target: target.target, sentAt: now, handler });
      ctx.send(target.target, tm.requestOf(handler, correlationId, this.#clientId()), this.#connection);
      return true;
    }
  }

  /**
   * Where a transactional request goes: its coordinator (unknown or in
   * reconnect backoff: look it up again); FindCoordinator to the configured
   * coordinators of its kind, round robin from a random start (each lookup
   * asks the next one: in the simulation only the owner of a key answers
   * it, where any Kafka broker would); an idempotent producer's
   * InitProducerId to the least loaded broker.
   */
  #targetOf(handler: TxnRequestHandler, now: Micros): TxnTarget {
    const tm = this.transactionManager as TransactionManager;
    const type = handler.coordinatorType(tm.isTransactional);
    if (type !== null) {
      const coordinator = tm.coordinator(type);
      if (coordinator === null) return { kind: "unknown-coordinator" };
      return this.#reconnect.isUnavailable(coordinator, now) ? { kind: "unreachable" } : { kind: "ready", target: coordinator };
    }
    const request = handler.request;
    if (request.kind === "find-coordinator") {
      const candidates = request.coordinatorType === "group" ? this.config.groupCoordinators : this.config.transactionCoordinators;
      for (let i = 0; i < candidates.length; i++) {
        const candidate = candidates[(this.#coordinatorRotation + i) % candidates.length] as ActorId;
        if (!this.#reconnect.isUnavailable(candidate, now)) return { kind: "ready", target: candidate };
      }
      return { kind: "unreachable" };
    }
    const host = this.#leastLoadedBroker(now);
    return host === undefined ? { kind: "unreachable" } : { kind: "ready", target: host };
  }

  #clientId(): string {
    return this.config.clientId;
  }

  // --- produce ---

  #sendProduce(node: number, batches: readonly ProducerBatch[], ctx: Context): void {
    const host = this.#metadata.hostOf(node);
    if (host === undefined) {
      for (const batch of batches) this.#accumulator.reenqueue(batch);
      return;
    }
    const settings = this.config.settings;
    const correlationId = this.#nextCorrelationId();
    const topicData: ProduceRequest["topicData"] = [];
    for (const batch of batches) {
      batch.everSent = true;
      let topic = topicData.find((t) => t.name === batch.topic);
      if (topic === undefined) {
        topic = { name: batch.topic, partitionData: [] };
        topicData.push(topic);
      }
      topic.partitionData.push({ index: batch.partition, records: batch.toRecordBatch() });
    }
    ctx.send(
      host,
      {
        type: "ProduceRequest",
        correlationId,
        apiVersion: this.#produceVersion,
        clientId: this.#clientId(),
        transactionalId: this.config.transactionalId,
        acks: this.config.acks,
        timeoutMs: settings["request.timeout.ms"],
        topicData,
      },
      this.#connection,
    );
    if (this.config.acks === 0) {
      // No response will come: the batches are done as soon as they are sent, with no offsets.
      for (const batch of batches) this.#completeBatch(batch, ErrorCode.NONE, -1, -1, ctx);
      return;
    }
    this.#produceInFlight.add({ correlationId, node, host, sentAt: ctx.now(), batches });
    if (settings["max.in.flight.requests.per.connection"] === 1)
      for (const batch of batches) this.#accumulator.mute(batch.topic, batch.partition);
  }

  #onProduceResponse(from: ActorId, response: ProduceResponse, ctx: Context): boolean {
    const request = this.#produceInFlight.get(response.correlationId);
    if (request === undefined || request.host !== from) return false;
    this.#produceInFlight.delete(response.correlationId);
    this.#reconnect.answered(request.host);
    for (const batch of request.batches) {
      const answer = response.responses.find((t) => t.name === batch.topic)?.partitionResponses.find((p) => p.index === batch.partition);
      this.#completeBatch(
        batch,
        answer?.errorCode ?? ErrorCode.NETWORK_EXCEPTION,
        answer?.baseOffset ?? -1,
        answer?.logStartOffset ?? -1,
        ctx,
        from,
      );
    }
    return true;
  }

  /**
   * A batch's answer (Kafka's `Sender.completeBatch`): acknowledged; split
   * and re-queued if too large; retried after a backoff if the error may be
   * retried (the transaction manager decides for an idempotent producer)
   * and the delivery timeout and retries allow; DUPLICATE_SEQUENCE_NUMBER
   * counts as acknowledged (offset unknown); failed otherwise. Errors that
   * mean stale metadata ask for a refresh.
   */
  #completeBatch(
    batch: ProducerBatch,
    errorCode: number,
    baseOffset: number,
    logStartOffset: number,
    ctx: Context,
    leader: ActorId | null = null,
  ): void {
    this.#accumulator.unmute(batch.topic, batch.partition);
    if (batch.done) return;
    const now = ctx.now();
    const settings = this.config.settings;
    const tm = this.transactionManager;
    if (errorCode === ErrorCode.NONE) {
      this.#acknowledge(batch, baseOffset, ctx, baseOffset >= 0 ? leader : null);
      return;
    }
    if (INVALID_METADATA.has(errorCode)) this.#metadata.requestUpdate();
    if (errorCode === ErrorCode.MESSAGE_TOO_LARGE && batch.recordCount > 1) {
      batch.done = true;
      this.#incomplete.delete(batch);
      tm?.sequences.get(batch.topic, batch.partition)?.remove(batch);
      const parts = batch.split(this.#accumulator.batchSize);
      for (let i = parts.length - 1; i >= 0; i--) {
        const part = parts[i] as ProducerBatch;
        this.#incomplete.add(part);
        if (part.hasSequence) tm?.sequences.getOrCreate(part.topic, part.partition).add(part);
        this.#accumulator.reenqueue(part);
      }
      return;
    }
    // Kafka's canRetry: the transaction manager is only asked (it may plan an epoch bump) when the limits allow a retry.
    const withinLimits = now - batch.createdAt < ms(settings["delivery.timeout.ms"]) && batch.attempts < settings.retries;
    const retriable =
      withinLimits && (tm === null ? RETRIABLE_PRODUCE_ERRORS.has(errorCode) : tm.canRetry(errorCode, logStartOffset, batch));
    if (retriable) {
      const initial = ms(settings["retry.backoff.ms"]);
      const max = Math.max(initial, ms(settings["retry.backoff.max.ms"]));
      const factor = 1 - RETRY_JITTER + ctx.random() * 2 * RETRY_JITTER;
      batch.reenqueued(now, Math.min(max, Math.floor(initial * 2 ** Math.min(batch.attempts, 30) * factor)));
      this.#accumulator.reenqueue(batch);
      return;
    }
    if (errorCode === ErrorCode.DUPLICATE_SEQUENCE_NUMBER) {
      // The sequence is behind what the broker has, which no longer remembers this batch's offsets: it was written.
      this.#acknowledge(batch, -1, ctx, null);
      return;
    }
    // Sequences are only adjusted when retries were not exhausted: otherwise the broker may have it.
    this.#failBatch(batch, producerErrorOf(errorCode), batch.attempts < settings.retries, ctx);
  }

  #acknowledge(batch: ProducerBatch, baseOffset: number, ctx: Context, leader: ActorId | null): void {
    batch.done = true;
    this.#incomplete.delete(batch);
    this.#acknowledged++;
    this.transactionManager?.handleCompletedBatch(batch, baseOffset);
    batch.completeHandles(baseOffset, null);
    this.#observeAck(batch.topic, batch.partition, baseOffset, batch.recordCount, ErrorCode.NONE, batch.createdAt, batch, ctx, leader);
  }

  #failBatch(batch: ProducerBatch, error: ProducerError, adjustSequenceNumbers: boolean, ctx: Context): void {
    if (batch.done) return;
    batch.done = true;
    this.#incomplete.delete(batch);
    this.#failed++;
    this.transactionManager?.handleFailedBatch(batch, error, adjustSequenceNumbers);
    batch.completeHandles(-1, error);
    this.#observeAck(batch.topic, batch.partition, -1, batch.recordCount, error.errorCode, batch.createdAt, batch, ctx);
  }

  // --- metadata ---

  /** Where a metadata request may go now: the known brokers (the bootstrap brokers before any metadata) not in reconnect backoff. */
  #metadataHosts(now: Micros): ActorId[] {
    return this.#metadataCandidates().filter((host) => !this.#reconnect.isUnavailable(host, now));
  }

  /** Whether `#metadataHosts(now)` has any, without making the list. */
  #hasMetadataHost(now: Micros): boolean {
    return this.#metadataCandidates().some((host) => !this.#reconnect.isUnavailable(host, now));
  }

  /** The known brokers, or the bootstrap servers while none is known. */
  #metadataCandidates(): readonly ActorId[] {
    const known = this.#metadata.brokerHosts();
    return known.length > 0 ? known : this.config.bootstrap;
  }

  /** Kafka's `leastLoadedNode` among the reachable brokers, ties going round-robin. */
  #leastLoadedBroker(now: Micros): ActorId | undefined {
    const candidates = this.#metadataHosts(now);
    if (candidates.length === 0) return undefined;
    const load = (host: ActorId) => this.#produceInFlight.countOn(host);
    let host = candidates[this.#hostRotation % candidates.length] as ActorId;
    for (let i = 1; i < candidates.length; i++) {
      const candidate = candidates[(this.#hostRotation + i) % candidates.length] as ActorId;
      if (load(candidate) < load(host)) host = candidate;
    }
    this.#hostRotation++;
    return host;
  }

  /** A metadata request to the least loaded reachable broker (none while every broker is in reconnect backoff). */
  #maybeSendMetadata(ctx: Context): void {
    const now = ctx.now();
    if (this.#metadataInFlight !== null || this.#metadata.dueAt() > now) return;
    const host = this.#leastLoadedBroker(now);
    if (host === undefined) return;
    const correlationId = this.#nextCorrelationId();
    this.#metadataInFlight = { correlationId, host, sentAt: now };
    this.#metadata.attempted(now);
    ctx.send(
      host,
      {
        type: "MetadataRequest",
        correlationId,
        apiVersion: 12,
        clientId: this.#clientId(),
        topics: this.#metadata.topicNames().map((name) => ({ topicId: null, name })),
      },
      this.#connection,
    );
  }

  #onMetadata(from: ActorId, response: MetadataResponse, ctx: Context): boolean {
    const inFlight = this.#metadataInFlight;
    if (inFlight === null || inFlight.correlationId !== response.correlationId || inFlight.host !== from) return false;
    this.#metadataInFlight = null;
    this.#reconnect.answered(from);
    this.#metadata.update(response, ctx.now());
    return true;
  }

  // --- routing ---

  /**
   * A message for the client: true if it was the client's (an answer to one
   * of its requests, or a SimDisconnect from a peer it had requests in
   * flight to, which fails them all).
   */
  receive(from: ActorId, message: Message, ctx: Context): boolean {
    this.#ctx = ctx;
    let handled: boolean;
    switch (message.type) {
      case "MetadataResponse":
        handled = this.#onMetadata(from, message, ctx);
        break;
      case "ProduceResponse":
        handled = this.#onProduceResponse(from, message, ctx);
        break;
      case "SimDisconnect":
        handled = disconnects(message, this.#connection) && this.#disconnect(from, ctx);
        break;
      default:
        handled = this.transactionManager?.receive(from, message) ?? false;
        if (handled) this.#reconnect.answered(from);
    }
    if (!handled) return false;
    this.wakeup(ctx);
    return true;
  }

  /** A timer of the client's (`produce.*`, `txn.*`); false if it is not one. */
  fire(timer: string, ctx: Context): boolean {
    if (timer !== SENDER_TIMER && timer !== TXN_TIMER) return false;
    this.wakeup(ctx);
    return true;
  }

  // --- observations ---

  #observeAck(
    topic: string,
    partition: number,
    baseOffset: number,
    count: number,
    errorCode: number,
    createdAt: Micros,
    batch: ProducerBatch | null,
    ctx: Context,
    leader: ActorId | null = null,
  ): void {
    const observation: ProducerAckObservation = {
      type: "producer.ack",
      topic,
      partition,
      baseOffset,
      lastOffset: baseOffset >= 0 ? baseOffset + count - 1 : -1,
      count,
      acks: this.config.settings.acks,
      errorCode,
      latencyMs: toMs(ctx.now() - createdAt),
      producerId: batch?.producerId ?? -1,
      producerEpoch: batch?.producerEpoch ?? -1,
      baseSequence: batch?.baseSequence ?? -1,
      transactionalId: this.config.transactionalId,
      leader,
    };
    ctx.observe({ ...observation });
  }

  #observeProducerId(producer: ProducerIdAndEpoch, reason: ProducerIdChangeReason): void {
    const observation: ProducerIdObservation = {
      type: "producer.id",
      transactionalId: this.config.transactionalId,
      producerId: producer.producerId,
      producerEpoch: producer.epoch,
      reason,
    };
    this.#ctx?.observe({ ...observation });
  }

  #observeTransaction(outcome: TransactionOutcome, producer: ProducerIdAndEpoch, records: number, error: ProducerError | null): void {
    const transactionalId = this.config.transactionalId;
    if (transactionalId === null) return;
    const observation: ProducerTransactionObservation = {
      type: "producer.txn",
      transactionalId,
      producerId: producer.producerId,
      producerEpoch: producer.epoch,
      outcome,
      records,
      error: error?.name ?? "NONE",
    };
    this.#ctx?.observe({ ...observation });
  }

  /** Counts and queues, for snapshots. */
  snapshot(): JsonValue {
    const tm = this.transactionManager;
    return {
      acknowledgedBatches: this.#acknowledged,
      failedBatches: this.#failed,
      queuedBatches: this.#accumulator.queuedBatches,
      inFlightRequests: this.#produceInFlight.size,
      producerId: tm?.producerIdAndEpoch.producerId ?? -1,
      producerEpoch: tm?.producerIdAndEpoch.epoch ?? -1,
      transactionState: tm?.isTransactional ? tm.state : null,
    };
  }
}
