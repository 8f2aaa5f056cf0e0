import {
  type AbortedTransaction,
  ControlRecordType,
  ErrorCode,
  NO_PRODUCER_EPOCH,
  NO_PRODUCER_ID,
  type RecordBatch,
  SENTINEL_GUARD,
  type VerificationGuard,
} from "@kcsim/protocol";
import { endTransactionMarkerOf } from "../records/end-transaction-marker.js";
import { inSequence, lastSequenceOf } from "../records/sequence.js";
import { ProducerStateEntry } from "./producer-state-entry.js";
import { TransactionIndex } from "./transaction-index.js";

/** A transaction that ended on this partition (Kafka's `CompletedTxn`): its first data offset and its marker's offset. */
export interface CompletedTxn {
  readonly producerId: number;
  readonly firstOffset: number;
  readonly lastOffset: number;
  readonly isAborted: boolean;
}

/** What a leader does with a producer's batch: append it, answer it as a duplicate of an earlier append, or refuse it. */
export type ProducerAppendCheck =
  | { readonly kind: "append" }
  | { readonly kind: "duplicate"; readonly firstOffset: number; readonly lastOffset: number }
  | { readonly kind: "error"; readonly errorCode: number };

const APPEND: ProducerAppendCheck = { kind: "append" };

/** Kafka's `VerificationStateEntry`: a verification under way, and the lowest sequence it was started for. */
interface VerificationState {
  readonly guard: VerificationGuard;
  /** Whether the write that started it is of transaction version 2 (Kafka's `supportsEpochBump`). */
  readonly supportsEpochBump: boolean;
  lowestSequence: number;
  epoch: number;
}

/**
 * The producer state of one partition log (Kafka's `ProducerStateManager`
 * with `ProducerAppendInfo`), built from the batches of the log in order,
 * on leaders and followers alike (followers replicate it through the log):
 * - per producer id its epoch, latest batches and open transaction;
 * - the open transactions by first offset, and the completed ones whose
 *   marker is not below the high watermark yet: together they hold back
 *   the last stable offset;
 * - the aborted transactions (the transaction index).
 *
 * Leaders check a client's batch before appending it (`checkClientAppend`)
 * and a coordinator's marker (`checkMarker`); `apply` then records what was
 * appended, without checks (leader, follower and log recovery alike).
 *
 * KIP-890 part 1: before the first transactional batch of a producer's
 * transaction here, the leader verifies with the transaction coordinator
 * (`startVerification`); the batch must then carry that verification's
 * guard, and the verification blocks batches of higher sequences than the
 * one it was started for. A transactional batch or a marker of the
 * producer ends it (in memory only, as in Kafka).
 *
 * Transaction version 2 (KIP-890 part 2): the leader adds the partition to
 * the transaction instead of verifying it, and its checks follow Kafka 4.2:
 * a transaction is ongoing only at the batch's own epoch (KAFKA-18575: the
 * next transaction runs at the epoch the previous one's marker will carry),
 * a stale epoch is told before a missing verification (KAFKA-18042,
 * KAFKA-19690), a producer new to the partition starts at sequence 0
 * (KAFKA-18202), and a marker's epoch must be above the producer's
 * (KIP-1228) but for a retried marker of a transaction already ended here
 * (KAFKA-19999). Writes before transaction version 2 are checked as before
 * Kafka 4.0 (`supportsEpochBump` false): those 4.x rules would change how
 * a broker answers a zombie's stale-epoch batch (an extra verification, or
 * none where one was sent), so they apply to transaction version 2 only.
 */
export class ProducerStateManager {
  #producers = new Map<number, ProducerStateEntry>();
  /** Open transactions: first offset -> producer id. */
  #ongoing = new Map<number, number>();
  /** Completed transactions whose marker is at or above the high watermark. */
  #unreplicated: CompletedTxn[] = [];
  #index = new TransactionIndex();
  /** Verifications under way, by producer id. */
  #verifications = new Map<number, VerificationState>();
  #lastGuard = SENTINEL_GUARD;

  get producerCount(): number {
    return this.#producers.size;
  }

  entry(producerId: number): ProducerStateEntry | undefined {
    return this.#producers.get(producerId);
  }

  producers(): ProducerStateEntry[] {
    return [...this.#producers.values()];
  }

  /**
   * Whether the producer has a transaction open on this partition at
   * `epoch` (Kafka 4.0's `hasOngoingTransaction`, KAFKA-18575): one open at
   * another epoch is not the batch's transaction (under transaction version
   * 2 the next transaction runs at the bumped epoch of the marker that ends
   * the previous one, which may not have arrived yet).
   */
  hasOngoingTransaction(producerId: number, epoch: number): boolean {
    const entry = this.#producers.get(producerId);
    return entry !== undefined && entry.currentTxnFirstOffset !== null && entry.producerEpoch === epoch;
  }

  /** Whether the producer has a transaction open here at any epoch (`hasOngoingTransaction` before Kafka 4.0). */
  #hasTransactionOpenAtAnyEpoch(producerId: number): boolean {
    const entry = this.#producers.get(producerId);
    return entry !== undefined && entry.currentTxnFirstOffset !== null;
  }

  /** The ongoing-transaction test of a write: Kafka 4.0's for transaction version 2, the one before it otherwise. */
  #isOngoingFor(producerId: number, epoch: number, supportsEpochBump: boolean): boolean {
    return supportsEpochBump ? this.hasOngoingTransaction(producerId, epoch) : this.#hasTransactionOpenAtAnyEpoch(producerId);
  }

  /**
   * Whether `epoch` is older than the producer's here: Kafka 4.1's early
   * refusal in `maybeStartTransactionVerification` (KAFKA-18042; the leader
   * answers INVALID_PRODUCER_EPOCH without asking the coordinator). Used
   * for transaction version 2 writes only (see the class comment).
   */
  isEpochStale(producerId: number, epoch: number): boolean {
    const entry = this.#producers.get(producerId);
    return entry !== undefined && epoch < entry.producerEpoch;
  }

  /**
   * Kafka's `maybeStartTransactionVerification`: SENTINEL_GUARD if the
   * producer's transaction is already open here, else the guard of its
   * verification (a new one if none is under way), whose lowest sequence
   * goes down to `sequence` (or restarts with a newer epoch).
   * `supportsEpochBump`: the write is of transaction version 2 (its
   * transaction must be open at `epoch`; the verification remembers it).
   */
  startVerification(producerId: number, sequence: number, epoch: number, supportsEpochBump = false): VerificationGuard {
    if (this.#isOngoingFor(producerId, epoch, supportsEpochBump)) return SENTINEL_GUARD;
    let state = this.#verifications.get(producerId);
    if (state === undefined) {
      state = { guard: ++this.#lastGuard, supportsEpochBump, lowestSequence: sequence, epoch };
      this.#verifications.set(producerId, state);
    }
    if (epoch === state.epoch && sequence < state.lowestSequence) state.lowestSequence = sequence;
    if (epoch > state.epoch) {
      state.epoch = epoch;
      state.lowestSequence = sequence;
    }
    return state.guard;
  }

  /**
   * Checks a client's data batch (Kafka's duplicate check, the verification
   * check, then `checkProducerEpoch`, `checkSequence` and the transaction
   * state): a batch matching one of the producer's latest five is a
   * duplicate; a transactional batch of a producer with no transaction open
   * here must carry the guard of its verification under way
   * (INVALID_TXN_STATE; `guard` null: the broker does not verify); an older
   * epoch is INVALID_PRODUCER_EPOCH; a sequence above a verification's
   * lowest one, a new epoch not starting at sequence 0, or the same epoch
   * not continuing the last sequence is OUT_OF_ORDER_SEQUENCE_NUMBER, though
   * a partition that knows nothing of the producer accepts any sequence (as
   * Kafka does since KIP-360: no UNKNOWN_PRODUCER_ID); a non-transactional
   * batch inside an open transaction is INVALID_TXN_STATE.
   *
   * A transaction version 2 write (`supportsEpochBump`, Kafka 4.2's
   * `analyzeAndValidateProducerState` and `checkSequence`): its transaction
   * is ongoing only at its own epoch; without one, a stale epoch is
   * INVALID_PRODUCER_EPOCH before the guard is looked at; and where the
   * partition has no batch of the producer, a transaction version 2
   * verification requires sequence 0 (OUT_OF_ORDER_SEQUENCE_NUMBER).
   */
  checkClientAppend(batch: RecordBatch, guard: VerificationGuard | null = null, supportsEpochBump = false): ProducerAppendCheck {
    if (batch.producerId === NO_PRODUCER_ID) return APPEND;
    const entry = this.#producers.get(batch.producerId);
    const firstSeq = batch.baseSequence;
    const duplicate = entry?.findDuplicate(batch.producerEpoch, firstSeq, lastSequenceOf(batch));
    if (duplicate !== undefined) return { kind: "duplicate", firstOffset: duplicate.firstOffset, lastOffset: duplicate.lastOffset };
    const verification = this.#verifications.get(batch.producerId);
    const staleEpoch = entry !== undefined && batch.producerEpoch < entry.producerEpoch;
    if (batch.isTransactional && !this.#isOngoingFor(batch.producerId, batch.producerEpoch, supportsEpochBump)) {
      // KAFKA-19690 (Kafka 4.1.1): a stale epoch, which no retry cures, is told first.
      if (supportsEpochBump && staleEpoch) return { kind: "error", errorCode: ErrorCode.INVALID_PRODUCER_EPOCH };
      if (guard !== null && (guard === SENTINEL_GUARD || verification?.guard !== guard)) {
        return { kind: "error", errorCode: ErrorCode.INVALID_TXN_STATE };
      }
    }
    if (staleEpoch) return { kind: "error", errorCode: ErrorCode.INVALID_PRODUCER_EPOCH };
    // KAFKA-18202 (Kafka 4.1): a transaction version 2 producer with no batch here starts at sequence 0.
    if (verification?.supportsEpochBump && firstSeq !== 0 && (entry === undefined || entry.isEmpty)) {
      return { kind: "error", errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER };
    }
    if (verification !== undefined && firstSeq > verification.lowestSequence) {
      return { kind: "error", errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER };
    }
    if (entry === undefined) return APPEND;
    if (entry.producerEpoch !== NO_PRODUCER_EPOCH) {
      if (batch.producerEpoch !== entry.producerEpoch) {
        if (firstSeq !== 0) return { kind: "error", errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER };
      } else if (!inSequence(entry.lastSeq, firstSeq)) {
        return { kind: "error", errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER };
      }
    }
    if (entry.currentTxnFirstOffset !== null && !batch.isTransactional) return { kind: "error", errorCode: ErrorCode.INVALID_TXN_STATE };
    return APPEND;
  }

  /**
   * Checks a coordinator's transaction marker on the leader (Kafka 4.2's
   * `appendEndTxnMarker` checks): an epoch the marker may not carry is
   * INVALID_PRODUCER_EPOCH (see `isMarkerEpochValid`), an older coordinator
   * epoch TRANSACTION_COORDINATOR_FENCED. `transactionVersion` is the
   * marker's (WriteTxnMarkers v2, KIP-1228). Returns the error code (NONE
   * to append).
   */
  checkMarker(producerId: number, producerEpoch: number, coordinatorEpoch: number, transactionVersion: number): number {
    const entry = this.#producers.get(producerId);
    if (entry === undefined) return ErrorCode.NONE;
    if (!isMarkerEpochValid(entry, producerEpoch, transactionVersion)) return ErrorCode.INVALID_PRODUCER_EPOCH;
    if (entry.coordinatorEpoch > coordinatorEpoch) return ErrorCode.TRANSACTION_COORDINATOR_FENCED;
    return ErrorCode.NONE;
  }

  /** Records an appended batch (offsets assigned). Returns the transaction a marker completed, if it had data here. */
  apply(batch: RecordBatch): CompletedTxn | undefined {
    if (batch.producerId === NO_PRODUCER_ID) return undefined;
    // A data batch of the transaction or its marker: the verification is over either way, but for the next
    // transaction's verification under transaction version 2, at the epoch of the marker that ends the previous one.
    if ((batch.isTransactional || batch.isControl) && !this.#isNextTransactionVerification(batch)) {
      this.#verifications.delete(batch.producerId);
    }
    let entry = this.#producers.get(batch.producerId);
    if (entry === undefined) {
      entry = new ProducerStateEntry(batch.producerId);
      this.#producers.set(batch.producerId, entry);
    }
    if (batch.isControl) {
      const marker = endTransactionMarkerOf(batch);
      // An empty control batch: its transaction was cleaned from the log.
      if (marker === undefined) return undefined;
      const firstOffset = entry.currentTxnFirstOffset;
      entry.maybeUpdateProducerEpoch(batch.producerEpoch);
      entry.coordinatorEpoch = marker.coordinatorEpoch;
      entry.currentTxnFirstOffset = null;
      // A marker without data here changes neither the last stable offset nor the index.
      if (firstOffset === null) return undefined;
      const completed: CompletedTxn = {
        producerId: batch.producerId,
        firstOffset,
        lastOffset: batch.baseOffset,
        isAborted: marker.controlType === ControlRecordType.ABORT,
      };
      this.#ongoing.delete(firstOffset);
      this.#unreplicated.push(completed);
      if (completed.isAborted) this.#index.append(completed);
      return completed;
    }
    const lastOffset = batch.baseOffset + batch.lastOffsetDelta;
    entry.addBatch(batch.producerEpoch, {
      firstSeq: batch.baseSequence,
      lastSeq: lastSequenceOf(batch),
      firstOffset: batch.baseOffset,
      lastOffset,
    });
    if (batch.isTransactional && entry.currentTxnFirstOffset === null) {
      entry.currentTxnFirstOffset = batch.baseOffset;
      this.#ongoing.set(batch.baseOffset, batch.producerId);
    }
    return undefined;
  }

  /**
   * Whether `batch` is a marker at the epoch of a transaction version 2
   * verification: the verification is then the next transaction's, started
   * before the marker that ends the previous one arrived (Kafka's
   * `UnifiedLog.updateProducers`, `isV2NextTransactionStarted`).
   */
  #isNextTransactionVerification(batch: RecordBatch): boolean {
    const verification = this.#verifications.get(batch.producerId);
    return batch.isControl && verification?.supportsEpochBump === true && verification.epoch === batch.producerEpoch;
  }

  /** The first offset of the oldest transaction that is open, or completed with its marker not yet below the high watermark. */
  firstUnstableOffset(): number | undefined {
    // Asked by every read (the last stable offset): with no transaction in sight, no iterator is made.
    if (this.#ongoing.size === 0 && this.#unreplicated.length === 0) return undefined;
    let first: number | undefined;
    for (const offset of this.#ongoing.keys()) if (first === undefined || offset < first) first = offset;
    for (const txn of this.#unreplicated) if (first === undefined || txn.firstOffset < first) first = txn.firstOffset;
    return first;
  }

  /** The open transactions' first offsets, by producer id. */
  ongoingTransactions(): { producerId: number; firstOffset: number }[] {
    return [...this.#ongoing]
      .map(([firstOffset, producerId]) => ({ producerId, firstOffset }))
      .sort((a, b) => a.firstOffset - b.firstOffset);
  }

  /** The high watermark reached `offset`: completed transactions whose marker is below it are stable. */
  onHighWatermarkUpdated(offset: number): void {
    if (this.#unreplicated.length > 0 && this.#unreplicated.some((txn) => txn.lastOffset < offset))
      this.#unreplicated = this.#unreplicated.filter((txn) => txn.lastOffset >= offset);
  }

  /** The log start moved (Kafka's `onLogStartOffsetIncremented`): aborted transactions wholly below it are gone from the index. */
  onLogStartOffsetIncremented(offset: number): void {
    this.onHighWatermarkUpdated(offset);
    this.#index.truncateHead(offset);
  }

  /** Aborted transactions with data in [fetchOffset, upperBoundOffset). */
  collectAbortedTransactions(fetchOffset: number, upperBoundOffset: number): AbortedTransaction[] {
    return this.#index.collect(fetchOffset, upperBoundOffset);
  }

  clone(): ProducerStateManager {
    const copy = new ProducerStateManager();
    copy.#producers = new Map([...this.#producers].map(([id, entry]) => [id, entry.clone()]));
    copy.#ongoing = new Map(this.#ongoing);
    copy.#unreplicated = [...this.#unreplicated];
    copy.#index = this.#index.clone();
    copy.#verifications = new Map([...this.#verifications].map(([id, state]) => [id, { ...state }]));
    copy.#lastGuard = this.#lastGuard;
    return copy;
  }
}

/**
 * Kafka 4.2's `ProducerAppendInfo.checkProducerEpoch` for a marker on the
 * leader: a marker of transaction version 2 carries an epoch above the
 * producer's (the coordinator bumped it to end the transaction, KIP-1228),
 * or an equal one when the producer has no transaction open here: a
 * retried marker of a transaction already ended, written again
 * (KAFKA-19999: after a coordinator reload or a lost answer). Earlier
 * markers carry the transaction's own epoch: any not below the producer's.
 */
function isMarkerEpochValid(entry: ProducerStateEntry, producerEpoch: number, transactionVersion: number): boolean {
  if (transactionVersion < 2) return producerEpoch >= entry.producerEpoch;
  return producerEpoch > entry.producerEpoch || (producerEpoch === entry.producerEpoch && entry.currentTxnFirstOffset === null);
}
