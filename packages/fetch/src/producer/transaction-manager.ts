import {
  type ActorId,
  type AddOffsetsToTxnResponse,
  type AddPartitionsToTxnResponse,
  CoordinatorKeyType,
  type EndTxnResponse,
  ErrorCode,
  type FindCoordinatorResponse,
  type InitProducerIdResponse,
  type Message,
  type Micros,
  NO_PRODUCER_ID,
  NO_SEQUENCE,
  type TopicPartition,
  type TxnOffsetCommitResponse,
  tpKey,
} from "@kcsim/protocol";
import type { ProducerIdObservation } from "../observations.js";
import { incrementSequence } from "../records/sequence.js";
import { NO_LAST_ACKED_SEQUENCE, type PartitionSequence, PartitionSequences } from "./partition-sequences.js";
import type { ProducerBatch } from "./producer-batch.js";
import { clientError, type ProducerError, producerErrorOf } from "./producer-error.js";
import {
  isValidProducerIdAndEpoch,
  NO_PRODUCER_ID_AND_EPOCH,
  type ProducerIdAndEpoch,
  sameProducerIdAndEpoch,
} from "./producer-id-and-epoch.js";
import { isTransitionValid, type TransactionState } from "./transaction-state.js";
import { TransactionalResult } from "./transactional-result.js";
import {
  type CoordinatorType,
  type GroupMetadata,
  type TransactionOffset,
  TxnPriority,
  type TxnRequest,
  TxnRequestHandler,
} from "./txn-request-handler.js";

/** A transactional request on the wire: its correlation id, where it went and when. */
export interface InFlightTxnRequest {
  readonly correlationId: number;
  readonly target: ActorId;
  readonly sentAt: Micros;
  readonly handler: TxnRequestHandler;
}

/** How a transaction ended, as the producer saw it. */
export type TransactionOutcome = "committed" | "aborted" | "failed";

/** Why the producer id or epoch changed (the `producer.id` observation's reason). */
export type ProducerIdChangeReason = ProducerIdObservation["reason"];

/** What the transaction manager reports as it goes (observations). */
export interface TransactionEvents {
  producerIdChanged(producer: ProducerIdAndEpoch, reason: ProducerIdChangeReason): void;
  transactionEnded(outcome: TransactionOutcome, producer: ProducerIdAndEpoch, records: number, error: ProducerError | null): void;
}

export interface TransactionManagerOptions {
  readonly transactionalId: string | null;
  readonly transactionTimeoutMs: number;
  /** retry.backoff.ms, in micros: how long a retried transactional request waits. */
  readonly retryBackoff: Micros;
  /** Runs result callbacks once the producer is done with the current event. */
  readonly schedule: (notify: () => void) => void;
  readonly events: TransactionEvents;
  /**
   * The cluster's finalized `transaction.version` feature level as the
   * client reads it (Kafka: `ApiVersions`' finalized features); 2 and above
   * is transaction version 2 (KIP-890 part 2). kcsim's features never change
   * during a run, so it is fixed here: Kafka's re-reads in
   * `maybeUpdateTransactionV2Enabled`, and the epoch bump of an upgrade from
   * version 1 to 2, never come up.
   */
  readonly transactionVersion: number;
}

/** Kafka's AddPartitionsToTxn backoff after CONCURRENT_TRANSACTIONS at the start of a transaction (KAFKA-5482). */
const ADD_PARTITIONS_RETRY_BACKOFF: Micros = 20_000;

const INT16_MAX = 32767;

/** Errors after which the transactional producer cannot go on (Kafka's fatal exceptions; see also `#isFatal`). */
const FATAL_ERRORS = new Set<number>([ErrorCode.PRODUCER_FENCED, ErrorCode.UNSUPPORTED_VERSION, ErrorCode.UNSUPPORTED_FOR_MESSAGE_FORMAT]);

/** Retriable errors of a produce response (Kafka's RetriableException subclasses the broker sends). */
export const RETRIABLE_PRODUCE_ERRORS = new Set<number>([
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
  ErrorCode.CONCURRENT_TRANSACTIONS,
]);

const ILLEGAL_STATE = "IllegalStateException";

/**
 * The idempotent and transactional state of a producer (Kafka's
 * `TransactionManager`: transaction version 1 with KIP-360 epoch bumps, or
 * transaction version 2 as Kafka 4.2 has it, by the cluster's finalized
 * `transaction.version`):
 *
 * - idempotence: the producer id and epoch, per-partition sequences and the
 *   batches in flight by sequence; which errors are retried, when a
 *   partition's sequences are unresolved (a batch expired after being sent),
 *   and when the epoch is bumped (an idempotent producer bumps its own
 *   epoch and restarts the partition's sequences at 0);
 * - transactions: the state machine UNINITIALIZED -> INITIALIZING -> READY
 *   -> IN_TRANSACTION -> COMMITTING/ABORTING -> READY, with ABORTABLE_ERROR
 *   (abort and go on) and FATAL_ERROR (PRODUCER_FENCED and the like: close);
 *   partitions added with AddPartitionsToTxn before their first batch goes
 *   out; sendOffsetsToTransaction as AddOffsetsToTxn then TxnOffsetCommit to
 *   the group coordinator; EndTxn only once every batch is done.
 * - transaction version 2 (KIP-890 part 2): no AddPartitionsToTxn (the
 *   partition leaders add the partitions, Produce v12) and no
 *   AddOffsetsToTxn (TxnOffsetCommit v5 goes straight to the group
 *   coordinator, which adds the offsets); EndTxn v5, whose answer carries
 *   the epoch the coordinator bumped the producer to (or a new producer id),
 *   which the next transaction uses with its sequences from 0. The
 *   coordinator bumps the epoch at every transaction's end, so an abortable
 *   error needs no InitProducerId of the client's (Kafka's
 *   `needToTriggerEpochBumpFromClient`), and INVALID_PRODUCER_ID_MAPPING is
 *   fatal (as in Kafka 4.x).
 *
 * It never sends anything itself: the producer's sender asks it for the
 * next transactional request (one at a time), sends it to the target it
 * names, and hands back the answer or the failure.
 */
export class TransactionManager {
  readonly transactionalId: string | null;
  readonly sequences = new PartitionSequences();
  readonly #options: TransactionManagerOptions;
  /** Kafka's `isTransactionV2Enabled` (fixed for the run: see TransactionManagerOptions.transactionVersion). */
  readonly #transactionV2: boolean;
  #state: TransactionState = "UNINITIALIZED";
  #lastError: ProducerError | null = null;
  #producerIdAndEpoch: ProducerIdAndEpoch = NO_PRODUCER_ID_AND_EPOCH;
  #transactionStarted = false;
  #epochBumpRequired = false;
  /** Partitions whose sequences are unknown after a batch expired in flight, with the sequence after that batch. */
  readonly #unresolved = new Map<string, { readonly tp: TopicPartition; next: number }>();
  /** Partitions whose in-flight sequences are rewritten at the next epoch bump. */
  readonly #toRewrite = new Map<string, TopicPartition>();
  #pending: TxnRequestHandler[] = [];
  #nextHandlerSequence = 0;
  readonly #newPartitions = new Map<string, TopicPartition>();
  readonly #pendingPartitions = new Map<string, TopicPartition>();
  readonly #partitionsInTransaction = new Map<string, TopicPartition>();
  readonly #pendingTxnOffsetCommits = new Map<string, TransactionOffset>();
  #pendingResult: TransactionalResult | null = null;
  #inFlight: InFlightTxnRequest | null = null;
  #transactionCoordinator: ActorId | null = null;
  #groupCoordinator: ActorId | null = null;
  #recordsInTransaction = 0;
  /** Whether EndTxn of the transaction being completed commits (for the observation). */
  #completingCommit = false;
  /** The abortable error that forced the abort being completed (null for an abort asked for, and for commits). */
  #abortCause: ProducerError | null = null;

  constructor(options: TransactionManagerOptions) {
    this.transactionalId = options.transactionalId;
    this.#options = options;
    // Kafka reads the feature only in initTransactions and EndTxn: an idempotent producer never runs version 2.
    this.#transactionV2 = options.transactionalId !== null && options.transactionVersion >= 2;
  }

  /**
   * Kafka's `needToTriggerEpochBumpFromClient`: after an abortable error the
   * client bumps its epoch itself (InitProducerId after the abort), but not
   * under transaction version 2, whose EndTxn bumps it on the coordinator.
   */
  get #needToTriggerEpochBumpFromClient(): boolean {
    return !this.#transactionV2;
  }

  /** Whether an error ends the producer (Kafka 4.x adds INVALID_PRODUCER_ID_MAPPING; kept abortable before version 2). */
  #isFatal(errorCode: number): boolean {
    return FATAL_ERRORS.has(errorCode) || (this.#transactionV2 && errorCode === ErrorCode.INVALID_PRODUCER_ID_MAPPING);
  }

  // --- state ---

  get state(): TransactionState {
    return this.#state;
  }

  get isTransactional(): boolean {
    return this.transactionalId !== null;
  }

  get producerIdAndEpoch(): ProducerIdAndEpoch {
    return this.#producerIdAndEpoch;
  }

  get hasProducerId(): boolean {
    return isValidProducerIdAndEpoch(this.#producerIdAndEpoch);
  }

  get lastError(): ProducerError | null {
    return this.#lastError;
  }

  get hasError(): boolean {
    return this.#state === "ABORTABLE_ERROR" || this.#state === "FATAL_ERROR";
  }

  get hasFatalError(): boolean {
    return this.#state === "FATAL_ERROR";
  }

  get hasAbortableError(): boolean {
    return this.#state === "ABORTABLE_ERROR";
  }

  get isCompleting(): boolean {
    return this.#state === "COMMITTING_TRANSACTION" || this.#state === "ABORTING_TRANSACTION";
  }

  get isAborting(): boolean {
    return this.#state === "ABORTING_TRANSACTION";
  }

  get transactionCoordinator(): ActorId | null {
    return this.#transactionCoordinator;
  }

  get groupCoordinator(): ActorId | null {
    return this.#groupCoordinator;
  }

  /** Partitions successfully added to the current transaction. */
  partitionsInTransaction(): TopicPartition[] {
    return [...this.#partitionsInTransaction.values()];
  }

  #transition(target: TransactionState, error: ProducerError | null = null): void {
    if (!isTransitionValid(this.#state, target)) {
      throw new Error(`TransactionalId ${this.transactionalId}: invalid transition from ${this.#state} to ${target}`);
    }
    this.#lastError = target === "FATAL_ERROR" || target === "ABORTABLE_ERROR" ? error : null;
    this.#state = target;
  }

  #newResult(operation: string): TransactionalResult {
    return new TransactionalResult(operation, this.#options.schedule);
  }

  /** A result already done, for a call that had nothing to do. */
  doneResult(operation: string): TransactionalResult {
    const result = this.#newResult(operation);
    result.done();
    return result;
  }

  #failedResult(operation: string, error: ProducerError): TransactionalResult {
    const result = this.#newResult(operation);
    result.fail(error);
    return result;
  }

  /** Kafka's `maybeFailWithError`: the error a call fails with while the manager is in an error state. */
  #currentError(): ProducerError | null {
    if (!this.hasError) return null;
    return this.#lastError ?? clientError("KafkaException");
  }

  // --- the producer's calls ---

  /** initTransactions (or, with a producer id and epoch, the KIP-360 epoch bump after an abort). */
  initializeTransactions(bump: ProducerIdAndEpoch | null = null): TransactionalResult {
    if (!this.isTransactional) return this.#failedResult("InitProducerId", clientError(ILLEGAL_STATE));
    return this.#cachedResult("INITIALIZING", () => {
      if (bump === null) {
        if (!isTransitionValid(this.#state, "INITIALIZING")) return this.#failedResult("InitProducerId", clientError(ILLEGAL_STATE));
        this.#transition("INITIALIZING");
      }
      const handler = this.#enqueue(
        { kind: "init-producer-id", isEpochBump: bump !== null, producer: bump ?? NO_PRODUCER_ID_AND_EPOCH },
        bump === null ? TxnPriority.INIT_PRODUCER_ID : TxnPriority.EPOCH_BUMP,
        "InitProducerId",
      );
      return handler.result;
    });
  }

  /** beginTransaction: returns the error that refuses it, or null. */
  beginTransaction(): ProducerError | null {
    if (!this.isTransactional) return clientError(ILLEGAL_STATE);
    const error = this.#currentError();
    if (error !== null) return error;
    if (this.#state !== "READY") return clientError(ILLEGAL_STATE);
    this.#transition("IN_TRANSACTION");
    this.#recordsInTransaction = 0;
    return null;
  }

  beginCommit(): TransactionalResult {
    if (!this.isTransactional) return this.#failedResult("EndTxn(true)", clientError(ILLEGAL_STATE));
    return this.#cachedResult("COMMITTING_TRANSACTION", () => {
      const error = this.#currentError();
      if (error !== null) return this.#failedResult("EndTxn(true)", error);
      if (this.#state !== "IN_TRANSACTION") return this.#failedResult("EndTxn(true)", clientError(ILLEGAL_STATE));
      this.#abortCause = null;
      this.#transition("COMMITTING_TRANSACTION");
      return this.#beginCompletingTransaction(true);
    });
  }

  beginAbort(): TransactionalResult {
    if (!this.isTransactional) return this.#failedResult("EndTxn(false)", clientError(ILLEGAL_STATE));
    return this.#cachedResult("ABORTING_TRANSACTION", () => {
      if (this.#state !== "ABORTABLE_ERROR") {
        const error = this.#currentError();
        if (error !== null) return this.#failedResult("EndTxn(false)", error);
      }
      if (this.#state !== "IN_TRANSACTION" && this.#state !== "ABORTABLE_ERROR") {
        return this.#failedResult("EndTxn(false)", clientError(ILLEGAL_STATE));
      }
      this.#abortCause = this.#state === "ABORTABLE_ERROR" ? this.#lastError : null;
      this.#transition("ABORTING_TRANSACTION");
      // Nothing more needs adding to a transaction that is being aborted.
      this.#newPartitions.clear();
      return this.#beginCompletingTransaction(false);
    });
  }

  #beginCompletingTransaction(committed: boolean): TransactionalResult {
    this.#completingCommit = committed;
    if (this.#newPartitions.size > 0) this.#enqueueAddPartitions();
    // After INVALID_PRODUCER_ID_MAPPING the coordinator accepts no EndTxn: go straight to InitProducerId.
    if (this.#abortCause?.errorCode !== ErrorCode.INVALID_PRODUCER_ID_MAPPING) {
      const handler = this.#enqueue(
        { kind: "end-txn", producer: this.#producerIdAndEpoch, committed },
        TxnPriority.END_TXN,
        `EndTxn(${committed})`,
      );
      if (!this.#epochBumpRequired) return handler.result;
    }
    return this.initializeTransactions(this.#producerIdAndEpoch);
  }

  /** Kafka's `handleCachedTransactionRequestResult`: a call repeated while its operation runs gets the same result. */
  #cachedResult(target: TransactionState, create: () => TransactionalResult): TransactionalResult {
    const pending = this.#pendingResult;
    if (pending !== null && this.#state === target) {
      if (pending.isCompleted) this.#pendingResult = null;
      return pending;
    }
    const result = create();
    this.#pendingResult = result;
    return result;
  }

  /**
   * sendOffsetsToTransaction: AddOffsetsToTxn, whose answer enqueues the
   * TxnOffsetCommit; under transaction version 2 the TxnOffsetCommit at
   * once (the group coordinator adds the offsets to the transaction), and
   * the transaction has started.
   */
  sendOffsetsToTransaction(offsets: readonly TransactionOffset[], group: GroupMetadata): TransactionalResult {
    const operation = this.#transactionV2 ? "TxnOffsetCommit" : "AddOffsetsToTxn";
    if (!this.isTransactional) return this.#failedResult(operation, clientError(ILLEGAL_STATE));
    const error = this.#currentError();
    if (error !== null) return this.#failedResult(operation, error);
    if (this.#state !== "IN_TRANSACTION") return this.#failedResult(operation, clientError(ILLEGAL_STATE));
    if (this.#transactionV2) {
      for (const o of offsets) this.#pendingTxnOffsetCommits.set(tpKey(o.topic, o.partition), o);
      const handler = this.#enqueue(
        { kind: "txn-offset-commit", producer: this.#producerIdAndEpoch, group },
        TxnPriority.ADD_PARTITIONS_OR_OFFSETS,
        operation,
      );
      this.#transactionStarted = true;
      return handler.result;
    }
    const handler = this.#enqueue(
      { kind: "add-offsets", producer: this.#producerIdAndEpoch, offsets, group },
      TxnPriority.ADD_PARTITIONS_OR_OFFSETS,
      "AddOffsetsToTxn",
    );
    return handler.result;
  }

  /**
   * A record is being sent to `tp` inside the transaction: add the partition
   * first if it is new. Under transaction version 2 it is in the
   * transaction at once (its leader adds it when the batch arrives) and the
   * transaction has started, whether or not the batch gets through.
   */
  maybeAddPartition(tp: TopicPartition): void {
    this.#recordsInTransaction++;
    const key = tpKey(tp.topic, tp.partition);
    if (this.#transactionV2) {
      this.sequences.getOrCreate(tp.topic, tp.partition);
      this.#partitionsInTransaction.set(key, { topic: tp.topic, partition: tp.partition });
      this.#transactionStarted = true;
      return;
    }
    if (this.#partitionsInTransaction.has(key) || this.#newPartitions.has(key) || this.#pendingPartitions.has(key)) return;
    this.sequences.getOrCreate(tp.topic, tp.partition);
    this.#newPartitions.set(key, { topic: tp.topic, partition: tp.partition });
  }

  /** Kafka's `failIfNotReadyForSend`: the error a send fails with now, or null. */
  sendRefusal(): ProducerError | null {
    const error = this.#currentError();
    if (error !== null) return error;
    if (this.isTransactional && (!this.hasProducerId || this.#state !== "IN_TRANSACTION")) return clientError(ILLEGAL_STATE);
    return null;
  }

  /**
   * A client-side failure of a send (a record too large, say): for a
   * transactional producer the transaction must be aborted (Kafka's
   * `maybeTransitionToErrorState` from `doSend`).
   */
  sendFailed(error: ProducerError): void {
    this.#maybeTransitionToErrorState(error);
  }

  // --- the sender's calls: idempotence ---

  isSendToPartitionAllowed(topic: string, partition: number): boolean {
    if (this.hasFatalError) return false;
    return !this.isTransactional || this.#partitionsInTransaction.has(tpKey(topic, partition));
  }

  /**
   * Whether the partition's first queued batch must wait (Kafka's
   * `shouldStopDrainBatchesForPartition`): the partition is not in the
   * transaction yet, there is no producer id, a new batch would start a new
   * epoch while older batches are in flight, the partition's sequences are
   * unresolved, a new batch would push an unanswered one out of the
   * leader's duplicate window (see PartitionSequence.windowFull), or a
   * batch being retried is not the lowest in flight.
   */
  shouldStopDrain(first: ProducerBatch): boolean {
    const { topic, partition } = first;
    if (!this.isSendToPartitionAllowed(topic, partition)) return true;
    if (!this.hasProducerId) return true;
    // Asked for every queued partition on every pass of the sender: its sequences are looked up once.
    const entry = this.sequences.get(topic, partition);
    const inFlight = entry?.inFlight() ?? [];
    if (!first.hasSequence) {
      if (inFlight.length > 0 && !sameProducerIdAndEpoch(this.#producerIdAndEpoch, (entry as PartitionSequence).producerIdAndEpoch))
        return true;
      if (this.#unresolved.size > 0 && this.#unresolved.has(tpKey(topic, partition))) return true;
      if (entry?.windowFull) return true;
    }
    const firstInFlight = inFlight[0]?.baseSequence ?? NO_SEQUENCE;
    return firstInFlight !== NO_SEQUENCE && first.hasSequence && first.baseSequence !== firstInFlight;
  }

  /** A batch is drained for sending: a new one gets the producer id, epoch and the partition's next sequence. */
  onDrain(batch: ProducerBatch): void {
    if (batch.hasSequence) return;
    const { topic, partition } = batch;
    // All batches of an older epoch are done (shouldStopDrain made sure): restart the sequences.
    if (this.#hasStaleProducerIdAndEpoch(topic, partition) && !this.#hasInFlightBatches(topic, partition)) {
      this.sequences.startSequencesAtBeginning(topic, partition, this.#producerIdAndEpoch);
    }
    const entry = this.sequences.getOrCreate(topic, partition);
    batch.setProducerState(this.#producerIdAndEpoch, entry.nextSequence, this.isTransactional);
    entry.nextSequence = incrementSequence(entry.nextSequence, batch.recordCount);
    entry.add(batch);
  }

  #hasInFlightBatches(topic: string, partition: number): boolean {
    return (this.sequences.get(topic, partition)?.inFlight().length ?? 0) > 0;
  }

  #hasStaleProducerIdAndEpoch(topic: string, partition: number): boolean {
    return !sameProducerIdAndEpoch(this.#producerIdAndEpoch, this.sequences.getOrCreate(topic, partition).producerIdAndEpoch);
  }

  /** Kafka's `handleCompletedBatch`: the last acknowledged sequence and offset move on. */
  handleCompletedBatch(batch: ProducerBatch, baseOffset: number): void {
    const entry = this.sequences.getOrCreate(batch.topic, batch.partition);
    if (batch.lastSequence > entry.lastAckedSequence) entry.lastAckedSequence = batch.lastSequence;
    if (baseOffset >= 0) entry.lastAckedOffset = Math.max(entry.lastAckedOffset, baseOffset + batch.recordCount - 1);
    entry.remove(batch);
  }

  /**
   * Kafka's `handleFailedBatch`: a transactional producer enters an
   * abortable (or fatal) error; an idempotent one bumps its epoch after an
   * OUT_OF_ORDER_SEQUENCE_NUMBER or when the failed batch's sequence may be
   * reused; UNKNOWN_PRODUCER_ID restarts the partition's sequences.
   */
  handleFailedBatch(batch: ProducerBatch, error: ProducerError, adjustSequenceNumbers: boolean): void {
    this.#maybeTransitionToErrorState(error);
    this.sequences.get(batch.topic, batch.partition)?.remove(batch);
    if (this.hasFatalError) return;
    if (
      batch.hasSequence &&
      !sameProducerIdAndEpoch({ producerId: batch.producerId, epoch: batch.producerEpoch }, this.#producerIdAndEpoch)
    ) {
      // The producer id or epoch changed since the batch was sent: its sequence no longer matters.
      return;
    }
    if (error.errorCode === ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER && !this.isTransactional) {
      this.#requestEpochBumpForPartition(batch.topic, batch.partition);
    } else if (error.errorCode === ErrorCode.UNKNOWN_PRODUCER_ID) {
      this.sequences.remove(batch.topic, batch.partition);
      this.#unresolved.delete(tpKey(batch.topic, batch.partition));
    } else if (adjustSequenceNumbers) {
      if (!this.isTransactional) this.#requestEpochBumpForPartition(batch.topic, batch.partition);
      else this.#adjustSequencesDueToFailedBatch(batch);
    }
  }

  /** A batch failed for sure on the broker: the batches after it move down by its record count. */
  #adjustSequencesDueToFailedBatch(batch: ProducerBatch): void {
    const entry = this.sequences.get(batch.topic, batch.partition);
    if (entry === undefined) return;
    entry.nextSequence = Math.max(0, entry.nextSequence - batch.recordCount);
    entry.rewriteSequences((inFlight) => {
      if (inFlight.baseSequence < batch.baseSequence) return;
      inFlight.resetProducerState(
        { producerId: inFlight.producerId, epoch: inFlight.producerEpoch },
        Math.max(0, inFlight.baseSequence - batch.recordCount),
        inFlight.isTransactional,
      );
    });
  }

  #maybeTransitionToErrorState(error: ProducerError): void {
    if (this.#isFatal(error.errorCode)) {
      this.#transitionToFatalError(error);
    } else if (this.isTransactional) {
      if (this.#needToTriggerEpochBumpFromClient && !this.isCompleting) this.#epochBumpRequired = true;
      this.#transitionToAbortableError(error);
    }
  }

  #transitionToAbortableError(error: ProducerError): void {
    // Already aborting, or nothing to abort (the transaction is over): nothing changes.
    if (this.#state === "ABORTING_TRANSACTION" || !isTransitionValid(this.#state, "ABORTABLE_ERROR")) return;
    this.#transition("ABORTABLE_ERROR", error);
  }

  #transitionToFatalError(error: ProducerError): void {
    const inTransaction = this.#state === "IN_TRANSACTION" || this.isCompleting || this.#state === "ABORTABLE_ERROR";
    if (this.#state === "FATAL_ERROR") return;
    this.#transition("FATAL_ERROR", error);
    this.#pendingResult?.fail(error);
    if (inTransaction && this.transactionalId !== null) {
      this.#options.events.transactionEnded("failed", this.#producerIdAndEpoch, this.#recordsInTransaction, error);
    }
  }

  /**
   * Kafka's `canRetry` for a produce error: UNKNOWN_PRODUCER_ID and
   * OUT_OF_ORDER_SEQUENCE_NUMBER are retried (with an epoch bump or a
   * sequence restart where the broker lost the producer's state) when it is
   * safe, other errors when they are retriable.
   */
  canRetry(errorCode: number, logStartOffset: number, batch: ProducerBatch): boolean {
    const { topic, partition } = batch;
    if (errorCode === ErrorCode.UNKNOWN_PRODUCER_ID) {
      if (logStartOffset === -1) return true;
      if (batch.sequenceHasBeenReset) return true;
      const lastAcked = this.sequences.get(topic, partition)?.lastAckedOffset ?? -1;
      if (lastAcked < logStartOffset) {
        if (this.isTransactional) this.sequences.startSequencesAtBeginning(topic, partition, this.#producerIdAndEpoch);
        else this.#requestEpochBumpForPartition(topic, partition);
        return true;
      }
      if (!this.isTransactional) {
        this.#requestEpochBumpForPartition(topic, partition);
        return true;
      }
    } else if (errorCode === ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER) {
      const unresolved = this.#unresolved.has(tpKey(topic, partition));
      if (!unresolved && (batch.sequenceHasBeenReset || !this.#isNextSequence(topic, partition, batch.baseSequence))) return true;
      if (!this.isTransactional) {
        if (!unresolved || this.#unresolved.get(tpKey(topic, partition))?.next === batch.baseSequence) {
          this.#requestEpochBumpForPartition(topic, partition);
        }
        return true;
      }
    }
    return RETRIABLE_PRODUCE_ERRORS.has(errorCode);
  }

  #isNextSequence(topic: string, partition: number, sequence: number): boolean {
    return sequence - (this.sequences.get(topic, partition)?.lastAckedSequence ?? NO_LAST_ACKED_SEQUENCE) === 1;
  }

  #requestEpochBumpForPartition(topic: string, partition: number): void {
    this.#epochBumpRequired = true;
    this.#toRewrite.set(tpKey(topic, partition), { topic, partition });
  }

  /** A batch sent at least once expired: the partition's sequences are unknown until its other batches settle. */
  markSequenceUnresolved(batch: ProducerBatch): void {
    const key = tpKey(batch.topic, batch.partition);
    const next = incrementSequence(batch.lastSequence, 1);
    const known = this.#unresolved.get(key);
    if (known === undefined) this.#unresolved.set(key, { tp: { topic: batch.topic, partition: batch.partition }, next });
    else known.next = Math.max(known.next, next);
  }

  /**
   * Kafka's `maybeResolveSequences`: once an unresolved partition has nothing
   * in flight, it is fine if the batches after the expired one were
   * acknowledged; otherwise an idempotent producer bumps its epoch and a
   * transactional one must abort (abortable error, epoch bump).
   */
  maybeResolveSequences(): void {
    for (const [key, { tp }] of [...this.#unresolved]) {
      const { topic, partition } = tp;
      if (this.#hasInFlightBatches(topic, partition)) continue;
      const next = this.sequences.getOrCreate(topic, partition).nextSequence;
      if (!this.#isNextSequence(topic, partition, next)) {
        if (this.isTransactional) {
          if (this.#needToTriggerEpochBumpFromClient) this.#epochBumpRequired = true;
          this.#transitionToAbortableError(
            clientError(
              "KafkaException: the client hasn't received acknowledgment for some previously sent messages and can no longer retry them",
            ),
          );
        } else {
          this.#requestEpochBumpForPartition(topic, partition);
        }
      }
      this.#unresolved.delete(key);
    }
  }

  /**
   * Kafka's `bumpIdempotentEpochAndResetIdIfNeeded`: an idempotent producer
   * that needs a new epoch bumps it itself (a new producer id once the epoch
   * is exhausted), and one without a producer id asks a broker for one.
   */
  bumpIdempotentEpochAndResetIdIfNeeded(): void {
    if (this.isTransactional) return;
    if (this.#epochBumpRequired) this.#bumpIdempotentProducerEpoch();
    if (this.#state !== "INITIALIZING" && !this.hasProducerId) {
      this.#state = "INITIALIZING";
      this.#lastError = null;
      this.#enqueue(
        { kind: "init-producer-id", isEpochBump: false, producer: NO_PRODUCER_ID_AND_EPOCH },
        TxnPriority.INIT_PRODUCER_ID,
        "InitProducerId",
      );
    }
  }

  #bumpIdempotentProducerEpoch(): void {
    if (this.#producerIdAndEpoch.epoch === INT16_MAX) {
      this.#producerIdAndEpoch = NO_PRODUCER_ID_AND_EPOCH;
      this.#state = "UNINITIALIZED";
    } else {
      this.#producerIdAndEpoch = { producerId: this.#producerIdAndEpoch.producerId, epoch: this.#producerIdAndEpoch.epoch + 1 };
      this.#options.events.producerIdChanged(this.#producerIdAndEpoch, "epoch-bump");
    }
    for (const { topic, partition } of this.#toRewrite.values()) {
      this.sequences.startSequencesAtBeginning(topic, partition, this.#producerIdAndEpoch);
      this.#unresolved.delete(tpKey(topic, partition));
    }
    this.#toRewrite.clear();
    this.#epochBumpRequired = false;
  }

  // --- the sender's calls: transactional requests ---

  get hasInFlightRequest(): boolean {
    return this.#inFlight !== null;
  }

  get inFlightRequest(): InFlightTxnRequest | null {
    return this.#inFlight;
  }

  setInFlight(request: InFlightTxnRequest): void {
    this.#inFlight = request;
  }

  /** Whether a transactional request is waiting to go out (or to be retried). */
  get hasPendingRequests(): boolean {
    return this.#pending.length > 0 || this.#newPartitions.size > 0;
  }

  #enqueue(request: TxnRequest, priority: number, operation: string, result?: TransactionalResult): TxnRequestHandler {
    const handler = new TxnRequestHandler(request, result ?? this.#newResult(operation), priority, this.#nextHandlerSequence++);
    this.#pending.push(handler);
    return handler;
  }

  #reenqueue(handler: TxnRequestHandler): void {
    handler.isRetry = true;
    handler.retryAt = null;
    this.#pending.push(handler);
  }

  /** Puts back a request that could not go out now (no target yet, or waiting its retry backoff). */
  putBack(handler: TxnRequestHandler): void {
    this.#pending.push(handler);
  }

  /** Retries a request later: the target was not reachable. */
  retry(handler: TxnRequestHandler): void {
    this.#reenqueue(handler);
  }

  #enqueueAddPartitions(): void {
    for (const [key, tp] of this.#newPartitions) this.#pendingPartitions.set(key, tp);
    this.#newPartitions.clear();
    this.#enqueue(
      { kind: "add-partitions", producer: this.#producerIdAndEpoch, partitions: [...this.#pendingPartitions.values()] },
      TxnPriority.ADD_PARTITIONS_OR_OFFSETS,
      "AddPartitionsToTxn",
    );
  }

  #poll(): TxnRequestHandler | undefined {
    if (this.#pending.length === 0) return undefined;
    let best = 0;
    for (let i = 1; i < this.#pending.length; i++) {
      const h = this.#pending[i] as TxnRequestHandler;
      const b = this.#pending[best] as TxnRequestHandler;
      if (h.priority < b.priority || (h.priority === b.priority && h.sequence < b.sequence)) best = i;
    }
    return this.#pending.splice(best, 1)[0];
  }

  #peek(): TxnRequestHandler | undefined {
    const handler = this.#poll();
    if (handler !== undefined) this.#pending.push(handler);
    return handler;
  }

  /**
   * Kafka's `nextRequest`: the next transactional request to send, or null.
   * New partitions are added first; EndTxn waits until every batch is done;
   * requests are failed instead of sent while in an error state; an EndTxn
   * for a transaction that never added anything completes without being sent.
   */
  nextRequest(hasIncompleteBatches: boolean): TxnRequestHandler | null {
    if (this.#newPartitions.size > 0) this.#enqueueAddPartitions();
    for (;;) {
      const next = this.#peek();
      if (next === undefined) return null;
      if (next.isEndTxn && hasIncompleteBatches) return null;
      let handler = this.#poll() as TxnRequestHandler;
      if (this.#maybeTerminateWithError(handler)) continue;
      if (handler.isEndTxn && !this.#transactionStarted) {
        handler.result.done();
        if (this.#state !== "FATAL_ERROR") this.#completeTransaction();
        const following = this.#poll();
        if (following === undefined) return null;
        handler = following;
      }
      return handler;
    }
  }

  #maybeTerminateWithError(handler: TxnRequestHandler): boolean {
    if (!this.hasError) return false;
    if (this.hasAbortableError && handler.request.kind === "find-coordinator") return false;
    handler.result.fail(this.#lastError ?? clientError("KafkaException"));
    return true;
  }

  /** Forgets the coordinator of `type` and queues a lookup (Kafka's `lookupCoordinator`). */
  lookupCoordinator(type: CoordinatorType, key: string): void {
    if (type === "group") this.#groupCoordinator = null;
    else this.#transactionCoordinator = null;
    const queued = this.#pending.some(
      (h) => h.request.kind === "find-coordinator" && h.request.coordinatorType === type && h.request.key === key,
    );
    if (!queued) this.#enqueue({ kind: "find-coordinator", coordinatorType: type, key }, TxnPriority.FIND_COORDINATOR, "FindCoordinator");
  }

  coordinator(type: CoordinatorType): ActorId | null {
    return type === "group" ? this.#groupCoordinator : this.#transactionCoordinator;
  }

  /** The message for a request about to go out. */
  requestOf(handler: TxnRequestHandler, correlationId: number, clientId: string): Message {
    const header = { correlationId, clientId };
    const request = handler.request;
    const transactionalId = this.transactionalId ?? "";
    switch (request.kind) {
      case "find-coordinator":
        return {
          type: "FindCoordinatorRequest",
          ...header,
          apiVersion: 4,
          keyType: request.coordinatorType === "group" ? CoordinatorKeyType.GROUP : CoordinatorKeyType.TRANSACTION,
          coordinatorKeys: [request.key],
        };
      case "init-producer-id":
        return {
          type: "InitProducerIdRequest",
          ...header,
          apiVersion: 4,
          transactionalId: this.transactionalId,
          transactionTimeoutMs: this.transactionalId === null ? 2147483647 : this.#options.transactionTimeoutMs,
          producerId: request.producer.producerId,
          producerEpoch: request.producer.epoch,
        };
      case "add-partitions": {
        const topics = new Map<string, number[]>();
        for (const tp of request.partitions) topics.set(tp.topic, [...(topics.get(tp.topic) ?? []), tp.partition]);
        return {
          type: "AddPartitionsToTxnRequest",
          ...header,
          apiVersion: 3,
          transactionalId,
          producerId: request.producer.producerId,
          producerEpoch: request.producer.epoch,
          topics: [...topics].map(([name, partitions]) => ({ name, partitions })),
        };
      }
      case "add-offsets":
        return {
          type: "AddOffsetsToTxnRequest",
          ...header,
          apiVersion: 3,
          transactionalId,
          producerId: request.producer.producerId,
          producerEpoch: request.producer.epoch,
          groupId: request.group.groupId,
        };
      case "txn-offset-commit": {
        // TxnOffsetCommit v5 is transaction version 2's (the group coordinator adds the offsets to the transaction).
        const topics = new Map<
          string,
          { partitionIndex: number; committedOffset: number; committedLeaderEpoch: number; committedMetadata: string | null }[]
        >();
        for (const o of this.#pendingTxnOffsetCommits.values()) {
          topics.set(o.topic, [
            ...(topics.get(o.topic) ?? []),
            {
              partitionIndex: o.partition,
              committedOffset: o.offset,
              committedLeaderEpoch: o.leaderEpoch ?? -1,
              committedMetadata: o.metadata ?? "",
            },
          ]);
        }
        return {
          type: "TxnOffsetCommitRequest",
          ...header,
          apiVersion: this.#transactionV2 ? 5 : 3,
          transactionalId,
          groupId: request.group.groupId,
          producerId: request.producer.producerId,
          producerEpoch: request.producer.epoch,
          generationId: request.group.generationId,
          memberId: request.group.memberId,
          groupInstanceId: request.group.groupInstanceId,
          topics: [...topics].map(([name, partitions]) => ({ name, partitions })),
        };
      }
      case "end-txn":
        // EndTxn v5 is transaction version 2's: the coordinator bumps the epoch and answers with it.
        return {
          type: "EndTxnRequest",
          ...header,
          apiVersion: this.#transactionV2 ? 5 : 3,
          transactionalId,
          producerId: request.producer.producerId,
          producerEpoch: request.producer.epoch,
          committed: request.committed,
        };
    }
  }

  /** The retry backoff a request waits before going out again. */
  retryBackoffOf(handler: TxnRequestHandler): Micros {
    return Math.min(this.#options.retryBackoff, handler.retryBackoffOverride ?? this.#options.retryBackoff);
  }

  /**
   * The request in flight failed without an answer (a disconnect or a
   * request timeout): look the coordinator up again if it needs one, and
   * retry it (Kafka's `onComplete` for a disconnected response).
   */
  inFlightFailed(): void {
    const inFlight = this.#inFlight;
    if (inFlight === null) return;
    this.#inFlight = null;
    const handler = inFlight.handler;
    const type = handler.coordinatorType(this.isTransactional);
    const key = handler.coordinatorKey(this.transactionalId);
    if (type !== null && key !== null) this.lookupCoordinator(type, key);
    this.#reenqueue(handler);
  }

  /** An answer from `from`: true if it answers the request in flight (then it is handled). */
  receive(from: ActorId, message: Message): boolean {
    const inFlight = this.#inFlight;
    if (
      inFlight === null ||
      !("correlationId" in message) ||
      message.correlationId !== inFlight.correlationId ||
      from !== inFlight.target
    ) {
      return false;
    }
    const handler = inFlight.handler;
    const request = handler.request;
    let handled = true;
    switch (message.type) {
      case "FindCoordinatorResponse":
        if (request.kind === "find-coordinator") this.#onFindCoordinator(handler, request.coordinatorType, message);
        else handled = false;
        break;
      case "InitProducerIdResponse":
        if (request.kind === "init-producer-id") this.#onInitProducerId(handler, request.isEpochBump, message);
        else handled = false;
        break;
      case "AddPartitionsToTxnResponse":
        if (request.kind === "add-partitions") this.#onAddPartitions(handler, request.partitions, message);
        else handled = false;
        break;
      case "AddOffsetsToTxnResponse":
        if (request.kind === "add-offsets") this.#onAddOffsets(handler, request.offsets, request.group, message);
        else handled = false;
        break;
      case "TxnOffsetCommitResponse":
        if (request.kind === "txn-offset-commit") this.#onTxnOffsetCommit(handler, request.group, message);
        else handled = false;
        break;
      case "EndTxnResponse":
        if (request.kind === "end-txn") this.#onEndTxn(handler, message);
        else handled = false;
        break;
      default:
        handled = false;
    }
    if (handled) this.#inFlight = null;
    return handled;
  }

  #fatal(handler: TxnRequestHandler, error: ProducerError): void {
    handler.result.fail(error);
    this.#transitionToFatalError(error);
  }

  #abortable(handler: TxnRequestHandler, error: ProducerError): void {
    handler.result.fail(error);
    this.#transitionToAbortableError(error);
  }

  /**
   * Kafka's `abortableErrorIfPossible` (the coordinator supports epoch
   * bumps here): abortable, with the client's epoch bump after the abort
   * unless under transaction version 2.
   */
  #abortableErrorIfPossible(handler: TxnRequestHandler, error: ProducerError): void {
    if (this.#needToTriggerEpochBumpFromClient) this.#epochBumpRequired = true;
    this.#abortable(handler, error);
  }

  #lookupTransactionCoordinatorAndRetry(handler: TxnRequestHandler): void {
    if (this.transactionalId !== null) this.lookupCoordinator("transaction", this.transactionalId);
    this.#reenqueue(handler);
  }

  #onFindCoordinator(handler: TxnRequestHandler, type: CoordinatorType, response: FindCoordinatorResponse): void {
    const coordinator = response.coordinators[0];
    if (response.coordinators.length !== 1 || coordinator === undefined) {
      this.#fatal(handler, clientError("IllegalStateException: a FindCoordinator answer with other than one coordinator"));
      return;
    }
    switch (coordinator.errorCode) {
      case ErrorCode.NONE:
        if (type === "group") this.#groupCoordinator = coordinator.host;
        else this.#transactionCoordinator = coordinator.host;
        handler.result.done();
        return;
      // Kafka retries COORDINATOR_NOT_AVAILABLE only; a coordinator that moved or is loading is retried here too.
      case ErrorCode.COORDINATOR_NOT_AVAILABLE:
      case ErrorCode.NOT_COORDINATOR:
      case ErrorCode.COORDINATOR_LOAD_IN_PROGRESS:
        this.#reenqueue(handler);
        return;
      case ErrorCode.GROUP_AUTHORIZATION_FAILED:
        this.#abortable(handler, producerErrorOf(coordinator.errorCode));
        return;
      default:
        this.#fatal(handler, producerErrorOf(coordinator.errorCode));
    }
  }

  #onInitProducerId(handler: TxnRequestHandler, isEpochBump: boolean, response: InitProducerIdResponse): void {
    if (this.#state === "FATAL_ERROR") {
      handler.result.fail(this.#lastError ?? clientError("KafkaException"));
      return;
    }
    switch (response.errorCode) {
      case ErrorCode.NONE: {
        this.#producerIdAndEpoch = { producerId: response.producerId, epoch: response.producerEpoch };
        this.#state = "READY";
        this.#lastError = null;
        if (isEpochBump) {
          this.sequences.reset();
          this.#unresolved.clear();
        }
        this.#options.events.producerIdChanged(this.#producerIdAndEpoch, "init");
        handler.result.done();
        return;
      }
      case ErrorCode.NOT_COORDINATOR:
      case ErrorCode.COORDINATOR_NOT_AVAILABLE:
        this.#lookupTransactionCoordinatorAndRetry(handler);
        return;
      case ErrorCode.COORDINATOR_LOAD_IN_PROGRESS:
      case ErrorCode.CONCURRENT_TRANSACTIONS:
        this.#reenqueue(handler);
        return;
      case ErrorCode.INVALID_PRODUCER_EPOCH:
      case ErrorCode.PRODUCER_FENCED:
        this.#fatal(handler, producerErrorOf(ErrorCode.PRODUCER_FENCED));
        return;
      default:
        this.#fatal(handler, producerErrorOf(response.errorCode));
    }
  }

  #onAddPartitions(handler: TxnRequestHandler, requested: readonly TopicPartition[], response: AddPartitionsToTxnResponse): void {
    const errors = new Map<string, number>();
    for (const tp of requested) errors.set(tpKey(tp.topic, tp.partition), response.errorCode);
    if (response.errorCode === ErrorCode.NONE) {
      for (const topic of response.results) {
        for (const p of topic.results) errors.set(tpKey(topic.name, p.partitionIndex), p.partitionErrorCode);
      }
    }
    let hasPartitionErrors = false;
    let firstError: number = ErrorCode.NONE;
    for (const error of errors.values()) {
      switch (error) {
        case ErrorCode.NONE:
          continue;
        case ErrorCode.COORDINATOR_NOT_AVAILABLE:
        case ErrorCode.NOT_COORDINATOR:
          this.#lookupTransactionCoordinatorAndRetry(handler);
          return;
        case ErrorCode.CONCURRENT_TRANSACTIONS:
          // The previous transaction is still completing: try again soon.
          if (this.#partitionsInTransaction.size === 0) handler.retryBackoffOverride = ADD_PARTITIONS_RETRY_BACKOFF;
          this.#reenqueue(handler);
          return;
        case ErrorCode.COORDINATOR_LOAD_IN_PROGRESS:
        case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
          this.#reenqueue(handler);
          return;
        case ErrorCode.INVALID_PRODUCER_EPOCH:
        case ErrorCode.PRODUCER_FENCED:
          this.#fatal(handler, producerErrorOf(ErrorCode.PRODUCER_FENCED));
          return;
        case ErrorCode.INVALID_TXN_STATE:
          this.#fatal(handler, producerErrorOf(error));
          return;
        case ErrorCode.UNKNOWN_PRODUCER_ID:
        case ErrorCode.INVALID_PRODUCER_ID_MAPPING:
          this.#abortableErrorIfPossible(handler, producerErrorOf(error));
          return;
        case ErrorCode.OPERATION_NOT_ATTEMPTED:
          hasPartitionErrors = true;
          continue;
        default:
          hasPartitionErrors = true;
          if (firstError === ErrorCode.NONE) firstError = error;
      }
    }
    // The partitions leave the pending set whatever happened: if they failed, the transaction is aborted anyway.
    for (const key of errors.keys()) this.#pendingPartitions.delete(key);
    if (hasPartitionErrors) {
      this.#abortable(handler, producerErrorOf(firstError === ErrorCode.NONE ? ErrorCode.OPERATION_NOT_ATTEMPTED : firstError));
      return;
    }
    for (const tp of requested) this.#partitionsInTransaction.set(tpKey(tp.topic, tp.partition), tp);
    this.#transactionStarted = true;
    handler.result.done();
  }

  #onAddOffsets(
    handler: TxnRequestHandler,
    offsets: readonly TransactionOffset[],
    group: GroupMetadata,
    response: AddOffsetsToTxnResponse,
  ): void {
    switch (response.errorCode) {
      case ErrorCode.NONE:
        for (const o of offsets) this.#pendingTxnOffsetCommits.set(tpKey(o.topic, o.partition), o);
        // The result completes when the TxnOffsetCommit is answered.
        this.#enqueue(
          { kind: "txn-offset-commit", producer: this.#producerIdAndEpoch, group },
          TxnPriority.ADD_PARTITIONS_OR_OFFSETS,
          "TxnOffsetCommit",
          handler.result,
        );
        this.#transactionStarted = true;
        return;
      case ErrorCode.GROUP_AUTHORIZATION_FAILED:
        this.#abortable(handler, producerErrorOf(response.errorCode));
        return;
      default:
        this.#onTransactionCoordinatorError(handler, response.errorCode);
    }
  }

  #onTxnOffsetCommit(handler: TxnRequestHandler, group: GroupMetadata, response: TxnOffsetCommitResponse): void {
    let coordinatorReloaded = false;
    outer: for (const topic of response.topics) {
      for (const p of topic.partitions) {
        const key = tpKey(topic.name, p.partitionIndex);
        switch (p.errorCode) {
          case ErrorCode.NONE:
            this.#pendingTxnOffsetCommits.delete(key);
            continue;
          case ErrorCode.COORDINATOR_NOT_AVAILABLE:
          case ErrorCode.NOT_COORDINATOR:
          case ErrorCode.REQUEST_TIMED_OUT:
            if (!coordinatorReloaded) {
              coordinatorReloaded = true;
              this.lookupCoordinator("group", group.groupId);
            }
            continue;
          case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
          case ErrorCode.COORDINATOR_LOAD_IN_PROGRESS:
          case ErrorCode.CONCURRENT_TRANSACTIONS:
            continue;
          case ErrorCode.GROUP_AUTHORIZATION_FAILED:
          case ErrorCode.FENCED_INSTANCE_ID:
          // KIP-890: a TxnOffsetCommit from v4 whose verification failed; older versions get INVALID_TXN_STATE (fatal).
          case ErrorCode.TRANSACTION_ABORTABLE:
            this.#abortable(handler, producerErrorOf(p.errorCode));
            break outer;
          case ErrorCode.UNKNOWN_MEMBER_ID:
          case ErrorCode.ILLEGAL_GENERATION:
            // Kafka's CommitFailedException: the group moved on; this transaction must abort.
            this.#abortable(handler, { errorCode: p.errorCode, name: `CommitFailedException: ${producerErrorOf(p.errorCode).name}` });
            break outer;
          case ErrorCode.INVALID_PRODUCER_EPOCH:
          case ErrorCode.PRODUCER_FENCED:
            // The Java client treats both as PRODUCER_FENCED here (an older coordinator, or the verification, says INVALID_PRODUCER_EPOCH).
            this.#fatal(handler, producerErrorOf(ErrorCode.PRODUCER_FENCED));
            break outer;
          default:
            this.#fatal(handler, producerErrorOf(p.errorCode));
            break outer;
        }
      }
    }
    if (handler.result.isCompleted) this.#pendingTxnOffsetCommits.clear();
    else if (this.#pendingTxnOffsetCommits.size === 0) handler.result.done();
    else this.#reenqueue(handler);
  }

  /**
   * EndTxn answered (Kafka's `EndTxnHandler`). NONE ends the transaction;
   * from v5 (transaction version 2) the answer carries the producer id and
   * epoch the coordinator moved the producer to (the epoch bumped, or a new
   * id once it ran out), which the producer adopts with its sequences
   * restarted (Kafka's `resetSequenceNumbers`); below v5 it carries -1.
   */
  #onEndTxn(handler: TxnRequestHandler, response: EndTxnResponse): void {
    switch (response.errorCode) {
      case ErrorCode.NONE: {
        const next = response.producerId === NO_PRODUCER_ID ? null : { producerId: response.producerId, epoch: response.producerEpoch };
        // The ended transaction is observed at the epoch it ran under, then the producer moves on.
        this.#completeTransaction();
        if (next !== null) {
          this.#producerIdAndEpoch = next;
          this.sequences.reset();
          this.#unresolved.clear();
          this.#options.events.producerIdChanged(next, "end-txn");
        }
        handler.result.done();
        return;
      }
      default:
        this.#onTransactionCoordinatorError(handler, response.errorCode);
    }
  }

  /**
   * The error answers AddOffsetsToTxn and EndTxn share (Kafka handles them
   * alike in both handlers): find the coordinator again, retry, bump the
   * epoch, or fail for good.
   */
  #onTransactionCoordinatorError(handler: TxnRequestHandler, errorCode: number): void {
    switch (errorCode) {
      case ErrorCode.COORDINATOR_NOT_AVAILABLE:
      case ErrorCode.NOT_COORDINATOR:
        this.#lookupTransactionCoordinatorAndRetry(handler);
        return;
      case ErrorCode.COORDINATOR_LOAD_IN_PROGRESS:
      case ErrorCode.CONCURRENT_TRANSACTIONS:
        this.#reenqueue(handler);
        return;
      case ErrorCode.UNKNOWN_PRODUCER_ID:
        this.#abortableErrorIfPossible(handler, producerErrorOf(errorCode));
        return;
      case ErrorCode.INVALID_PRODUCER_ID_MAPPING:
        if (this.#isFatal(errorCode)) this.#fatal(handler, producerErrorOf(errorCode));
        else this.#abortableErrorIfPossible(handler, producerErrorOf(errorCode));
        return;
      case ErrorCode.INVALID_PRODUCER_EPOCH:
      case ErrorCode.PRODUCER_FENCED:
        this.#fatal(handler, producerErrorOf(ErrorCode.PRODUCER_FENCED));
        return;
      default:
        this.#fatal(handler, producerErrorOf(errorCode));
    }
  }

  /** Kafka's `completeTransaction`: back to READY (or INITIALIZING for an epoch bump), the transaction's partitions forgotten. */
  #completeTransaction(): void {
    this.#options.events.transactionEnded(
      this.#completingCommit ? "committed" : "aborted",
      this.#producerIdAndEpoch,
      this.#recordsInTransaction,
      this.#abortCause,
    );
    this.#abortCause = null;
    this.#state = this.#epochBumpRequired ? "INITIALIZING" : "READY";
    this.#lastError = null;
    this.#epochBumpRequired = false;
    this.#transactionStarted = false;
    this.#recordsInTransaction = 0;
    this.#newPartitions.clear();
    this.#pendingPartitions.clear();
    this.#partitionsInTransaction.clear();
    // Offsets of a TxnOffsetCommit that never went out (failed in an error state) belong to the transaction just
    // ended: left here, the next transaction's TxnOffsetCommit would carry them (the request is built from this map).
    this.#pendingTxnOffsetCommits.clear();
  }
}
