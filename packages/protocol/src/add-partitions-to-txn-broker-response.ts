import { ErrorCode } from "./errors.js";
import type { AddPartitionsToTxnBrokerRequest, AddPartitionsToTxnBrokerResponse } from "./messages/index.js";

/** The errors of one transaction of a broker's AddPartitionsToTxn: asked once per transaction, in order; then per partition. */
export type TransactionErrors = (
  transaction: AddPartitionsToTxnBrokerRequest["transactions"][number],
) => (topic: string, partition: number) => number;

/** The answer to a broker's AddPartitionsToTxn (v4): each transaction's partitions with `errorsOf`'s errors, no top-level error. */
export function addPartitionsToTxnBrokerResponse(
  request: AddPartitionsToTxnBrokerRequest,
  errorsOf: TransactionErrors,
): AddPartitionsToTxnBrokerResponse {
  return {
    type: "AddPartitionsToTxnBrokerResponse",
    correlationId: request.correlationId,
    throttleTimeMs: 0,
    errorCode: ErrorCode.NONE,
    resultsByTransaction: request.transactions.map((transaction) => {
      const errorOf = errorsOf(transaction);
      return {
        transactionalId: transaction.transactionalId,
        topicResults: transaction.topics.map((topic) => ({
          name: topic.name,
          resultsByPartition: topic.partitions.map((partitionIndex) => ({
            partitionIndex,
            partitionErrorCode: errorOf(topic.name, partitionIndex),
          })),
        })),
      };
    }),
  };
}
