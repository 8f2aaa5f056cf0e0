import type { Static } from "@sinclair/typebox";
import { Bool, Int, request, response } from "./schema.js";

/**
 * BrokerHeartbeat (API key 63): a registered broker's liveness signal to the
 * KRaft controller, every broker.heartbeat.interval.ms. A broker silent for
 * broker.session.timeout.ms is fenced; a fenced broker that is caught up
 * with the metadata is unfenced by its next heartbeat.
 */
export const BrokerHeartbeatRequest = request("BrokerHeartbeatRequest", {
  brokerId: Int,
  brokerEpoch: Int,
  currentMetadataOffset: Int,
  wantFence: Bool,
  wantShutDown: Bool,
});
export type BrokerHeartbeatRequest = Static<typeof BrokerHeartbeatRequest>;

export const BrokerHeartbeatResponse = response("BrokerHeartbeatResponse", {
  throttleTimeMs: Int,
  errorCode: Int,
  isCaughtUp: Bool,
  isFenced: Bool,
  shouldShutDown: Bool,
});
export type BrokerHeartbeatResponse = Static<typeof BrokerHeartbeatResponse>;
