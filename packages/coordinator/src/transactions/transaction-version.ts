import type { TransactionVersion } from "@kcsim/protocol";

/**
 * The coordinators' reading of a request's version as a transaction version
 * (the levels: protocol's `TransactionVersion`). A transaction keeps the
 * version of the request that last changed it (its
 * `clientTransactionVersion`); the cluster's finalized level is the one the
 * coordinator uses for the aborts it starts itself.
 */

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
