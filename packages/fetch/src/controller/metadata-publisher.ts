import {
  type Context,
  type MetadataBroker,
  type Micros,
  type UpdateMetadataPartitionState,
  type UpdateMetadataRequest,
  UpdateMetadataType,
} from "@kcsim/protocol";
import type { BrokerRegistrationState } from "./broker-registration-state.js";
import type { PartitionRegistration } from "./partition-registration.js";

/** The node id the simulated KRaft controller claims (controllers have their own ids). */
export const CONTROLLER_NODE_ID = 3000;

/**
 * Pushes metadata to brokers with UpdateMetadata and remembers which
 * updates each broker has acknowledged. The router may drop an update; a
 * broker that has not acknowledged an update sent before its previous
 * heartbeat is sent the full metadata again, which stands in for a KRaft
 * broker catching up on the metadata log. An update to a broker whose
 * process is not running fails (the broker resets the connection) and
 * stays unacknowledged the same way: the broker's next incarnation
 * registers and is sent the full metadata, which replaces it.
 */
export class MetadataPublisher {
  readonly #controllerEpoch: () => number;
  readonly #nextCorrelationId: () => number;
  /** Per broker node id: unacknowledged update correlation ids -> when they were sent. */
  readonly #unacked = new Map<number, Map<number, Micros>>();

  constructor(controllerEpoch: () => number, nextCorrelationId: () => number) {
    this.#controllerEpoch = controllerEpoch;
    this.#nextCorrelationId = nextCorrelationId;
  }

  /** Sends the given partition states (or, for a full update, every partition) to one broker; returns the correlation id. */
  send(
    broker: BrokerRegistrationState,
    partitions: readonly PartitionRegistration[],
    updateType: number,
    liveBrokers: readonly MetadataBroker[],
    ctx: Context,
  ): number {
    const correlationId = this.#nextCorrelationId();
    let unacked = this.#unacked.get(broker.nodeId);
    if (unacked === undefined) {
      unacked = new Map();
      this.#unacked.set(broker.nodeId, unacked);
    }
    if (updateType === UpdateMetadataType.FULL) unacked.clear();
    unacked.set(correlationId, ctx.now());
    ctx.send(broker.host, this.#request(correlationId, broker.epoch, partitions, updateType, liveBrokers));
    return correlationId;
  }

  #request(
    correlationId: number,
    brokerEpoch: number,
    partitions: readonly PartitionRegistration[],
    updateType: number,
    liveBrokers: readonly MetadataBroker[],
  ): UpdateMetadataRequest {
    const controllerEpoch = this.#controllerEpoch();
    const topicStates: UpdateMetadataRequest["topicStates"] = [];
    for (const p of partitions) {
      let topic = topicStates.find((t) => t.topicName === p.topic);
      if (topic === undefined) {
        topic = { topicName: p.topic, topicId: p.topicId, partitionStates: [] };
        topicStates.push(topic);
      }
      const state: UpdateMetadataPartitionState = {
        partitionIndex: p.partition,
        controllerEpoch,
        leader: p.leader,
        leaderEpoch: p.leaderEpoch,
        isr: [...p.isr],
        zkVersion: p.partitionEpoch,
        replicas: [...p.replicas],
        offlineReplicas: [],
      };
      topic.partitionStates.push(state);
    }
    return {
      type: "UpdateMetadataRequest",
      correlationId,
      apiVersion: 8,
      clientId: "controller",
      controllerId: CONTROLLER_NODE_ID,
      isKRaftController: true,
      controllerEpoch,
      brokerEpoch,
      updateType,
      topicStates,
      liveBrokers: [...liveBrokers],
    };
  }

  /** Whether some update to the broker is unacknowledged (in flight, lost, or failed by a reset). */
  hasUnacknowledged(nodeId: number): boolean {
    return (this.#unacked.get(nodeId)?.size ?? 0) > 0;
  }

  ack(nodeId: number, correlationId: number): void {
    this.#unacked.get(nodeId)?.delete(correlationId);
  }

  isAcked(nodeId: number, correlationId: number): boolean {
    return !(this.#unacked.get(nodeId)?.has(correlationId) ?? false);
  }

  /** Whether the broker has not acknowledged an update sent before `time`. */
  missedBefore(nodeId: number, time: Micros): boolean {
    for (const sentAt of this.#unacked.get(nodeId)?.values() ?? []) if (sentAt < time) return true;
    return false;
  }
}
