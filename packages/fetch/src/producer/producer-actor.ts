import type { Actor, ActorId, Context, JsonValue, Message } from "@kcsim/protocol";
import { type ProducerActorConfig, parseProducerActorConfig } from "./producer-actor-config.js";
import { ProducerClient } from "./producer-client.js";
import { TransactionLoop, type WorkloadRecord } from "./transaction-loop.js";
import { KeyChooser, RecordSchedule, sampleValueBytes } from "./workload.js";

const WORKLOAD_TIMER = "workload";

/** Sequence numbers are reserved in durable storage in blocks, so a restarted producer never reuses a value tag. */
const SEQUENCE_BLOCK = 1000;

/** What the producer keeps across crashes: the end of the last reserved block of sequence numbers. */
interface SequenceReservation {
  readonly sequenceReservedUpTo: number;
}

/**
 * A Kafka producer (actor kind "producer") driven by a workload: records
 * with unique values `<actor id>:<sequence>` go through a ProducerClient
 * (Kafka's KafkaProducer: partitioning, batching, the Sender with its
 * retries, timeouts, reconnect backoff and metadata refreshes, and
 * idempotence unless the settings turn it off) and each batch's outcome is
 * observed as `producer.ack`.
 *
 * With `producer.transactional.id` the workload runs in transactions
 * through a TransactionalProducer (see TransactionLoop): committed every
 * `transaction.recordsPerTransaction` records or `transaction.transactionMs`,
 * aborted on purpose with probability `transaction.abortRatio`; outcomes
 * are observed as `producer.txn`.
 *
 * Records are never blocked on metadata: the configured partition count is
 * used until metadata arrives.
 */
export class ProducerActor implements Actor {
  readonly id: ActorId;
  readonly config: ProducerActorConfig;
  readonly #schedule: RecordSchedule;
  readonly #keys: KeyChooser | null;
  #client: ProducerClient | null = null;
  #transactions: TransactionLoop | null = null;
  #nextSequence = 0;
  #sequenceReservedUpTo = 0;

  constructor(id: ActorId, config: ProducerActorConfig) {
    this.id = id;
    this.config = config;
    this.#schedule = new RecordSchedule(config.workload);
    this.#keys = config.workload.keys === null ? null : new KeyChooser(config.workload.keys);
  }

  start(ctx: Context): void {
    const reservations = ctx.storage.readAll() as SequenceReservation[];
    this.#nextSequence = reservations.reduce((max, r) => Math.max(max, r.sequenceReservedUpTo), 0);
    this.#sequenceReservedUpTo = this.#nextSequence;
    this.#schedule.reset(ctx.now());
    const config = this.config;
    const settings = config.settings;
    const clientId = settings["client.id"] === "" ? this.id : settings["client.id"];
    const transactionalId = settings["transactional.id"];
    if (transactionalId !== null && config.transaction !== null) {
      this.#transactions = new TransactionLoop({
        transactionalId,
        bootstrap: config.bootstrap,
        topics: config.topics,
        transactionCoordinators: config.transactionCoordinators,
        settings: { ...settings },
        transaction: config.transaction,
        clientId,
        transactionVersion: config.transactionVersion,
      });
      this.#armWorkload(ctx);
      this.#transactions.start(ctx);
      return;
    }
    this.#client = new ProducerClient({
      clientId,
      settings,
      acks: config.acks,
      bootstrap: config.bootstrap,
      topics: config.topics,
      idempotent: config.idempotent,
      transactionalId: null,
      transactionCoordinators: [],
      groupCoordinators: [],
      transactionVersion: config.transactionVersion,
    });
    this.#armWorkload(ctx);
    this.#client.start(ctx);
  }

  receive(from: ActorId, message: Message, ctx: Context): void {
    const handled = this.#client?.receive(from, message, ctx) ?? this.#transactions?.receive(from, message, ctx) ?? false;
    if (!handled && message.type !== "SimDisconnect") ctx.log.debug("producer ignores message", { type: message.type, from });
  }

  fire(timer: string, ctx: Context): void {
    if (timer === WORKLOAD_TIMER) {
      const due = this.#schedule.take(ctx.now());
      for (let i = 0; i < due; i++) this.#send(this.#nextRecord(ctx), ctx);
      this.#armWorkload(ctx);
      return;
    }
    if (this.#client !== null) this.#client.fire(timer, ctx);
    else this.#transactions?.fire(timer, ctx);
  }

  #armWorkload(ctx: Context): void {
    const next = this.#schedule.nextDueAt();
    if (next === undefined) ctx.cancelTimer(WORKLOAD_TIMER);
    else ctx.setTimer(WORKLOAD_TIMER, Math.max(1, next - ctx.now()));
  }

  #nextRecord(ctx: Context): WorkloadRecord {
    if (this.#nextSequence >= this.#sequenceReservedUpTo) {
      this.#sequenceReservedUpTo = this.#nextSequence + SEQUENCE_BLOCK;
      const reservation: SequenceReservation = { sequenceReservedUpTo: this.#sequenceReservedUpTo };
      ctx.storage.append(reservation);
    }
    const random = () => ctx.random();
    return {
      topic: this.config.workload.topic,
      key: this.#keys?.next(random) ?? null,
      value: `${this.id}:${this.#nextSequence++}`,
      valueBytes: sampleValueBytes(this.config.workload.valueBytes, random),
    };
  }

  #send(record: WorkloadRecord, ctx: Context): void {
    if (this.#client !== null) this.#client.send(record, ctx);
    else this.#transactions?.record(record, ctx);
  }

  snapshot(): JsonValue {
    const client = this.#client?.snapshot() ?? this.#transactions?.snapshot() ?? null;
    const counts = client !== null && typeof client === "object" && !Array.isArray(client) ? client : { client };
    return { nextSequence: this.#nextSequence, ...counts };
  }
}

/** The producer actor factory: `(id, config) => Actor`; a bad config throws a one-line ConfigError. */
export function createProducer(id: ActorId, config: JsonValue): ProducerActor {
  return new ProducerActor(id, parseProducerActorConfig(config));
}
