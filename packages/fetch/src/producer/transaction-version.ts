/**
 * The levels of Kafka's `transaction.version` feature kcsim models (Kafka's
 * `TransactionVersion`): 0 and 1 run transactions as before KIP-890 part 2
 * (kcsim tells them apart nowhere), 2 runs them by KIP-890 part 2
 * (transaction version 2: partitions added by their leaders, the epoch
 * bumped at every transaction's end). A client reads the cluster's
 * finalized level; 0 when unset, as on a cluster upgraded from Kafka 3.x.
 */
export const MIN_TRANSACTION_VERSION = 0;
export const MAX_TRANSACTION_VERSION = 2;
export const DEFAULT_TRANSACTION_VERSION = 0;

/** Whether `value` is a transaction.version level kcsim models (an integer from 0 to 2). */
export function isTransactionVersion(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= MIN_TRANSACTION_VERSION && value <= MAX_TRANSACTION_VERSION;
}
