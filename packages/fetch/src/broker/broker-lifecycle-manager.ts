import {
  type ActorId,
  type BrokerHeartbeatResponse,
  type BrokerRegistrationResponse,
  type Context,
  ErrorCode,
  type Micros,
  ms,
} from "@kcsim/protocol";
import { BROKER_PORT } from "../cluster/cluster-layout.js";

/** Registration and heartbeats to the controller (Kafka: the lifecycle manager's own channel). */
export const LIFECYCLE_CONNECTION = "lifecycle";
/** The lifecycle timer: the next registration attempt or heartbeat. */
export const LIFECYCLE_TIMER = "lifecycle";

/** Kafka's KRaft cluster id; one simulated cluster. */
const CLUSTER_ID = "kcsim-cluster";

/** A new random Kafka Uuid string (22 base64url characters) from the actor's random stream. */
function randomUuid(random: () => number): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  let out = "";
  for (let i = 0; i < 22; i++) out += alphabet[Math.floor(random() * 64)];
  return out;
}

/**
 * A broker's standing with the KRaft controller (Kafka's
 * `BrokerLifecycleManager`): it registers with a fresh incarnation id on
 * every start (retrying every broker.heartbeat.interval.ms while the
 * controller refuses, e.g. with DUPLICATE_BROKER_REGISTRATION until the
 * previous incarnation's session expires), then heartbeats every
 * broker.heartbeat.interval.ms, re-registering if the controller no longer
 * knows its epoch. A registration or heartbeat that fails (refused, lost, or
 * reset because the controller's process is not running) is simply followed
 * by the next one: the lifecycle timer is always armed for it.
 */
export class BrokerLifecycleManager {
  readonly #brokerId: number;
  readonly #host: ActorId;
  readonly #controller: ActorId;
  readonly #interval: Micros;
  readonly #metadataOffset: () => number;
  readonly #nextCorrelationId: () => number;
  #incarnationId = "";
  #brokerEpoch = -1;
  #previousBrokerEpoch = -1;
  #fenced = true;
  #pendingRegistration = -1;

  constructor(
    brokerId: number,
    host: ActorId,
    controller: ActorId,
    heartbeatIntervalMs: number,
    metadataOffset: () => number,
    nextCorrelationId: () => number,
  ) {
    this.#brokerId = brokerId;
    this.#host = host;
    this.#controller = controller;
    this.#interval = ms(heartbeatIntervalMs);
    this.#metadataOffset = metadataOffset;
    this.#nextCorrelationId = nextCorrelationId;
  }

  get brokerEpoch(): number {
    return this.#brokerEpoch;
  }

  /** As the controller last said (true until the first heartbeat answer). */
  get fenced(): boolean {
    return this.#fenced;
  }

  /** Registers with a new incarnation id (every start of the broker). */
  start(ctx: Context): void {
    this.#incarnationId = randomUuid(() => ctx.random());
    this.#register(ctx);
  }

  #register(ctx: Context): void {
    this.#brokerEpoch = -1;
    this.#fenced = true;
    this.#pendingRegistration = this.#nextCorrelationId();
    ctx.send(
      this.#controller,
      {
        type: "BrokerRegistrationRequest",
        correlationId: this.#pendingRegistration,
        apiVersion: 3,
        clientId: `broker-${this.#brokerId}`,
        brokerId: this.#brokerId,
        clusterId: CLUSTER_ID,
        incarnationId: this.#incarnationId,
        listeners: [{ name: "PLAINTEXT", host: this.#host, port: BROKER_PORT, securityProtocol: 0 }],
        rack: null,
        previousBrokerEpoch: this.#previousBrokerEpoch,
      },
      LIFECYCLE_CONNECTION,
    );
    ctx.setTimer(LIFECYCLE_TIMER, this.#interval);
  }

  onTimer(ctx: Context): void {
    if (this.#brokerEpoch < 0) {
      this.#register(ctx);
      return;
    }
    ctx.send(
      this.#controller,
      {
        type: "BrokerHeartbeatRequest",
        correlationId: this.#nextCorrelationId(),
        apiVersion: 1,
        clientId: `broker-${this.#brokerId}`,
        brokerId: this.#brokerId,
        brokerEpoch: this.#brokerEpoch,
        currentMetadataOffset: this.#metadataOffset(),
        wantFence: false,
        wantShutDown: false,
      },
      LIFECYCLE_CONNECTION,
    );
    ctx.setTimer(LIFECYCLE_TIMER, this.#interval);
  }

  /** Returns true when the broker just got its (new) broker epoch. */
  onRegistrationResponse(response: BrokerRegistrationResponse, ctx: Context): boolean {
    if (response.correlationId !== this.#pendingRegistration || this.#brokerEpoch >= 0) return false;
    if (response.errorCode !== ErrorCode.NONE) return false; // the timer tries again
    this.#brokerEpoch = response.brokerEpoch;
    this.#previousBrokerEpoch = response.brokerEpoch;
    ctx.setTimer(LIFECYCLE_TIMER, this.#interval);
    return true;
  }

  onHeartbeatResponse(response: BrokerHeartbeatResponse, ctx: Context): void {
    if (this.#brokerEpoch < 0) return;
    if (response.errorCode === ErrorCode.STALE_BROKER_EPOCH || response.errorCode === ErrorCode.BROKER_ID_NOT_REGISTERED) {
      this.#register(ctx);
      return;
    }
    if (response.errorCode === ErrorCode.NONE) this.#fenced = response.isFenced;
  }
}
