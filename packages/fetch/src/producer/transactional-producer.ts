import {
  type ActorId,
  ConfigError,
  type Context,
  DEFAULT_TRANSACTION_VERSION,
  isTransactionVersion,
  type JsonValue,
  MAX_TRANSACTION_VERSION,
  type Message,
  MIN_TRANSACTION_VERSION,
  type ProducerConfig,
  resolveProducerConfig,
} from "@kcsim/protocol";
import { withDeliveryTimeoutFloor } from "./delivery-timeout-floor.js";
import { idempotenceOf } from "./idempotence-config.js";
import { ProducerClient, type ProducerClientOptions, type ProducerTopic } from "./producer-client.js";
import type { ProducerError } from "./producer-error.js";
import type { ProducerIdAndEpoch } from "./producer-id-and-epoch.js";
import type { SendHandle } from "./send-handle.js";
import type { TransactionState } from "./transaction-state.js";
import { TransactionalResult } from "./transactional-result.js";
import type { GroupMetadata, TransactionOffset } from "./txn-request-handler.js";

/** How a transactional producer is set up. */
export interface TransactionalProducerConfig {
  readonly transactionalId: string;
  /** Broker actor ids (metadata, data). */
  readonly bootstrap: readonly ActorId[];
  /** The topics it may write. */
  readonly topics: readonly ProducerTopic[];
  /** Transaction coordinator actor ids ("txn-coordinator-N") to send FindCoordinator(TRANSACTION) to. */
  readonly transactionCoordinators: readonly ActorId[];
  /** Group coordinator actor ids to send FindCoordinator(GROUP) to, for sendOffsetsToTransaction. */
  readonly groupCoordinators?: readonly ActorId[];
  /** Kafka producer settings over the defaults (transactional.id is set from `transactionalId`). */
  readonly settings?: { readonly [name: string]: JsonValue };
  /** The client id of its requests (the transactional id by default). */
  readonly clientId?: string;
  /**
   * The cluster's finalized `transaction.version` as the producer reads it
   * (0 to 2, default 0): 2 runs its transactions by KIP-890 part 2. Fixed for
   * the producer's life (kcsim's features never change during a run).
   */
  readonly transactionVersion?: number;
}

/**
 * A transactional Kafka producer to embed in an actor (no actor inside: it
 * takes the host's Context, like the Fetcher). The host routes it what it
 * does not handle itself: `receive(from, message, ctx)` and
 * `fire(timer, ctx)` return true for the producer's own messages and
 * timers (`produce.*`, `txn.*`). Operations return a TransactionalResult
 * (register `onComplete`), sends a SendHandle (register `onAck`); nothing
 * throws for runtime errors: they come back as ProducerErrors, as Kafka's
 * exceptions would.
 *
 * ```ts
 * const producer = new TransactionalProducer({ transactionalId: "tx-1", bootstrap, topics,
 *   transactionCoordinators: ["txn-coordinator-0"], groupCoordinators: ["coordinator-0"] });
 * producer.start(ctx);
 * producer.initTransactions(ctx).onComplete((error) => {
 *   producer.beginTransaction(ctx);
 *   producer.send("out", key, value, 100, ctx).onAck((r) => ...);
 *   producer.sendOffsetsToTransaction([{ topic: "in", partition: 0, offset: 42 }], groupMetadata, ctx);
 *   producer.commitTransaction(ctx).onComplete((error) => { if (error !== null) producer.abortTransaction(ctx); });
 * });
 * ```
 *
 * Kafka's error handling: an abortable error (a failed send, ILLEGAL_GENERATION
 * from TxnOffsetCommit, INVALID_PRODUCER_EPOCH from a partition, ...) fails
 * commit and later sends; the application aborts and goes on (with an
 * epoch bump after the abort when a send failed). A fatal error
 * (PRODUCER_FENCED: another producer initialised the same transactional
 * id) fails everything; the producer is done (`isFenced`/`hasFatalError`).
 * Partitions are added with AddPartitionsToTxn before their first batch
 * goes out; commit waits for every batch (a flush) before EndTxn; EndTxn
 * and the other requests are retried on coordinator errors.
 *
 * With `transactionVersion` 2 (KIP-890 part 2) the partition leaders add
 * the partitions (Produce v12), offsets go straight to the group
 * coordinator (TxnOffsetCommit v5), and EndTxn v5 bumps the epoch: every
 * transaction runs at the epoch the previous one's EndTxn returned, and an
 * abort after an abortable error needs no epoch bump of the producer's.
 */
export class TransactionalProducer {
  readonly transactionalId: string;
  readonly settings: ProducerConfig;
  readonly #client: ProducerClient;

  constructor(config: TransactionalProducerConfig, options: ProducerClientOptions = {}) {
    this.transactionalId = config.transactionalId;
    if (config.transactionCoordinators.length === 0) {
      throw new ConfigError("transactional producer: 'transactionCoordinators' must name at least one transaction coordinator");
    }
    if (config.transactionVersion !== undefined && !isTransactionVersion(config.transactionVersion)) {
      throw new ConfigError(
        `transactional producer: 'transactionVersion' must be an integer from ${MIN_TRANSACTION_VERSION} to ${MAX_TRANSACTION_VERSION}, got ${config.transactionVersion}`,
      );
    }
    let settings: ProducerConfig;
    try {
      settings = resolveProducerConfig({ ...(config.settings ?? {}), "transactional.id": config.transactionalId });
    } catch (error) {
      throw new ConfigError(`transactional producer: ${(error as Error).message}`);
    }
    const given = config.settings ?? {};
    idempotenceOf(settings, "enable.idempotence" in given);
    settings = withDeliveryTimeoutFloor(settings, "delivery.timeout.ms" in given);
    this.settings = settings;
    this.#client = new ProducerClient(
      {
        clientId: config.clientId ?? (settings["client.id"] === "" ? config.transactionalId : settings["client.id"]),
        settings,
        acks: -1,
        bootstrap: config.bootstrap,
        topics: config.topics,
        idempotent: true,
        transactionalId: config.transactionalId,
        transactionCoordinators: config.transactionCoordinators,
        groupCoordinators: config.groupCoordinators ?? [],
        transactionVersion: config.transactionVersion ?? DEFAULT_TRANSACTION_VERSION,
      },
      options,
    );
  }

  /** Starts the producer's sender (metadata); call once, from the host's start. */
  start(ctx: Context): void {
    this.#client.start(ctx);
  }

  get #manager() {
    const tm = this.#client.transactionManager;
    if (tm === null) throw new Error("a transactional producer always has a transaction manager");
    return tm;
  }

  get state(): TransactionState {
    return this.#manager.state;
  }

  get producerIdAndEpoch(): ProducerIdAndEpoch {
    return this.#manager.producerIdAndEpoch;
  }

  /** The error of an abortable or fatal error state (null otherwise). */
  get lastError(): ProducerError | null {
    return this.#manager.hasError ? this.#manager.lastError : null;
  }

  get hasFatalError(): boolean {
    return this.#manager.hasFatalError;
  }

  get hasAbortableError(): boolean {
    return this.#manager.hasAbortableError;
  }

  /** Fenced by a newer producer with the same transactional id (PRODUCER_FENCED): fatal. */
  get isFenced(): boolean {
    return this.#manager.hasFatalError && this.#manager.lastError?.name === "PRODUCER_FENCED";
  }

  /** initTransactions: finds the coordinator and gets the producer id and epoch (fencing older producers of the id). */
  initTransactions(ctx: Context): TransactionalResult {
    const result = this.#manager.initializeTransactions();
    this.#client.wakeup(ctx);
    return result;
  }

  /** beginTransaction: completes at once (failed if the producer is not READY, or in an error state). */
  beginTransaction(ctx: Context): TransactionalResult {
    const error = this.#manager.beginTransaction();
    const result = new TransactionalResult("beginTransaction", (notify) => this.#client.schedule(notify));
    if (error === null) result.done();
    else result.fail(error);
    this.#client.wakeup(ctx);
    return result;
  }

  /**
   * send: the record goes into the current transaction (its partition is
   * added to the transaction first). Fails at once outside a transaction or
   * in an error state. `sizeInBytes` is the value size the record stands for.
   */
  send(topic: string, key: string | null, value: string, sizeInBytes: number, ctx: Context): SendHandle {
    return this.#client.send({ topic, key, value, valueBytes: sizeInBytes }, ctx);
  }

  /**
   * sendOffsetsToTransaction: AddOffsetsToTxn to the transaction
   * coordinator, then TxnOffsetCommit to the group's coordinator (found
   * with FindCoordinator(GROUP)) with the group metadata for KIP-447 zombie
   * fencing (under transaction version 2, TxnOffsetCommit v5 alone). The
   * offsets are committed with the transaction. No offsets: nothing is sent
   * and the transaction has not started for it (KafkaProducer's
   * `sendOffsetsToTransaction` does nothing then).
   */
  sendOffsetsToTransaction(offsets: readonly TransactionOffset[], group: GroupMetadata, ctx: Context): TransactionalResult {
    if (offsets.length === 0) return this.#manager.doneResult("AddOffsetsToTxn");
    const result = this.#manager.sendOffsetsToTransaction(offsets, group);
    this.#client.wakeup(ctx);
    return result;
  }

  /** commitTransaction: flushes every batch, then EndTxn(commit); fails if the transaction hit an error (abort it then). */
  commitTransaction(ctx: Context): TransactionalResult {
    const result = this.#manager.beginCommit();
    this.#client.wakeup(ctx);
    return result;
  }

  /** abortTransaction: drops the batches not sent yet, waits for those in flight, then EndTxn(abort) (and an epoch bump if needed). */
  abortTransaction(ctx: Context): TransactionalResult {
    const result = this.#manager.beginAbort();
    this.#client.wakeup(ctx);
    return result;
  }

  receive(from: ActorId, message: Message, ctx: Context): boolean {
    return this.#client.receive(from, message, ctx);
  }

  fire(timer: string, ctx: Context): boolean {
    return this.#client.fire(timer, ctx);
  }

  snapshot(): JsonValue {
    return this.#client.snapshot();
  }
}
