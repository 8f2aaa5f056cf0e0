import { ErrorCode, supportsEpochBump, type TransactionVersion } from "@kcsim/protocol";
import type { TransactionStateName } from "../observations.js";
import { IllegalStateError } from "../runtime/coordinator-error.js";
import { VALID_PREVIOUS_STATES } from "./transaction-state.js";

/** Kafka's `RecordBatch.NO_PRODUCER_ID` / `NO_PRODUCER_EPOCH`. */
export const NO_PRODUCER_ID = -1;
export const NO_PRODUCER_EPOCH = -1;

/** Java's `Short.MAX_VALUE`: producer epochs are int16. */
export const SHORT_MAX_VALUE = 32767;

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
  /** Kafka's `prevProducerId`: the producer id before this transition. */
  readonly lastProducerId: number;
  /**
   * The producer id a transaction version 2 PrepareCommit/PrepareAbort has
   * already handed the client because the epochs of the current one ran
   * out: the completion switches to it (at epoch 0). -1 otherwise.
   */
  readonly nextProducerId: number;
  readonly producerEpoch: number;
  readonly lastProducerEpoch: number;
  readonly txnTimeoutMs: number;
  readonly txnState: TransactionStateName;
  readonly topicPartitions: readonly string[];
  /** Milliseconds; -1 when no transaction is open. */
  readonly txnStartTimestamp: number;
  /** Milliseconds. */
  readonly txnLastUpdateTimestamp: number;
  /** The transaction version of the request behind the transition. */
  readonly clientTransactionVersion: TransactionVersion;
}

/** A prepared transition, or the error that stops it. */
export type PreparedTransition = { readonly transit: TxnTransitMetadata } | { readonly errorCode: number };

/** What a TransactionMetadata starts from (a new id, or a loaded record). */
export interface TransactionMetadataInit {
  readonly producerId: number;
  readonly lastProducerId: number;
  readonly nextProducerId: number;
  readonly producerEpoch: number;
  readonly lastProducerEpoch: number;
  readonly txnTimeoutMs: number;
  readonly state: TransactionStateName;
  readonly topicPartitions: Iterable<string>;
  readonly txnStartTimestamp: number;
  readonly txnLastUpdateTimestamp: number;
  readonly clientTransactionVersion: TransactionVersion;
}

/** What a transition changes (Kafka's `TransitionData`): every field left out keeps its current value. */
type TransitionChanges = Partial<Omit<TxnTransitMetadata, "txnState" | "lastProducerId">>;

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
  /** See TxnTransitMetadata.nextProducerId. */
  nextProducerId: number;
  producerEpoch: number;
  lastProducerEpoch: number;
  txnTimeoutMs: number;
  state: TransactionStateName;
  readonly topicPartitions: Set<string>;
  txnStartTimestamp: number;
  txnLastUpdateTimestamp: number;
  /** The transaction version of the request that last changed the id (2: its markers carry 2, its completion may switch producer id). */
  clientTransactionVersion: TransactionVersion;
  /** The state a prepared transition leads to, until it completes. */
  pendingState: TransactionStateName | null = null;

  constructor(
    readonly transactionalId: string,
    init: TransactionMetadataInit,
  ) {
    this.producerId = init.producerId;
    this.lastProducerId = init.lastProducerId;
    this.nextProducerId = init.nextProducerId;
    this.producerEpoch = init.producerEpoch;
    this.lastProducerEpoch = init.lastProducerEpoch;
    this.txnTimeoutMs = init.txnTimeoutMs;
    this.state = init.state;
    this.topicPartitions = new Set(init.topicPartitions);
    this.txnStartTimestamp = init.txnStartTimestamp;
    this.txnLastUpdateTimestamp = init.txnLastUpdateTimestamp;
    this.clientTransactionVersion = init.clientTransactionVersion;
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
    return this.#prepareTransitionTo("PrepareEpochFence", {
      producerEpoch: this.producerEpoch + 1,
      lastProducerEpoch: NO_PRODUCER_EPOCH,
    });
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
      transit: this.#prepareTransitionTo("Empty", {
        producerEpoch: next[0],
        lastProducerEpoch: next[1],
        txnTimeoutMs: newTxnTimeoutMs,
        topicPartitions: [],
        txnStartTimestamp: -1,
        txnLastUpdateTimestamp: nowMs,
      }),
    };
  }

  /** A new producer id at epoch 0 (the epochs of the old one are exhausted). */
  prepareProducerIdRotation(newProducerId: number, newTxnTimeoutMs: number, nowMs: number, recordLastEpoch: boolean): TxnTransitMetadata {
    if (this.hasPendingTransaction) throw new IllegalStateError("Cannot rotate producer ids while a transaction is still pending");
    return this.#prepareTransitionTo("Empty", {
      producerId: newProducerId,
      producerEpoch: 0,
      lastProducerEpoch: recordLastEpoch ? this.producerEpoch : NO_PRODUCER_EPOCH,
      txnTimeoutMs: newTxnTimeoutMs,
      topicPartitions: [],
      txnStartTimestamp: -1,
      txnLastUpdateTimestamp: nowMs,
    });
  }

  /**
   * AddPartitionsToTxn / AddOffsetsToTxn (transaction version 0) or a
   * leader's implicit add (2): Ongoing with more partitions; a new
   * transaction starts its clock now. Never bumps the epoch.
   */
  prepareAddPartitions(added: Iterable<string>, nowMs: number, clientTransactionVersion: TransactionVersion): TxnTransitMetadata {
    const newTxnStartTimestamp =
      this.state === "Empty" || this.state === "CompleteAbort" || this.state === "CompleteCommit" ? nowMs : this.txnStartTimestamp;
    return this.#prepareTransitionTo("Ongoing", {
      topicPartitions: sorted([...this.topicPartitions, ...added]),
      txnStartTimestamp: newTxnStartTimestamp,
      txnLastUpdateTimestamp: nowMs,
      clientTransactionVersion,
    });
  }

  /**
   * EndTxn (or an abort the coordinator starts): PrepareCommit or
   * PrepareAbort with the transaction's partitions. Under transaction
   * version 2 the epoch is bumped (epoch + 1, the last epoch the current
   * one), and `nextProducerId` (not -1 when the epochs ran out) is the
   * producer id the completion switches to. `noPartitionAdded`: version
   * 2's abort of no transaction (from Empty, CompleteCommit or
   * CompleteAbort), whose start is now.
   */
  prepareAbortOrCommit(
    newState: "PrepareCommit" | "PrepareAbort",
    clientTransactionVersion: TransactionVersion,
    nextProducerId: number,
    nowMs: number,
    noPartitionAdded: boolean,
  ): TxnTransitMetadata {
    const bump = supportsEpochBump(clientTransactionVersion);
    if (bump && this.producerEpoch === SHORT_MAX_VALUE) {
      // Kafka casts the bumped epoch to a short (-32768) and prepareTransitionTo refuses it.
      throw new IllegalStateError(`Illegal new producer epoch ${-SHORT_MAX_VALUE - 1}`);
    }
    return this.#prepareTransitionTo(newState, {
      producerEpoch: bump ? this.producerEpoch + 1 : this.producerEpoch,
      lastProducerEpoch: bump ? this.producerEpoch : this.lastProducerEpoch,
      txnStartTimestamp: noPartitionAdded ? nowMs : this.txnStartTimestamp,
      nextProducerId,
      txnLastUpdateTimestamp: nowMs,
      clientTransactionVersion,
    });
  }

  /**
   * Every marker is written: CompleteCommit or CompleteAbort, without
   * partitions. Under transaction version 2, when the epochs ran out
   * (`nextProducerId` set), the new producer id at epoch 0; the last epoch
   * stays the last one the client saw (32766).
   */
  prepareComplete(nowMs: number): TxnTransitMetadata {
    const newState = this.state === "PrepareCommit" ? "CompleteCommit" : "CompleteAbort";
    const switchProducerId = supportsEpochBump(this.clientTransactionVersion) && this.nextProducerId !== NO_PRODUCER_ID;
    return this.#prepareTransitionTo(newState, {
      producerId: switchProducerId ? this.nextProducerId : this.producerId,
      producerEpoch: switchProducerId ? 0 : this.producerEpoch,
      nextProducerId: NO_PRODUCER_ID,
      topicPartitions: [],
      txnLastUpdateTimestamp: nowMs,
    });
  }

  /** transactional.id.expiration.ms passed: the id is about to be removed. */
  prepareDead(): TxnTransitMetadata {
    return this.#prepareTransitionTo("Dead", { topicPartitions: [] });
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
          !this.#validProducerEpoch(transit) ||
          [...this.topicPartitions].some((tp) => !transit.topicPartitions.includes(tp)) ||
          this.txnTimeoutMs !== transit.txnTimeoutMs
        ) {
          fail();
        }
        this.txnStartTimestamp = transit.txnStartTimestamp;
        for (const tp of transit.topicPartitions) this.topicPartitions.add(tp);
        break;
      case "PrepareAbort":
      case "PrepareCommit": {
        // Transaction version 2 may abort without a transaction (from Empty or Complete*): its start is the abort's.
        const allowedEmptyAbort =
          toState === "PrepareAbort" &&
          supportsEpochBump(transit.clientTransactionVersion) &&
          (this.state === "Empty" || this.state === "CompleteCommit" || this.state === "CompleteAbort");
        if (
          !this.#validProducerEpoch(transit) ||
          sorted(this.topicPartitions).join("\n") !== transit.topicPartitions.join("\n") ||
          this.txnTimeoutMs !== transit.txnTimeoutMs ||
          (this.txnStartTimestamp !== transit.txnStartTimestamp && !allowedEmptyAbort)
        ) {
          fail();
        }
        // Unchanged before transaction version 2; version 2 bumps the epoch here.
        this.producerEpoch = transit.producerEpoch;
        this.lastProducerEpoch = transit.lastProducerEpoch;
        this.txnStartTimestamp = transit.txnStartTimestamp;
        break;
      }
      case "CompleteAbort":
      case "CompleteCommit":
        if (!this.#validProducerEpoch(transit) || this.txnTimeoutMs !== transit.txnTimeoutMs || transit.txnStartTimestamp === -1) fail();
        // A new producer id only when transaction version 2's epochs ran out.
        if (transit.producerId !== this.producerId) this.lastProducerId = transit.lastProducerId;
        this.producerId = transit.producerId;
        this.producerEpoch = transit.producerEpoch;
        this.lastProducerEpoch = transit.lastProducerEpoch;
        this.txnStartTimestamp = transit.txnStartTimestamp;
        this.topicPartitions.clear();
        break;
      case "PrepareEpochFence":
      case "Dead":
        // Never completed: a fence goes on to PrepareAbort, an expired id is removed.
        fail();
    }
    this.nextProducerId = transit.nextProducerId;
    this.clientTransactionVersion = transit.clientTransactionVersion;
    this.txnLastUpdateTimestamp = transit.txnLastUpdateTimestamp;
    this.pendingState = null;
    this.state = toState;
  }

  /**
   * Kafka's `validProducerEpoch`: the same producer id and epoch, except
   * under transaction version 2, where PrepareCommit/PrepareAbort bumps the
   * epoch (its last epoch is the current one) and a completion at epoch 0
   * switched to the next producer id (same last epoch, the current id as
   * the previous one).
   */
  #validProducerEpoch(transit: TxnTransitMetadata): boolean {
    const v2 = supportsEpochBump(transit.clientTransactionVersion);
    const completing = transit.txnState === "CompleteCommit" || transit.txnState === "CompleteAbort";
    if (v2 && completing && transit.producerEpoch === 0) {
      return transit.lastProducerEpoch === this.lastProducerEpoch && transit.lastProducerId === this.producerId;
    }
    if (v2 && (transit.txnState === "PrepareCommit" || transit.txnState === "PrepareAbort")) {
      return transit.lastProducerEpoch === this.producerEpoch && transit.producerId === this.producerId;
    }
    return transit.producerEpoch === this.producerEpoch && transit.producerId === this.producerId;
  }

  #prepareTransitionTo(newState: TransactionStateName, changes: TransitionChanges): TxnTransitMetadata {
    if (this.pendingState !== null) {
      throw new IllegalStateError(
        `Preparing transaction state transition to ${newState} while it already a pending state ${this.pendingState}`,
      );
    }
    const transit: TxnTransitMetadata = {
      producerId: changes.producerId ?? this.producerId,
      lastProducerId: this.producerId,
      nextProducerId: changes.nextProducerId ?? this.nextProducerId,
      producerEpoch: changes.producerEpoch ?? this.producerEpoch,
      lastProducerEpoch: changes.lastProducerEpoch ?? this.lastProducerEpoch,
      txnTimeoutMs: changes.txnTimeoutMs ?? this.txnTimeoutMs,
      txnState: newState,
      topicPartitions: changes.topicPartitions ?? this.partitions(),
      txnStartTimestamp: changes.txnStartTimestamp ?? this.txnStartTimestamp,
      txnLastUpdateTimestamp: changes.txnLastUpdateTimestamp ?? this.txnLastUpdateTimestamp,
      clientTransactionVersion: changes.clientTransactionVersion ?? this.clientTransactionVersion,
    };
    if (transit.producerId < 0) throw new IllegalStateError(`Illegal new producer id ${transit.producerId}`);
    if (newState !== "Dead" && transit.producerEpoch < 0)
      throw new IllegalStateError(`Illegal new producer epoch ${transit.producerEpoch}`);
    if (!VALID_PREVIOUS_STATES[newState].includes(this.state)) {
      throw new IllegalStateError(
        `Preparing transaction state transition to ${newState} failed since the target state ${newState} is not a valid previous state of the current state ${this.state}`,
      );
    }
    this.pendingState = newState;
    return transit;
  }
}
