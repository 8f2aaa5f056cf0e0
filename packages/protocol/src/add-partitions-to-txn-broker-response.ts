import { ErrorCode } from "./errors.js";
import type { AddPartitionsToTxnBrokerRequest, AddPartitionsToTxnBrokerResponse } from "./messages/index.js";

/** The error of one partition of one transaction of a broker's AddPartitionsToTxn. */
export type TransactionPartitionError = (
  transaction: AddPartitionsToTxnBrokerRequest["transactions"][number],
  topic: string,
  partition: number,
) => number;

/** The answer to a broker's AddPartitionsToTxn (v4): each transaction's partitions with `errorOf`'s error, no top-level error. */
export function addPartitionsToTxnBrokerResponse(
  request: AddPartitionsToTxnBrokerRequest,
  errorOf: TransactionPartitionError,
): AddPartitionsToTxnBrokerResponse {
  return {
    type: "AddPartitionsToTxnBrokerResponse",
    correlationId: request.correlationId,
    throttleTimeMs: 0,
    errorCode: ErrorCode.NONE,
    resultsByTransaction: request.transactions.map((transaction) => ({
      transactionalId: transaction.transactionalId,
      topicResults: transaction.topics.map((topic) => ({
        name: topic.name,
        resultsByPartition: topic.partitions.map((partitionIndex) => ({
          partitionIndex,
          partitionErrorCode: errorOf(transaction, topic.name, partitionIndex),
        })),
      })),
    })),
  };
}
