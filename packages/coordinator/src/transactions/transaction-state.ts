import type { TransactionStateName } from "../observations.js";

/**
 * Kafka's `TransactionState` (transaction-coordinator/.../TransactionState.java in 4.x):
 * each state with the states it may be entered from.
 * - Empty: no transaction (after InitProducerId, or a completed one);
 * - Ongoing: partitions or offsets were added;
 * - PrepareCommit / PrepareAbort: EndTxn (or a timeout) decided; markers
 *   are being written (transaction version 2 may also abort when no
 *   transaction is open, from Empty or Complete*: an epoch bump alone);
 * - CompleteCommit / CompleteAbort: every marker was written;
 * - PrepareEpochFence: only ever a pending state: the epoch is bumped to
 *   fence the producer before its ongoing transaction is aborted;
 * - Dead: only ever a pending state: the id is being expired.
 */
export const VALID_PREVIOUS_STATES: { readonly [S in TransactionStateName]: readonly TransactionStateName[] } = {
  Empty: ["Empty", "CompleteCommit", "CompleteAbort"],
  Ongoing: ["Ongoing", "Empty", "CompleteCommit", "CompleteAbort"],
  PrepareCommit: ["Ongoing"],
  PrepareAbort: ["Ongoing", "PrepareEpochFence", "Empty", "CompleteCommit", "CompleteAbort"],
  CompleteCommit: ["PrepareCommit"],
  CompleteAbort: ["PrepareAbort"],
  Dead: ["Empty", "CompleteAbort", "CompleteCommit"],
  PrepareEpochFence: ["Ongoing"],
};

/** The states a transactional id may be expired from (transactional.id.expiration.ms). */
export function isExpirationAllowed(state: TransactionStateName): boolean {
  return state === "Empty" || state === "CompleteCommit" || state === "CompleteAbort";
}

/** Kafka's `TransactionState.fromName`: the states the log can hold. */
export function isTransactionStateName(name: unknown): name is TransactionStateName {
  return typeof name === "string" && Object.hasOwn(VALID_PREVIOUS_STATES, name);
}
