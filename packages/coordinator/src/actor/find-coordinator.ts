import { CoordinatorKeyType, ErrorCode, type FindCoordinatorRequest, type FindCoordinatorResponse } from "@kcsim/protocol";
import type { CoordinatorPlacement } from "./coordinator-placement.js";

/** The port every simulated coordinator "listens" on. */
export const COORDINATOR_PORT = 9092;

/**
 * FindCoordinator (KeyType GROUP), answered by every coordinator actor
 * from the static placement, loaded or not: NodeId = the owner's index,
 * Host = its actor id. TRANSACTION and SHARE keys are not served by group
 * coordinators here (COORDINATOR_NOT_AVAILABLE); other key types are
 * INVALID_REQUEST.
 */
export function findCoordinator(placement: CoordinatorPlacement, request: FindCoordinatorRequest): FindCoordinatorResponse {
  return {
    type: "FindCoordinatorResponse",
    correlationId: request.correlationId,
    throttleTimeMs: 0,
    coordinators: request.coordinatorKeys.map((key) => {
      if (request.keyType === CoordinatorKeyType.GROUP) {
        const index = placement.indexOf(key);
        return {
          key,
          nodeId: index,
          host: placement.coordinators[index] as string,
          port: COORDINATOR_PORT,
          errorCode: ErrorCode.NONE,
          errorMessage: null,
        };
      }
      const known = request.keyType === CoordinatorKeyType.TRANSACTION || request.keyType === CoordinatorKeyType.SHARE;
      return {
        key,
        nodeId: -1,
        host: "",
        port: -1,
        errorCode: known ? ErrorCode.COORDINATOR_NOT_AVAILABLE : ErrorCode.INVALID_REQUEST,
        errorMessage: known
          ? `key type ${request.keyType} is not served by the group coordinators`
          : `Unknown coordinator type ${request.keyType}.`,
      };
    }),
  };
}
