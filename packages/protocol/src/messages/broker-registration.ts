import type { Static } from "@sinclair/typebox";
import { Int, List, Nullable, request, response, Str, Struct } from "./schema.js";

/**
 * BrokerRegistration (API key 62): a starting broker registers with the
 * KRaft controller and gets its broker epoch. `incarnationId` is new on
 * every start of the broker process; `host` of a listener is the broker's
 * actor id.
 */
export const BrokerRegistrationRequest = request("BrokerRegistrationRequest", {
  brokerId: Int,
  clusterId: Str,
  incarnationId: Str,
  listeners: List(Struct({ name: Str, host: Str, port: Int, securityProtocol: Int })),
  rack: Nullable(Str),
  previousBrokerEpoch: Int,
});
export type BrokerRegistrationRequest = Static<typeof BrokerRegistrationRequest>;

export const BrokerRegistrationResponse = response("BrokerRegistrationResponse", {
  throttleTimeMs: Int,
  errorCode: Int,
  brokerEpoch: Int,
});
export type BrokerRegistrationResponse = Static<typeof BrokerRegistrationResponse>;
