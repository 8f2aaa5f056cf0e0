/**
 * Levels of the `transaction.version` feature (Kafka's `TransactionVersion`,
 * server-common/.../TransactionVersion.java):
 * - 0: transactions as before KIP-890 part 2;
 * - 1: the same, with flexible `__transaction_state` records;
 * - 2: KIP-890 part 2: the coordinator bumps the producer epoch when it ends
 *   each transaction, and the leaders add partitions to transactions
 *   themselves.
 * A transaction keeps the version of the request that last changed it (its
 * `clientTransactionVersion`); the cluster's finalized level is the one the
 * coordinator uses for the aborts it starts itself.
 */
export type TransactionVersion = 0 | 1 | 2;

/** The highest level modelled (Kafka 4.x's `LATEST_PRODUCTION`). */
export const LATEST_TRANSACTION_VERSION: TransactionVersion = 2;

/** `TransactionVersion.supportsEpochBump`: an epoch bump per ended transaction. */
export function supportsEpochBump(version: TransactionVersion): boolean {
  return version >= 2;
}

/** `TransactionVersion.transactionVersionForEndTxn`: a client that sends EndTxn v5 or later runs transaction version 2. */
export function transactionVersionForEndTxn(apiVersion: number): TransactionVersion {
  return apiVersion > 4 ? 2 : 0;
}

/** `TransactionVersion.transactionVersionForAddPartitionsToTxn`: a broker's add (v4 or later) is transaction version 2. */
export function transactionVersionForAddPartitionsToTxn(apiVersion: number): TransactionVersion {
  return apiVersion > 3 ? 2 : 0;
}

/**
 * `TransactionVersion.transactionLogValueVersion`: below level 1 the
 * coordinator writes TransactionLogValue v0, which has no tagged fields
 * (ClientTransactionVersion among them).
 */
export function transactionLogValueVersion(clusterVersion: TransactionVersion): 0 | 1 {
  return clusterVersion >= 1 ? 1 : 0;
}

/** A stored or configured level, checked. */
export function isTransactionVersion(value: unknown): value is TransactionVersion {
  return value === 0 || value === 1 || value === 2;
}
