import {
  type Actor,
  type ActorId,
  type Context,
  ErrorCode,
  type JsonValue,
  type Message,
  type MetadataResponse,
  type Micros,
  ms,
  type ProduceRequest,
  type ProduceResponse,
  toMs,
} from "@kcsim/protocol";
import type { ProducerAckObservation } from "../observations.js";
import { partitionForKey } from "./murmur2.js";
import { type ProducerActorConfig, parseProducerActorConfig } from "./producer-actor-config.js";
import { ProducerBatch, type ProducerRecord } from "./producer-batch.js";
import { ProducerMetadata } from "./producer-metadata.js";
import { RecordAccumulator } from "./record-accumulator.js";
import { RECORD_BATCH_OVERHEAD } from "./record-size.js";
import { StickyPartitionCache } from "./sticky-partition-cache.js";
import { KeyChooser, RecordSchedule, sampleValueBytes } from "./workload.js";

const SENDER_TIMER = "sender";
const WORKLOAD_TIMER = "workload";

/** Sequence numbers are reserved in durable storage in blocks, so a restarted producer never reuses a value tag. */
const SEQUENCE_BLOCK = 1000;

/** Kafka's producer retry backoff jitter (KIP-580). */
const RETRY_JITTER = 0.2;

/** Errors after which a batch may be retried (Kafka's RetriableException subclasses the broker sends). */
const RETRIABLE = new Set<number>([
  ErrorCode.CORRUPT_MESSAGE,
  ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
  ErrorCode.LEADER_NOT_AVAILABLE,
  ErrorCode.NOT_LEADER_OR_FOLLOWER,
  ErrorCode.REQUEST_TIMED_OUT,
  ErrorCode.REPLICA_NOT_AVAILABLE,
  ErrorCode.NETWORK_EXCEPTION,
  ErrorCode.NOT_ENOUGH_REPLICAS,
  ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND,
  ErrorCode.KAFKA_STORAGE_ERROR,
  ErrorCode.FENCED_LEADER_EPOCH,
  ErrorCode.UNKNOWN_LEADER_EPOCH,
  ErrorCode.OFFSET_NOT_AVAILABLE,
  ErrorCode.UNKNOWN_TOPIC_ID,
]);

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

interface InFlightProduce {
  readonly node: number;
  /** The broker actor the request went to (its connection). */
  readonly host: ActorId;
  readonly sentAt: Micros;
  readonly batches: readonly ProducerBatch[];
}

interface InFlightMetadata {
  readonly correlationId: number;
  readonly host: ActorId;
  readonly sentAt: Micros;
}

/** What the producer keeps across crashes: the end of the last reserved block of sequence numbers. */
interface SequenceReservation {
  readonly sequenceReservedUpTo: number;
}

/**
 * A Kafka producer (actor kind "producer") driven by a workload: records
 * with unique values `<actor id>:<sequence>` are partitioned as Kafka's
 * default partitioner does (murmur2 of the key, the KIP-480 sticky
 * partitioner for null keys), batched per partition by linger.ms and
 * batch.size (Kafka's RecordAccumulator), and sent to the partition leaders
 * (Kafka's Sender: at most max.in.flight.requests.per.connection requests
 * per broker, request.timeout.ms, retries with exponential backoff until
 * delivery.timeout.ms, metadata refresh on leader errors). A SimDisconnect
 * from a broker (its process is not running: the connection was reset)
 * fails every request in flight to it at once with NETWORK_EXCEPTION, as
 * Kafka's NetworkClient does on a disconnect, and as a request timeout does
 * here. Each batch's outcome is observed as `producer.ack`.
 *
 * Not implemented yet (a later issue): idempotence and transactions, so
 * producer id, epoch and base sequence are -1 and enable.idempotence is
 * false. Records are never blocked on metadata: the configured partition
 * count is used until metadata arrives.
 */
export class ProducerActor implements Actor {
  readonly id: ActorId;
  readonly config: ProducerActorConfig;
  readonly #metadata: ProducerMetadata;
  readonly #accumulator: RecordAccumulator;
  readonly #schedule: RecordSchedule;
  readonly #keys: KeyChooser | null;
  #sticky: StickyPartitionCache | null = null;
  readonly #produceInFlight = new Map<number, InFlightProduce>();
  #metadataInFlight: InFlightMetadata | null = null;
  #correlationId = 0;
  #nextSequence = 0;
  #sequenceReservedUpTo = 0;
  #hostRotation = 0;
  #acknowledged = 0;
  #failed = 0;

  constructor(id: ActorId, config: ProducerActorConfig) {
    this.id = id;
    this.config = config;
    const s = config.settings;
    this.#metadata = new ProducerMetadata(
      config.topics,
      ms(s["retry.backoff.ms"]),
      ms(s["retry.backoff.max.ms"]),
      ms(s["metadata.max.age.ms"]),
    );
    this.#accumulator = new RecordAccumulator(s["batch.size"], ms(s["linger.ms"]));
    this.#schedule = new RecordSchedule(config.workload);
    this.#keys = config.workload.keys === null ? null : new KeyChooser(config.workload.keys);
  }

  start(ctx: Context): void {
    this.#sticky = new StickyPartitionCache(() => ctx.random());
    this.#correlationId = Math.floor(ctx.random() * 2 ** 30);
    const reservations = ctx.storage.readAll() as SequenceReservation[];
    this.#nextSequence = reservations.reduce((max, r) => Math.max(max, r.sequenceReservedUpTo), 0);
    this.#sequenceReservedUpTo = this.#nextSequence;
    this.#schedule.reset(ctx.now());
    this.#armWorkload(ctx);
    this.#runOnce(ctx);
  }

  receive(from: ActorId, message: Message, ctx: Context): void {
    if (message.type === "MetadataResponse") this.#onMetadata(from, message, ctx);
    else if (message.type === "ProduceResponse") this.#onProduceResponse(message, ctx);
    else if (message.type === "SimDisconnect") this.#onDisconnect(from, ctx);
    this.#runOnce(ctx);
  }

  fire(timer: string, ctx: Context): void {
    if (timer === WORKLOAD_TIMER) {
      const due = this.#schedule.take(ctx.now());
      for (let i = 0; i < due; i++) this.#send(this.#nextRecord(ctx), ctx);
      this.#armWorkload(ctx);
    }
    this.#runOnce(ctx);
  }

  #armWorkload(ctx: Context): void {
    const next = this.#schedule.nextDueAt();
    if (next === undefined) ctx.cancelTimer(WORKLOAD_TIMER);
    else ctx.setTimer(WORKLOAD_TIMER, Math.max(1, next - ctx.now()));
  }

  #nextRecord(ctx: Context): ProducerRecord {
    if (this.#nextSequence >= this.#sequenceReservedUpTo) {
      this.#sequenceReservedUpTo = this.#nextSequence + SEQUENCE_BLOCK;
      const reservation: SequenceReservation = { sequenceReservedUpTo: this.#sequenceReservedUpTo };
      ctx.storage.append(reservation);
    }
    const random = () => ctx.random();
    const now = ctx.now();
    return {
      key: this.#keys?.next(random) ?? null,
      value: `${this.id}:${this.#nextSequence++}`,
      valueBytes: sampleValueBytes(this.config.workload.valueBytes, random),
      timestampMs: Math.floor(now / 1000),
      createdAt: now,
    };
  }

  /**
   * KafkaProducer.send: picks the partition and appends; a keyless record
   * that would open a new batch makes the sticky partitioner move on first
   * (KIP-480). A record larger than max.request.size fails at once.
   */
  #send(record: ProducerRecord, ctx: Context): void {
    const topic = this.config.workload.topic;
    const partitions = this.#metadata.partitionCount(topic);
    const sticky = this.#sticky as StickyPartitionCache;
    const available = () => this.#metadata.availablePartitions(topic);
    const choose = () => (record.key !== null ? partitionForKey(record.key, partitions) : sticky.partition(topic, partitions, available()));
    const recordBytes = RECORD_BATCH_OVERHEAD + ProducerBatch.recordBytes(record, 0, 0);
    if (recordBytes > this.config.settings["max.request.size"]) {
      this.#observeAck(topic, choose(), -1, 1, ErrorCode.MESSAGE_TOO_LARGE, record.createdAt, ctx);
      this.#failed++;
      return;
    }
    let partition = choose();
    if (this.#accumulator.append(topic, partition, record, true) === "abort-for-new-batch") {
      sticky.nextPartition(topic, partitions, available(), partition);
      partition = choose();
      this.#accumulator.append(topic, partition, record, false);
    }
  }

  // --- the sender loop ---

  /** One pass of Kafka's Sender: time out requests, expire batches, refresh metadata, send what is ready; then sleep until something is due. */
  #runOnce(ctx: Context): void {
    const now = ctx.now();
    const settings = this.config.settings;
    const requestTimeout = ms(settings["request.timeout.ms"]);
    const deliveryTimeout = ms(settings["delivery.timeout.ms"]);
    this.#timeOutRequests(now, requestTimeout, ctx);
    for (const batch of this.#accumulator.expiredBatches(deliveryTimeout, now)) this.#fail(batch, ErrorCode.REQUEST_TIMED_OUT, ctx);
    for (const request of this.#produceInFlight.values()) {
      for (const batch of request.batches) {
        if (!batch.done && now - batch.createdAt >= deliveryTimeout) {
          this.#fail(batch, ErrorCode.REQUEST_TIMED_OUT, ctx);
          this.#accumulator.unmute(batch.topic, batch.partition);
        }
      }
    }
    const leaderOf = (topic: string, partition: number) => this.#metadata.leaderOf(topic, partition);
    const ready = this.#accumulator.ready(leaderOf, now);
    if (ready.unknownLeader) this.#metadata.requestUpdate();
    this.#maybeSendMetadata(ctx);
    const maxInFlight = settings["max.in.flight.requests.per.connection"];
    const nodes = [...ready.readyNodes].filter((node) => this.#inFlightTo(node) < maxInFlight);
    for (const [node, batches] of this.#accumulator.drain(leaderOf, nodes, settings["max.request.size"], now))
      this.#sendProduce(node, batches, ctx);

    let wakeAt = now + ready.nextReadyCheckDelay;
    for (const request of this.#produceInFlight.values()) {
      wakeAt = Math.min(wakeAt, request.sentAt + requestTimeout);
      for (const batch of request.batches) if (!batch.done) wakeAt = Math.min(wakeAt, batch.createdAt + deliveryTimeout);
    }
    const oldest = this.#accumulator.oldestCreatedAt();
    if (oldest !== undefined) wakeAt = Math.min(wakeAt, oldest + deliveryTimeout);
    if (this.#metadataInFlight !== null) wakeAt = Math.min(wakeAt, this.#metadataInFlight.sentAt + requestTimeout);
    else wakeAt = Math.min(wakeAt, Math.max(this.#metadata.dueAt(), now + 1));
    if (Number.isFinite(wakeAt)) ctx.setTimer(SENDER_TIMER, Math.max(1, wakeAt - now));
    else ctx.cancelTimer(SENDER_TIMER);
  }

  #inFlightTo(node: number): number {
    let n = 0;
    for (const request of this.#produceInFlight.values()) if (request.node === node) n++;
    return n;
  }

  /** A request unanswered for request.timeout.ms closes its connection: everything in flight on it fails (Kafka's NetworkClient). */
  #timeOutRequests(now: Micros, requestTimeout: Micros, ctx: Context): void {
    const timedOutNodes = new Set<number>();
    for (const request of this.#produceInFlight.values()) if (now - request.sentAt >= requestTimeout) timedOutNodes.add(request.node);
    this.#failProduceRequests((request) => timedOutNodes.has(request.node), ctx);
    const metadata = this.#metadataInFlight;
    if (metadata !== null && now - metadata.sentAt >= requestTimeout) {
      this.#metadataInFlight = null;
      this.#metadata.failed(now);
    }
    if (timedOutNodes.size > 0) this.#metadata.requestUpdate();
  }

  /**
   * `host` reset the connection (its process is not running): every request
   * in flight to it fails at once as a disconnect, as on a request timeout;
   * the batches retry after their backoff with refreshed metadata. With
   * nothing in flight to it (a repeated reset) nothing happens.
   */
  #onDisconnect(host: ActorId, ctx: Context): void {
    const failedProduce = this.#failProduceRequests((request) => request.host === host, ctx);
    const failedMetadata = this.#metadataInFlight?.host === host;
    if (failedMetadata) {
      this.#metadataInFlight = null;
      this.#metadata.failed(ctx.now());
    }
    if (failedProduce || failedMetadata) this.#metadata.requestUpdate();
  }

  /** Fails the produce requests in flight that `which` picks with NETWORK_EXCEPTION; returns whether there were any. */
  #failProduceRequests(which: (request: InFlightProduce) => boolean, ctx: Context): boolean {
    let failed = false;
    for (const [correlationId, request] of [...this.#produceInFlight]) {
      if (!which(request)) continue;
      this.#produceInFlight.delete(correlationId);
      for (const batch of request.batches) this.#complete(batch, ErrorCode.NETWORK_EXCEPTION, -1, ctx);
      failed = true;
    }
    return failed;
  }

  #sendProduce(node: number, batches: readonly ProducerBatch[], ctx: Context): void {
    const host = this.#metadata.hostOf(node);
    if (host === undefined) {
      for (const batch of batches) this.#accumulator.reenqueue(batch);
      return;
    }
    const settings = this.config.settings;
    const correlationId = ++this.#correlationId;
    const topicData: ProduceRequest["topicData"] = [];
    for (const batch of batches) {
      let topic = topicData.find((t) => t.name === batch.topic);
      if (topic === undefined) {
        topic = { name: batch.topic, partitionData: [] };
        topicData.push(topic);
      }
      topic.partitionData.push({ index: batch.partition, records: batch.toRecordBatch() });
    }
    ctx.send(host, {
      type: "ProduceRequest",
      correlationId,
      apiVersion: 9,
      clientId: settings["client.id"] === "" ? this.id : settings["client.id"],
      transactionalId: null,
      acks: this.config.acks,
      timeoutMs: settings["request.timeout.ms"],
      topicData,
    });
    if (this.config.acks === 0) {
      // No response will come: the batches are done as soon as they are sent, with no offsets.
      for (const batch of batches) this.#complete(batch, ErrorCode.NONE, -1, ctx);
      return;
    }
    this.#produceInFlight.set(correlationId, { node, host, sentAt: ctx.now(), batches });
    if (settings["max.in.flight.requests.per.connection"] === 1)
      for (const batch of batches) this.#accumulator.mute(batch.topic, batch.partition);
  }

  #onProduceResponse(response: ProduceResponse, ctx: Context): void {
    const request = this.#produceInFlight.get(response.correlationId);
    if (request === undefined) return;
    this.#produceInFlight.delete(response.correlationId);
    for (const batch of request.batches) {
      const answer = response.responses.find((t) => t.name === batch.topic)?.partitionResponses.find((p) => p.index === batch.partition);
      this.#complete(batch, answer?.errorCode ?? ErrorCode.NETWORK_EXCEPTION, answer?.baseOffset ?? -1, ctx);
    }
  }

  /**
   * A batch's answer (Kafka's `Sender.completeBatch`): acknowledged; split
   * and re-queued if too large; retried after a backoff if the error is
   * retriable and the delivery timeout and retries allow; failed otherwise.
   * Errors that mean stale metadata ask for a refresh.
   */
  #complete(batch: ProducerBatch, errorCode: number, baseOffset: number, ctx: Context): void {
    this.#accumulator.unmute(batch.topic, batch.partition);
    if (batch.done) return;
    const now = ctx.now();
    const settings = this.config.settings;
    if (errorCode === ErrorCode.NONE) {
      batch.done = true;
      this.#acknowledged++;
      this.#observeAck(batch.topic, batch.partition, baseOffset, batch.recordCount, ErrorCode.NONE, batch.createdAt, ctx);
      return;
    }
    if (INVALID_METADATA.has(errorCode)) this.#metadata.requestUpdate();
    if (errorCode === ErrorCode.MESSAGE_TOO_LARGE && batch.recordCount > 1) {
      batch.done = true;
      const parts = batch.split(this.#accumulator.batchSize);
      for (let i = parts.length - 1; i >= 0; i--) this.#accumulator.reenqueue(parts[i] as ProducerBatch);
      return;
    }
    const canRetry =
      RETRIABLE.has(errorCode) && now - batch.createdAt < ms(settings["delivery.timeout.ms"]) && batch.attempts < settings.retries;
    if (!canRetry) {
      this.#fail(batch, errorCode, ctx);
      return;
    }
    const initial = ms(settings["retry.backoff.ms"]);
    const max = Math.max(initial, ms(settings["retry.backoff.max.ms"]));
    const factor = 1 - RETRY_JITTER + ctx.random() * 2 * RETRY_JITTER;
    batch.reenqueued(now, Math.min(max, Math.floor(initial * 2 ** Math.min(batch.attempts, 30) * factor)));
    this.#accumulator.reenqueue(batch);
  }

  #fail(batch: ProducerBatch, errorCode: number, ctx: Context): void {
    if (batch.done) return;
    batch.done = true;
    this.#failed++;
    this.#observeAck(batch.topic, batch.partition, -1, batch.recordCount, errorCode, batch.createdAt, ctx);
  }

  #observeAck(
    topic: string,
    partition: number,
    baseOffset: number,
    count: number,
    errorCode: number,
    createdAt: Micros,
    ctx: Context,
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
    };
    ctx.observe({ ...observation });
  }

  // --- metadata ---

  /** A metadata request to the least loaded known broker (the bootstrap brokers before any metadata). */
  #maybeSendMetadata(ctx: Context): void {
    const now = ctx.now();
    if (this.#metadataInFlight !== null || this.#metadata.dueAt() > now) return;
    const known = this.#metadata.brokerHosts();
    const candidates = known.length > 0 ? known : this.config.bootstrap;
    const load = (host: ActorId) => [...this.#produceInFlight.values()].filter((r) => this.#metadata.hostOf(r.node) === host).length;
    // The least loaded candidate, ties going round-robin (Kafka's leastLoadedNode starts at a random offset).
    let host = candidates[this.#hostRotation % candidates.length] as ActorId;
    for (let i = 1; i < candidates.length; i++) {
      const candidate = candidates[(this.#hostRotation + i) % candidates.length] as ActorId;
      if (load(candidate) < load(host)) host = candidate;
    }
    this.#hostRotation++;
    const correlationId = ++this.#correlationId;
    this.#metadataInFlight = { correlationId, host, sentAt: now };
    this.#metadata.attempted(now);
    ctx.send(host, {
      type: "MetadataRequest",
      correlationId,
      apiVersion: 12,
      clientId: this.id,
      topics: this.#metadata.topicNames().map((name) => ({ topicId: null, name })),
    });
  }

  #onMetadata(from: ActorId, response: MetadataResponse, ctx: Context): void {
    const inFlight = this.#metadataInFlight;
    if (inFlight === null || inFlight.correlationId !== response.correlationId || inFlight.host !== from) return;
    this.#metadataInFlight = null;
    this.#metadata.update(response, ctx.now());
  }

  snapshot(): JsonValue {
    return {
      nextSequence: this.#nextSequence,
      acknowledgedBatches: this.#acknowledged,
      failedBatches: this.#failed,
      queuedBatches: this.#accumulator.queuedBatches,
      inFlightRequests: this.#produceInFlight.size,
    };
  }
}

/** The producer actor factory: `(id, config) => Actor`; a bad config throws a one-line ConfigError. */
export function createProducer(id: ActorId, config: JsonValue): ProducerActor {
  return new ProducerActor(id, parseProducerActorConfig(config));
}
