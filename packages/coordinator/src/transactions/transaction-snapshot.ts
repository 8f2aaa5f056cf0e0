import type { JsonValue } from "@kcsim/protocol";
import type { ProducerIdManager } from "./producer-id-manager.js";
import type { TransactionStateManager } from "./transaction-state-manager.js";
import type { TxnMarkerChannel } from "./txn-marker-channel.js";

/** The transaction coordinator's state as JSON (Actor.snapshot): transactional ids, markers in progress, leaders known. */
export function transactionCoordinatorSnapshot(
  txnManager: TransactionStateManager,
  markers: TxnMarkerChannel,
  producerIds: ProducerIdManager,
): JsonValue {
  return {
    loading: txnManager.loading,
    coordinatorEpoch: txnManager.coordinatorEpoch,
    nextProducerId: producerIds.nextProducerId,
    transactions: [...txnManager.transactions()].map((txn) => ({
      transactionalId: txn.transactionalId,
      producerId: txn.producerId,
      lastProducerId: txn.lastProducerId,
      nextProducerId: txn.nextProducerId,
      producerEpoch: txn.producerEpoch,
      lastProducerEpoch: txn.lastProducerEpoch,
      clientTransactionVersion: txn.clientTransactionVersion,
      state: txn.state,
      pendingState: txn.pendingState,
      partitions: txn.partitions(),
      txnTimeoutMs: txn.txnTimeoutMs,
      txnStartTimestamp: txn.txnStartTimestamp,
      txnLastUpdateTimestamp: txn.txnLastUpdateTimestamp,
    })),
    markers: markers.describe(),
    leaders: Object.fromEntries(markers.knownLeaders()),
  };
}
