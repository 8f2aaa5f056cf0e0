import type { ActorId, Micros } from "@kcsim/protocol";

/**
 * What the controller knows of one broker (Kafka's `BrokerRegistration` with
 * its `BrokerHeartbeatManager` state). Brokers of the initial cluster start
 * registered, unfenced and without an incarnation; their first registration
 * keeps them unfenced. Any later registration starts fenced.
 */
export interface BrokerRegistrationState {
  readonly nodeId: number;
  readonly host: ActorId;
  /** The broker epoch of the current registration (-1 for the initial, not yet registered one). */
  epoch: number;
  incarnationId: string | null;
  fenced: boolean;
  lastContact: Micros;
  /** When the broker's previous heartbeat arrived (metadata sent before it should have been acknowledged by now). */
  previousHeartbeatAt: Micros;
  /** The full metadata update sent at registration; the broker is caught up once it acknowledged it. */
  snapshotCorrelationId: number | null;
}
