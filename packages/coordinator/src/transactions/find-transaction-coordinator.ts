import {
  CoordinatorKeyType,
  ErrorCode,
  type FindCoordinatorRequest,
  type FindCoordinatorResponse,
  type TransactionPlacement,
} from "@kcsim/protocol";
import { COORDINATOR_PORT } from "../actor/find-coordinator.js";

/**
 * FindCoordinator as a transaction coordinator answers it, loaded or not:
 * for a TRANSACTION key it owns, NodeId = its index in txnCoordinators and
 * Host = its actor id; for a key another transaction coordinator owns,
 * NOT_COORDINATOR (the message names the owner). GROUP and SHARE keys are
 * not served here (COORDINATOR_NOT_AVAILABLE); other key types are
 * INVALID_REQUEST.
 */
export function findTransactionCoordinator(
  selfId: string,
  placement: TransactionPlacement,
  request: FindCoordinatorRequest,
): FindCoordinatorResponse {
  return {
    type: "FindCoordinatorResponse",
    correlationId: request.correlationId,
    throttleTimeMs: 0,
    coordinators: request.coordinatorKeys.map((key) => {
      const failed = (errorCode: number, errorMessage: string) => ({ key, nodeId: -1, host: "", port: -1, errorCode, errorMessage });
      if (request.keyType === CoordinatorKeyType.TRANSACTION) {
        const owner = placement.ownerOf(key);
        if (owner !== selfId) {
          return failed(ErrorCode.NOT_COORDINATOR, `This is not the correct coordinator: transactional id ${key} belongs to ${owner}.`);
        }
        return { key, nodeId: placement.indexOf(key), host: selfId, port: COORDINATOR_PORT, errorCode: ErrorCode.NONE, errorMessage: null };
      }
      if (request.keyType === CoordinatorKeyType.GROUP || request.keyType === CoordinatorKeyType.SHARE) {
        return failed(ErrorCode.COORDINATOR_NOT_AVAILABLE, `key type ${request.keyType} is not served by the transaction coordinators`);
      }
      return failed(ErrorCode.INVALID_REQUEST, `Unknown coordinator type ${request.keyType}.`);
    }),
  };
}
