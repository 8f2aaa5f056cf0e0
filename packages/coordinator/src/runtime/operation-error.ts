import { ErrorCode } from "@kcsim/protocol";

/**
 * The error a client gets for an operation that failed below the
 * coordinator (Kafka's `CoordinatorOperationExceptionHelper.handleOperationException`):
 * storage and network errors become coordinator errors the clients know
 * how to retry. NETWORK_EXCEPTION, which a failed transaction verification
 * gives, becomes COORDINATOR_LOAD_IN_PROGRESS, so that older clients retry
 * without looking the coordinator up again.
 */
export function operationErrorForClient(errorCode: number): number {
  switch (errorCode) {
    case ErrorCode.NETWORK_EXCEPTION:
      return ErrorCode.COORDINATOR_LOAD_IN_PROGRESS;
    case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
    case ErrorCode.NOT_ENOUGH_REPLICAS:
    case ErrorCode.REQUEST_TIMED_OUT:
      return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    case ErrorCode.NOT_LEADER_OR_FOLLOWER:
    case ErrorCode.KAFKA_STORAGE_ERROR:
      return ErrorCode.NOT_COORDINATOR;
    case ErrorCode.MESSAGE_TOO_LARGE:
    case ErrorCode.RECORD_LIST_TOO_LARGE:
    case ErrorCode.INVALID_FETCH_SIZE:
      return ErrorCode.UNKNOWN_SERVER_ERROR;
    default:
      return errorCode;
  }
}
