import { ErrorCode } from "@kcsim/protocol";
import type { TransactionStateName } from "../observations.js";
import { IllegalStateError } from "../runtime/coordinator-error.js";
import { VALID_PREVIOUS_STATES } from "./transaction-state.js";

/** Kafka's `RecordBatch.NO_PRODUCER_ID` / `NO_PRODUCER_EPOCH`. */
export const NO_PRODUCER_ID = -1;
export const NO_PRODUCER_EPOCH = -1;

/** Java's `Short.MAX_VALUE`: producer epochs are int16. */
const SHORT_MAX_VALUE = 32767;

/**
 * `TransactionMetadata.isEpochExhausted`: the last epochs are kept back so
 * that the coordinator can always fence (bump) once more.
 */
export function isEpochExhausted(producerEpoch: number): boolean {
  return producerEpoch >= SHORT_MAX_VALUE - 1;
}

/**
 * Kafka's `TxnTransitMetadata`: the state a transactional id is about to
 * move to, written to `__transaction_state` before it takes effect.
 * Partitions are `topic-partition` keys (tpKey), sorted.
 */
export interface TxnTransitMetadata {
  readonly producerId: number;
  readonly lastProducerId: number;
  readonly producerEpoch: number;
  readonly lastProducerEpoch: number;
  readonly txnTimeoutMs: number;
  readonly txnState: TransactionStateName;
  readonly topicPartitions: readonly string[];
  /** Milliseconds; -1 when no transaction is open. */
  readonly txnStartTimestamp: number;
  /** Milliseconds. */
  readonly txnLastUpdateTimestamp: number;
}

/** A prepared transition, or the error that stops it. */
export type PreparedTransition = { readonly transit: TxnTransitMetadata } | { readonly errorCode: number };

/** What a TransactionMetadata starts from (a new id, or a loaded record). */
export interface TransactionMetadataInit {
  readonly producerId: number;
  readonly lastProducerId: number;
  readonly producerEpoch: number;
  readonly lastProducerEpoch: number;
  readonly txnTimeoutMs: number;
  readonly state: TransactionStateName;
  readonly topicPartitions: Iterable<string>;
  readonly txnStartTimestamp: number;
  readonly txnLastUpdateTimestamp: number;
}

function sorted(partitions: Iterable<string>): string[] {
  return [...new Set(partitions)].sort();
}

/**
 * One transactional id's state (Kafka's `TransactionMetadata`). A change
 * is prepared (`prepare*`, which sets `pendingState` and returns the
 * transit), written to the log, then applied (`completeTransitionTo`).
 * While a transition is pending, other requests get CONCURRENT_TRANSACTIONS.
 * Appends to the simulated log never fail, so Kafka's
 * `hasFailedEpochFence` is not needed.
 */
export class TransactionMetadata {
  producerId: number;
  lastProducerId: number;
  producerEpoch: number;
  lastProducerEpoch: number;
  txnTimeoutMs: number;
  state: TransactionStateName;
  readonly topicPartitions: Set<string>;
  txnStartTimestamp: number;
  txnLastUpdateTimestamp: number;
  /** The state a prepared transition leads to, until it completes. */
  pendingState: TransactionStateName | null = null;

  constructor(
    readonly transactionalId: string,
    init: TransactionMetadataInit,
  ) {
    this.producerId = init.producerId;
    this.lastProducerId = init.lastProducerId;
    this.producerEpoch = init.producerEpoch;
    this.lastProducerEpoch = init.lastProducerEpoch;
    this.txnTimeoutMs = init.txnTimeoutMs;
    this.state = init.state;
    this.topicPartitions = new Set(init.topicPartitions);
    this.txnStartTimestamp = init.txnStartTimestamp;
    this.txnLastUpdateTimestamp = init.txnLastUpdateTimestamp;
  }

  get pendingTransitionInProgress(): boolean {
    return this.pendingState !== null;
  }

  get isProducerEpochExhausted(): boolean {
    return isEpochExhausted(this.producerEpoch);
  }

  /** Ongoing, PrepareCommit or PrepareAbort. */
  get hasPendingTransaction(): boolean {
    return this.state === "Ongoing" || this.state === "PrepareAbort" || this.state === "PrepareCommit";
  }

  /** The transaction's partitions, sorted. */
  partitions(): string[] {
    return sorted(this.topicPartitions);
  }

  /** A marker was written: the partition is done (only while preparing to commit or abort). */
  removePartition(topicPartition: string): void {
    if (this.state !== "PrepareCommit" && this.state !== "PrepareAbort") {
      throw new IllegalStateError(
        `Transaction metadata's current state is ${this.state}, and its pending state is ${this.pendingState} while trying to remove partitions whose txn marker has been sent, this is not expected`,
      );
    }
    this.topicPartitions.delete(topicPartition);
  }

  /** Bumps the epoch (pending PrepareEpochFence) to fence the producer before aborting its ongoing transaction. */
  prepareFenceProducerEpoch(): TxnTransitMetadata {
    if (this.producerEpoch === SHORT_MAX_VALUE) {
      throw new IllegalStateError("Cannot fence producer with epoch equal to Short.MaxValue since this would overflow");
    }
    return this.#prepareTransitionTo(
      "PrepareEpochFence",
      this.producerId,
      this.producerEpoch + 1,
      NO_PRODUCER_EPOCH,
      this.txnTimeoutMs,
      this.partitions(),
      this.txnStartTimestamp,
      this.txnLastUpdateTimestamp,
    );
  }

  /**
   * InitProducerId's epoch bump (KIP-360): without an expected epoch, bump
   * and forget the last epoch; with one equal to the current epoch (or no
   * epoch yet), bump and remember it; equal to the last epoch: a retry,
   * keep the epochs; anything else: PRODUCER_FENCED.
   */
  prepareIncrementProducerEpoch(newTxnTimeoutMs: number, expectedProducerEpoch: number | null, nowMs: number): PreparedTransition {
    if (this.isProducerEpochExhausted) {
      throw new IllegalStateError(`Cannot allocate any more producer epochs for producerId ${this.producerId}`);
    }
    const bumpedEpoch = this.producerEpoch + 1;
    let next: readonly [number, number];
    if (expectedProducerEpoch === null) next = [bumpedEpoch, NO_PRODUCER_EPOCH];
    else if (this.producerEpoch === NO_PRODUCER_EPOCH || expectedProducerEpoch === this.producerEpoch)
      next = [bumpedEpoch, this.producerEpoch];
    else if (expectedProducerEpoch === this.lastProducerEpoch) next = [this.producerEpoch, this.lastProducerEpoch];
    else return { errorCode: ErrorCode.PRODUCER_FENCED };
    return {
      transit: this.#prepareTransitionTo("Empty", this.producerId, next[0], next[1], newTxnTimeoutMs, [], -1, nowMs),
    };
  }

  /** A new producer id at epoch 0 (the epochs of the old one are exhausted). */
  prepareProducerIdRotation(newProducerId: number, newTxnTimeoutMs: number, nowMs: number, recordLastEpoch: boolean): TxnTransitMetadata {
    if (this.hasPendingTransaction) throw new IllegalStateError("Cannot rotate producer ids while a transaction is still pending");
    return this.#prepareTransitionTo(
      "Empty",
      newProducerId,
      0,
      recordLastEpoch ? this.producerEpoch : NO_PRODUCER_EPOCH,
      newTxnTimeoutMs,
      [],
      -1,
      nowMs,
    );
  }

  /** AddPartitionsToTxn / AddOffsetsToTxn: Ongoing with more partitions; a new transaction starts its clock now. */
  prepareAddPartitions(added: Iterable<string>, nowMs: number): TxnTransitMetadata {
    const newTxnStartTimestamp =
      this.state === "Empty" || this.state === "CompleteAbort" || this.state === "CompleteCommit" ? nowMs : this.txnStartTimestamp;
    return this.#prepareTransitionTo(
      "Ongoing",
      this.producerId,
      this.producerEpoch,
      this.lastProducerEpoch,
      this.txnTimeoutMs,
      sorted([...this.topicPartitions, ...added]),
      newTxnStartTimestamp,
      nowMs,
    );
  }

  /** EndTxn: PrepareCommit or PrepareAbort with the transaction's partitions. */
  prepareAbortOrCommit(newState: "PrepareCommit" | "PrepareAbort", nowMs: number): TxnTransitMetadata {
    return this.#prepareTransitionTo(
      newState,
      this.producerId,
      this.producerEpoch,
      this.lastProducerEpoch,
      this.txnTimeoutMs,
      this.partitions(),
      this.txnStartTimestamp,
      nowMs,
    );
  }

  /** Every marker is written: CompleteCommit or CompleteAbort, without partitions. */
  prepareComplete(nowMs: number): TxnTransitMetadata {
    const newState = this.state === "PrepareCommit" ? "CompleteCommit" : "CompleteAbort";
    return this.#prepareTransitionTo(
      newState,
      this.producerId,
      this.producerEpoch,
      this.lastProducerEpoch,
      this.txnTimeoutMs,
      [],
      this.txnStartTimestamp,
      nowMs,
    );
  }

  /** transactional.id.expiration.ms passed: the id is about to be removed. */
  prepareDead(): TxnTransitMetadata {
    return this.#prepareTransitionTo(
      "Dead",
      this.producerId,
      this.producerEpoch,
      this.lastProducerEpoch,
      this.txnTimeoutMs,
      [],
      this.txnStartTimestamp,
      this.txnLastUpdateTimestamp,
    );
  }

  /**
   * Applies a transition once its record is written (Kafka's
   * `completeTransitionTo`, with its sanity checks: a broken one is a bug).
   */
  completeTransitionTo(transit: TxnTransitMetadata): void {
    const toState = this.pendingState;
    if (toState === null) {
      throw new IllegalStateError(
        `TransactionalId ${this.transactionalId} completing transaction state transition while it does not have a pending state`,
      );
    }
    const fail = (): never => {
      throw new IllegalStateError(
        `TransactionalId ${this.transactionalId} failed transition to state ${JSON.stringify(transit)} due to unexpected metadata`,
      );
    };
    if (toState !== transit.txnState) fail();
    const sameProducer = transit.producerEpoch === this.producerEpoch && transit.producerId === this.producerId;
    switch (toState) {
      case "Empty": {
        const validBump =
          transit.producerEpoch === this.producerEpoch + 1 || (transit.producerEpoch === 0 && transit.producerId !== this.producerId);
        if (
          (this.producerEpoch !== transit.producerEpoch && !validBump) ||
          transit.topicPartitions.length > 0 ||
          transit.txnStartTimestamp !== -1
        ) {
          fail();
        }
        this.txnTimeoutMs = transit.txnTimeoutMs;
        this.producerEpoch = transit.producerEpoch;
        this.lastProducerEpoch = transit.lastProducerEpoch;
        this.producerId = transit.producerId;
        this.lastProducerId = transit.lastProducerId;
        break;
      }
      case "Ongoing":
        if (
          !sameProducer ||
          [...this.topicPartitions].some((tp) => !transit.topicPartitions.includes(tp)) ||
          this.txnTimeoutMs !== transit.txnTimeoutMs
        ) {
          fail();
        }
        this.txnStartTimestamp = transit.txnStartTimestamp;
        for (const tp of transit.topicPartitions) this.topicPartitions.add(tp);
        break;
      case "PrepareAbort":
      case "PrepareCommit":
        if (
          !sameProducer ||
          sorted(this.topicPartitions).join("\n") !== transit.topicPartitions.join("\n") ||
          this.txnTimeoutMs !== transit.txnTimeoutMs ||
          this.txnStartTimestamp !== transit.txnStartTimestamp
        ) {
          fail();
        }
        break;
      case "CompleteAbort":
      case "CompleteCommit":
        if (!sameProducer || this.txnTimeoutMs !== transit.txnTimeoutMs || transit.txnStartTimestamp === -1) fail();
        this.txnStartTimestamp = transit.txnStartTimestamp;
        this.topicPartitions.clear();
        break;
      case "PrepareEpochFence":
      case "Dead":
        // Never completed: a fence goes on to PrepareAbort, an expired id is removed.
        fail();
    }
    this.txnLastUpdateTimestamp = transit.txnLastUpdateTimestamp;
    this.pendingState = null;
    this.state = toState;
  }

  #prepareTransitionTo(
    newState: TransactionStateName,
    newProducerId: number,
    newEpoch: number,
    newLastEpoch: number,
    newTxnTimeoutMs: number,
    newTopicPartitions: readonly string[],
    newTxnStartTimestamp: number,
    updateTimestamp: number,
  ): TxnTransitMetadata {
    if (this.pendingState !== null) {
      throw new IllegalStateError(
        `Preparing transaction state transition to ${newState} while it already a pending state ${this.pendingState}`,
      );
    }
    if (newProducerId < 0) throw new IllegalStateError(`Illegal new producer id ${newProducerId}`);
    if (newState !== "Dead" && newEpoch < 0) throw new IllegalStateError(`Illegal new producer epoch ${newEpoch}`);
    if (!VALID_PREVIOUS_STATES[newState].includes(this.state)) {
      throw new IllegalStateError(
        `Preparing transaction state transition to ${newState} failed since the target state ${newState} is not a valid previous state of the current state ${this.state}`,
      );
    }
    this.pendingState = newState;
    return {
      producerId: newProducerId,
      lastProducerId: this.producerId,
      producerEpoch: newEpoch,
      lastProducerEpoch: newLastEpoch,
      txnTimeoutMs: newTxnTimeoutMs,
      txnState: newState,
      topicPartitions: newTopicPartitions,
      txnStartTimestamp: newTxnStartTimestamp,
      txnLastUpdateTimestamp: updateTimestamp,
    };
  }
}
