import { type ActorId, type Context, type JsonValue, type Message, ms } from "@kcsim/protocol";
import type { TransactionSpec } from "./producer-actor-config.js";
import type { ProducerTopic } from "./producer-client.js";
import type { ProducerError } from "./producer-error.js";
import { TransactionalProducer } from "./transactional-producer.js";

/** The end of a transaction's time budget (`transaction.transactionMs`). */
export const TRANSACTION_DEADLINE_TIMER = "workload.transaction-deadline";
/** The restart of a producer that hit a fatal error. */
export const PRODUCER_RESTART_TIMER = "workload.producer-restart";

/** A record of the workload, ready to send. */
export interface WorkloadRecord {
  readonly topic: string;
  readonly key: string | null;
  readonly value: string;
  readonly valueBytes: number;
}

export interface TransactionLoopConfig {
  readonly transactionalId: string;
  readonly bootstrap: readonly ActorId[];
  readonly topics: readonly ProducerTopic[];
  readonly transactionCoordinators: readonly ActorId[];
  /** Kafka producer settings (as configured). */
  readonly settings: { readonly [name: string]: JsonValue };
  readonly transaction: TransactionSpec;
  readonly clientId: string;
  /** The cluster's finalized transaction.version as the producers read it. */
  readonly transactionVersion: number;
}

type LoopState = "initializing" | "in-transaction" | "completing" | "restarting";

/**
 * The producer actor's workload in transactions, as an application would
 * run a TransactionalProducer: initTransactions, then transactions of
 * `recordsPerTransaction` records (or `transactionMs`), each committed, or
 * aborted with probability `abortRatio`. A commit that fails with an
 * abortable error, or a send that put the producer in one, aborts the
 * transaction instead. A fatal error (PRODUCER_FENCED), or any other failed
 * step, closes the producer; a new one is made after retry.backoff.max.ms
 * and initialised again (fencing the old epoch), as an application
 * restarting it would. Records
 * that come while no transaction is open wait for the next one.
 */
export class TransactionLoop {
  readonly #config: TransactionLoopConfig;
  #producer: TransactionalProducer | null = null;
  #state: LoopState = "initializing";
  #waiting: WorkloadRecord[] = [];
  #inTransaction = 0;
  #committed = 0;
  #aborted = 0;
  #restarts = 0;
  /** The context of the event being handled: callbacks run inside the producer's handling of a later event. */
  #ctx: Context | null = null;

  constructor(config: TransactionLoopConfig) {
    this.#config = config;
  }

  start(ctx: Context): void {
    this.#ctx = ctx;
    this.#startProducer(ctx);
  }

  #current(fallback: Context): Context {
    return this.#ctx ?? fallback;
  }

  #startProducer(ctx: Context): void {
    const config = this.#config;
    const producer = new TransactionalProducer({
      transactionalId: config.transactionalId,
      bootstrap: config.bootstrap,
      topics: config.topics,
      transactionCoordinators: config.transactionCoordinators,
      settings: config.settings,
      clientId: config.clientId,
      transactionVersion: config.transactionVersion,
    });
    this.#producer = producer;
    this.#state = "initializing";
    producer.start(ctx);
    producer.initTransactions(ctx).onComplete((error) => {
      if (this.#producer !== producer) return;
      const now = this.#current(ctx);
      if (error !== null) this.#failed(producer, error, now);
      else this.#begin(producer, now);
    });
  }

  /** A record of the workload: into the open transaction, or waiting for the next one. */
  record(record: WorkloadRecord, ctx: Context): void {
    this.#ctx = ctx;
    this.#waiting.push(record);
    const producer = this.#producer;
    if (producer !== null && this.#state === "in-transaction") this.#sendWaiting(producer, ctx);
  }

  #begin(producer: TransactionalProducer, ctx: Context): void {
    const result = producer.beginTransaction(ctx);
    if (result.error !== null) {
      this.#failed(producer, result.error, ctx);
      return;
    }
    this.#state = "in-transaction";
    this.#inTransaction = 0;
    const budget = this.#config.transaction.transactionMs;
    if (budget !== null) ctx.setTimer(TRANSACTION_DEADLINE_TIMER, ms(budget));
    this.#sendWaiting(producer, ctx);
  }

  #sendWaiting(producer: TransactionalProducer, ctx: Context): void {
    const limit = this.#config.transaction.recordsPerTransaction;
    while (this.#state === "in-transaction" && this.#waiting.length > 0 && this.#inTransaction < limit) {
      if (producer.hasAbortableError || producer.hasFatalError) break;
      const record = this.#waiting.shift() as WorkloadRecord;
      producer.send(record.topic, record.key, record.value, record.valueBytes, ctx);
      this.#inTransaction++;
    }
    if (this.#state !== "in-transaction") return;
    if (producer.hasAbortableError || producer.hasFatalError || this.#inTransaction >= limit) this.#end(producer, ctx);
  }

  /** Ends the open transaction: commit, or abort (on purpose by `abortRatio`, or because of an error). */
  #end(producer: TransactionalProducer, ctx: Context): void {
    if (this.#state !== "in-transaction") return;
    this.#state = "completing";
    ctx.cancelTimer(TRANSACTION_DEADLINE_TIMER);
    const abort = producer.hasAbortableError || ctx.random() < this.#config.transaction.abortRatio;
    if (abort) {
      this.#abort(producer, ctx);
      return;
    }
    producer.commitTransaction(ctx).onComplete((error) => {
      if (this.#producer !== producer) return;
      const now = this.#current(ctx);
      if (error === null) {
        this.#committed++;
        this.#begin(producer, now);
      } else if (producer.hasFatalError) {
        this.#failed(producer, error, now);
      } else {
        this.#abort(producer, now);
      }
    });
  }

  #abort(producer: TransactionalProducer, ctx: Context): void {
    producer.abortTransaction(ctx).onComplete((error) => {
      if (this.#producer !== producer) return;
      const now = this.#current(ctx);
      if (error !== null) {
        this.#failed(producer, error, now);
        return;
      }
      this.#aborted++;
      this.#begin(producer, now);
    });
  }

  /** An error the loop cannot go on with: a fatal one closes the producer and a new one starts later. */
  #failed(producer: TransactionalProducer, error: ProducerError, ctx: Context): void {
    ctx.log.info("transactional producer closed", {
      transactionalId: this.#config.transactionalId,
      error: error.name,
      fatal: producer.hasFatalError,
      state: producer.state,
    });
    this.#producer = null;
    this.#state = "restarting";
    ctx.cancelTimer(TRANSACTION_DEADLINE_TIMER);
    ctx.setTimer(PRODUCER_RESTART_TIMER, ms(producer.settings["retry.backoff.max.ms"]));
  }

  receive(from: ActorId, message: Message, ctx: Context): boolean {
    this.#ctx = ctx;
    return this.#producer?.receive(from, message, ctx) ?? false;
  }

  fire(timer: string, ctx: Context): boolean {
    this.#ctx = ctx;
    if (timer === TRANSACTION_DEADLINE_TIMER) {
      const producer = this.#producer;
      if (producer === null || this.#state !== "in-transaction") return true;
      // An empty transaction has nothing to end: its budget starts again.
      if (this.#inTransaction > 0) this.#end(producer, ctx);
      else ctx.setTimer(TRANSACTION_DEADLINE_TIMER, ms(this.#config.transaction.transactionMs ?? 0));
      return true;
    }
    if (timer === PRODUCER_RESTART_TIMER) {
      if (this.#state === "restarting") {
        this.#restarts++;
        this.#startProducer(ctx);
      }
      return true;
    }
    return this.#producer?.fire(timer, ctx) ?? false;
  }

  snapshot(): JsonValue {
    return {
      state: this.#state,
      waitingRecords: this.#waiting.length,
      recordsInTransaction: this.#inTransaction,
      committedTransactions: this.#committed,
      abortedTransactions: this.#aborted,
      producerRestarts: this.#restarts,
      producer: this.#producer?.snapshot() ?? null,
    };
  }
}
