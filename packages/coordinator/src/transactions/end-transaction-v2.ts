import { ErrorCode } from "@kcsim/protocol";
import { IllegalStateError } from "../runtime/coordinator-error.js";
import { SHORT_MAX_VALUE, type TransactionMetadata } from "./transaction-metadata.js";

/** An EndTxn (or a coordinator's own abort) as transaction version 2 judges it. */
export interface EndTransactionV2Request {
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly committed: boolean;
  /** False for the coordinator's own aborts (a timeout, an InitProducerId fence): their epoch is the fence's. */
  readonly isFromClient: boolean;
}

/**
 * What transaction version 2's EndTxn does before anything is written:
 * - `refuse`: answer the error;
 * - `retried`: a retry of an EndTxn that already completed: NONE with the
 *   current producer id and epoch, nothing written;
 * - `prepare`: write PrepareCommit/PrepareAbort with a bumped epoch
 *   (`noPartitionAdded`: an abort with no transaction open, from Empty or
 *   Complete*).
 */
export type EndTransactionV2Decision =
  | { readonly kind: "refuse"; readonly errorCode: number }
  | { readonly kind: "retried" }
  | { readonly kind: "prepare"; readonly nextState: "PrepareCommit" | "PrepareAbort"; readonly noPartitionAdded: boolean };

const refuse = (errorCode: number): EndTransactionV2Decision => ({ kind: "refuse", errorCode });
const prepare = (nextState: "PrepareCommit" | "PrepareAbort", noPartitionAdded: boolean): EndTransactionV2Decision => ({
  kind: "prepare",
  nextState,
  noPartitionAdded,
});

/**
 * The checks of Kafka 4.2's `TransactionCoordinator#endTransaction` for
 * transaction version 2 (KIP-890 part 2), in its order:
 * 1. a pending transition (other than an epoch fence): CONCURRENT_TRANSACTIONS
 *    (first: over an epoch overflow the client may already use the new
 *    producer id, which is only pending);
 * 2. another producer id, unless it retries across an overflow:
 *    INVALID_PRODUCER_ID_MAPPING;
 * 3. an epoch the state does not accept: PRODUCER_FENCED. Ongoing and
 *    Empty take the current epoch; PrepareCommit/PrepareAbort only a retry
 *    (the epoch just before the bumped one); CompleteCommit/CompleteAbort a
 *    retry or the current epoch. The coordinator's own abort carries the
 *    fence's epoch (at least the current one);
 * 4. the state table (Kafka's comment there; retry = the epoch just before
 *    the stored one; EB = an epoch bump; ITS = INVALID_TXN_STATE; PF =
 *    PRODUCER_FENCED, from step 3):
 *
 *    | state          | abort, retry | abort, current | commit, retry | commit, current |
 *    |----------------|--------------|----------------|---------------|-----------------|
 *    | Empty          | PF           | EB             | PF            | ITS             |
 *    | CompleteAbort  | NONE         | EB             | ITS           | ITS             |
 *    | CompleteCommit | ITS          | EB             | NONE          | ITS             |
 *
 *    Ongoing at the current epoch: PrepareCommit/PrepareAbort. Prepare* (a
 *    retry) with the same decision: CONCURRENT_TRANSACTIONS; with the other one:
 *    INVALID_TXN_STATE.
 */
export function decideEndTransactionV2(metadata: TransactionMetadata, request: EndTransactionV2Request): EndTransactionV2Decision {
  const { producerId, producerEpoch, committed, isFromClient } = request;
  // An epoch fence bumps differently; it only ever happens to an Ongoing transaction.
  const isEpochFence = metadata.pendingState === "PrepareEpochFence";
  // The client retries an EndTxn whose answer switched it to a new producer id (the epochs of the old one ran out).
  const retryOnOverflow =
    !isEpochFence && metadata.lastProducerId === producerId && producerEpoch === SHORT_MAX_VALUE - 1 && metadata.producerEpoch === 0;
  // The client retries an EndTxn that bumped the epoch.
  const retryOnEpochBump = !isEpochFence && metadata.producerEpoch === producerEpoch + 1;
  const isRetry = retryOnEpochBump || retryOnOverflow;

  if (metadata.pendingTransitionInProgress && !isEpochFence) return refuse(ErrorCode.CONCURRENT_TRANSACTIONS);
  if (metadata.producerId !== producerId && !retryOnOverflow) return refuse(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
  if (!isValidEpoch(metadata, producerEpoch, isFromClient, isEpochFence, retryOnEpochBump, retryOnOverflow)) {
    return refuse(ErrorCode.PRODUCER_FENCED);
  }
  switch (metadata.state) {
    case "Ongoing":
      return prepare(committed ? "PrepareCommit" : "PrepareAbort", false);
    case "CompleteCommit":
      if (committed) return isRetry ? { kind: "retried" } : refuse(ErrorCode.INVALID_TXN_STATE);
      return isRetry ? refuse(ErrorCode.INVALID_TXN_STATE) : prepare("PrepareAbort", true);
    case "CompleteAbort":
      if (!committed) return isRetry ? { kind: "retried" } : prepare("PrepareAbort", true);
      return refuse(ErrorCode.INVALID_TXN_STATE);
    case "PrepareCommit":
      return refuse(committed ? ErrorCode.CONCURRENT_TRANSACTIONS : ErrorCode.INVALID_TXN_STATE);
    case "PrepareAbort":
      return refuse(committed ? ErrorCode.INVALID_TXN_STATE : ErrorCode.CONCURRENT_TRANSACTIONS);
    case "Empty":
      return committed ? refuse(ErrorCode.INVALID_TXN_STATE) : prepare("PrepareAbort", true);
    case "Dead":
    case "PrepareEpochFence":
      throw new IllegalStateError(
        `Found transactionalId ${metadata.transactionalId} with state ${metadata.state}. This is illegal as we should never have transitioned to this state.`,
      );
  }
}

/** Kafka's `isValidEpoch` of transaction version 2's endTransaction. */
function isValidEpoch(
  metadata: TransactionMetadata,
  producerEpoch: number,
  isFromClient: boolean,
  isEpochFence: boolean,
  retryOnEpochBump: boolean,
  retryOnOverflow: boolean,
): boolean {
  if (isEpochFence) return (!isFromClient || producerEpoch === metadata.producerEpoch) && producerEpoch >= metadata.producerEpoch;
  switch (metadata.state) {
    case "Ongoing":
    case "Empty":
    case "Dead":
    case "PrepareEpochFence":
      return producerEpoch === metadata.producerEpoch;
    case "PrepareCommit":
    case "PrepareAbort":
      return retryOnEpochBump;
    case "CompleteCommit":
    case "CompleteAbort":
      return retryOnEpochBump || retryOnOverflow || producerEpoch === metadata.producerEpoch;
  }
}
