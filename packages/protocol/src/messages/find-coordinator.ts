import type { Static } from "@sinclair/typebox";
import { Int, List, Nullable, request, response, Str, Struct } from "./schema.js";

/**
 * `FindCoordinator` (API key 10), batched form (v4+). In the simulation a
 * coordinator's `host` is the actor id that serves it.
 */
export const CoordinatorKeyType = { GROUP: 0, TRANSACTION: 1, SHARE: 2 } as const;

export const FindCoordinatorRequest = request("FindCoordinatorRequest", {
  keyType: Int,
  coordinatorKeys: List(Str),
});
export type FindCoordinatorRequest = Static<typeof FindCoordinatorRequest>;

export const FindCoordinatorResponse = response("FindCoordinatorResponse", {
  throttleTimeMs: Int,
  coordinators: List(
    Struct({
      key: Str,
      nodeId: Int,
      host: Str,
      port: Int,
      errorCode: Int,
      errorMessage: Nullable(Str),
    }),
  ),
});
export type FindCoordinatorResponse = Static<typeof FindCoordinatorResponse>;
