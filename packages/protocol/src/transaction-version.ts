/**
 * Levels of Kafka's `transaction.version` feature (Kafka's
 * `TransactionVersion`, server-common/.../TransactionVersion.java), shared
 * by the producer, the consumer's transactional output and the
 * coordinators:
 * - 0: transactions as before KIP-890 part 2 (a cluster upgraded from
 *   Kafka 3.x, and kcsim's default);
 * - 1: the same, with flexible `__transaction_state` records;
 * - 2: KIP-890 part 2: the coordinator bumps the producer epoch when it ends
 *   each transaction, and the leaders add partitions to transactions
 *   themselves.
 * Clients read the cluster's finalized level (ApiVersions).
 */
export type TransactionVersion = 0 | 1 | 2;

export const MIN_TRANSACTION_VERSION: TransactionVersion = 0;
export const MAX_TRANSACTION_VERSION: TransactionVersion = 2;
export const DEFAULT_TRANSACTION_VERSION: TransactionVersion = 0;

/** Whether `value` is a level kcsim models (an integer from 0 to 2). */
export function isTransactionVersion(value: unknown): value is TransactionVersion {
  return value === 0 || value === 1 || value === 2;
}

/** `TransactionVersion.supportsEpochBump`: an epoch bump per ended transaction (transaction version 2). */
export function supportsEpochBump(version: number): boolean {
  return version >= 2;
}
