import type { TransactionVersion } from "@kcsim/protocol";
import { type Context, ErrorCode, type TransactionPlacement } from "@kcsim/protocol";
import type { TransactionStateName } from "../observations.js";
import {
  partitionsOf,
  type TransactionCoordinatorRecord,
  transactionLogRecord,
  transactionLogTombstone,
} from "./transaction-log-records.js";
import { NO_PRODUCER_ID, TransactionMetadata, type TxnTransitMetadata } from "./transaction-metadata.js";
import { transactionStateObservation } from "./transaction-observations.js";
import { isExpirationAllowed } from "./transaction-state.js";

/** A transactional id's metadata (undefined: none yet), or why it cannot be served here. */
export type TransactionLookup = { readonly errorCode: number } | { readonly metadata: TransactionMetadata | undefined };

/**
 * The transactional ids this coordinator owns and their `__transaction_state`
 * log (Kafka's `TransactionStateManager`, one cache for all the partitions
 * the actor leads). The log is ctx.storage; an append is durable at once
 * (the simulated log has no replication to wait for), so a transition
 * prepared, appended and completed happens within one event. Every
 * completed transition is reported as txn.state.
 */
export class TransactionStateManager {
  readonly #transactions = new Map<string, TransactionMetadata>();
  /** One more per start; carried by WriteTxnMarkers. */
  coordinatorEpoch = -1;
  loading = true;

  /** `clusterTransactionVersion`: the cluster's finalized transaction.version, which decides the records' value version. */
  constructor(
    readonly selfId: string,
    readonly placement: TransactionPlacement,
    readonly clusterTransactionVersion: TransactionVersion,
  ) {}

  /**
   * Kafka's `getTransactionState`: NOT_COORDINATOR for an id another
   * coordinator owns, COORDINATOR_LOAD_IN_PROGRESS while loading, else the
   * metadata (undefined for an unknown id).
   */
  getTransactionState(transactionalId: string): TransactionLookup {
    if (this.placement.ownerOf(transactionalId) !== this.selfId) return { errorCode: ErrorCode.NOT_COORDINATOR };
    if (this.loading) return { errorCode: ErrorCode.COORDINATOR_LOAD_IN_PROGRESS };
    return { metadata: this.#transactions.get(transactionalId) };
  }

  /** Caches a new id's metadata (not written until its first transition completes). */
  putTransactionState(metadata: TransactionMetadata): void {
    this.#transactions.set(metadata.transactionalId, metadata);
  }

  /** Every transactional id held, in the order they became known. */
  transactions(): IterableIterator<TransactionMetadata> {
    return this.#transactions.values();
  }

  get size(): number {
    return this.#transactions.size;
  }

  /** Rebuilds the cache from the log: the last value of each id; a tombstone removes it. */
  load(records: readonly TransactionCoordinatorRecord[]): void {
    this.#transactions.clear();
    for (const record of records) {
      if (record.type === "kcsim.TxnCoordinatorEpoch") this.coordinatorEpoch = Math.max(this.coordinatorEpoch, record.coordinatorEpoch);
      if (record.type !== "TransactionLog") continue;
      const { transactionalId } = record.key;
      const value = record.value;
      if (value === null) {
        this.#transactions.delete(transactionalId);
        continue;
      }
      this.#transactions.set(
        transactionalId,
        new TransactionMetadata(transactionalId, {
          producerId: value.producerId,
          lastProducerId: value.previousProducerId,
          nextProducerId: NO_PRODUCER_ID,
          producerEpoch: value.producerEpoch,
          lastProducerEpoch: value.lastProducerEpoch,
          txnTimeoutMs: value.transactionTimeoutMs,
          state: value.transactionStatus,
          topicPartitions: partitionsOf(value),
          txnStartTimestamp: value.transactionStartTimestampMs,
          txnLastUpdateTimestamp: value.transactionLastUpdateTimestampMs,
          clientTransactionVersion: value.clientTransactionVersion ?? 0,
        }),
      );
    }
  }

  /**
   * Kafka's `appendTransactionToLog` followed by the cache update: writes the
   * transit durably, completes the transition and reports it (`from`
   * overrides the reported previous state: an epoch fence goes Ongoing ->
   * PrepareEpochFence -> PrepareAbort).
   */
  appendTransactionToLog(ctx: Context, metadata: TransactionMetadata, transit: TxnTransitMetadata, from?: TransactionStateName): void {
    const previous = from ?? metadata.state;
    ctx.storage.append(transactionLogRecord(metadata.transactionalId, transit, this.clusterTransactionVersion));
    metadata.completeTransitionTo(transit);
    ctx.observe(
      transactionStateObservation(
        metadata.transactionalId,
        metadata.producerId,
        metadata.producerEpoch,
        previous,
        metadata.state,
        metadata.partitions(),
      ),
    );
  }

  /**
   * Ongoing transactions past their timeout with no transition pending
   * (`timedOutTransactions`): started more than txnTimeoutMs ago.
   */
  timedOutTransactions(nowMs: number): TransactionMetadata[] {
    return [...this.#transactions.values()].filter(
      (txn) => !txn.pendingTransitionInProgress && txn.state === "Ongoing" && txn.txnStartTimestamp + txn.txnTimeoutMs < nowMs,
    );
  }

  /**
   * Kafka's transactional id expiration: ids with no transaction open
   * (Empty, CompleteCommit, CompleteAbort) and no update for
   * transactional.id.expiration.ms get a tombstone and are forgotten
   * (reported as a transition to Dead).
   */
  expireTransactionalIds(ctx: Context, nowMs: number, expirationMs: number): void {
    for (const txn of [...this.#transactions.values()]) {
      if (txn.pendingTransitionInProgress || !isExpirationAllowed(txn.state) || txn.txnLastUpdateTimestamp > nowMs - expirationMs) continue;
      const transit = txn.prepareDead();
      ctx.storage.append(transactionLogTombstone(txn.transactionalId));
      this.#transactions.delete(txn.transactionalId);
      ctx.observe(transactionStateObservation(txn.transactionalId, transit.producerId, transit.producerEpoch, txn.state, "Dead", []));
    }
  }
}
