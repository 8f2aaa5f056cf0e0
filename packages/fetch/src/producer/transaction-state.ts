/** The transaction manager's states (Kafka's `TransactionManager.State`). */
export type TransactionState =
  | "UNINITIALIZED"
  | "INITIALIZING"
  | "READY"
  | "IN_TRANSACTION"
  | "COMMITTING_TRANSACTION"
  | "ABORTING_TRANSACTION"
  | "ABORTABLE_ERROR"
  | "FATAL_ERROR";

/** Kafka's `State.isTransitionValid`: the states each state may be entered from (FATAL_ERROR from any). */
const VALID_SOURCES: Readonly<Record<TransactionState, readonly TransactionState[] | "any">> = {
  UNINITIALIZED: ["READY"],
  INITIALIZING: ["UNINITIALIZED", "ABORTING_TRANSACTION"],
  READY: ["INITIALIZING", "COMMITTING_TRANSACTION", "ABORTING_TRANSACTION"],
  IN_TRANSACTION: ["READY"],
  COMMITTING_TRANSACTION: ["IN_TRANSACTION"],
  ABORTING_TRANSACTION: ["IN_TRANSACTION", "ABORTABLE_ERROR"],
  ABORTABLE_ERROR: ["IN_TRANSACTION", "COMMITTING_TRANSACTION", "ABORTABLE_ERROR"],
  FATAL_ERROR: "any",
};

export function isTransitionValid(source: TransactionState, target: TransactionState): boolean {
  const sources = VALID_SOURCES[target];
  return sources === "any" || sources.includes(source);
}

/** A transactional method called in a state that does not allow it (Kafka's IllegalStateException / KafkaException). */
export class IllegalTransactionStateError extends Error {
  override readonly name = "IllegalTransactionStateError";
}
