import {
  type Actor,
  type ActorId,
  type AlterPartitionRequest,
  type AlterPartitionResponse,
  type BrokerHeartbeatRequest,
  type BrokerRegistrationRequest,
  type Context,
  type ControlCommand,
  type CreateTopicsRequest,
  type CreateTopicsResponse,
  ErrorCode,
  type JsonValue,
  type Message,
  type MetadataBroker,
  type Micros,
  ms,
  topicIdFor,
  UpdateMetadataType,
} from "@kcsim/protocol";
import { initialReplicas, metadataBrokerOf, type TopicLayout } from "../cluster/cluster-layout.js";
import type { ControllerPartitionObservation } from "../observations.js";
import type { BrokerRegistrationState } from "./broker-registration-state.js";
import { type ControllerConfig, parseControllerConfig } from "./controller-config.js";
import { MetadataPublisher } from "./metadata-publisher.js";
import { changePartition, type Election, type PartitionRegistration } from "./partition-registration.js";

/** What the controller keeps in durable storage (its metadata log), replayed in order on restart. */
type ControllerRecord =
  | { readonly controllerEpoch: number }
  | {
      readonly broker: { readonly nodeId: number; readonly epoch: number; readonly incarnationId: string | null; readonly fenced: boolean };
    }
  | { readonly partition: PartitionRegistration };

const SESSION_TIMER = "session:";
/** Re-sends created topics to the coordinators that have not acknowledged them. */
const COORDINATOR_PUSH_TIMER = "coordinator-push";
const COORDINATOR_PUSH_RETRY_MS = 1000;

function partitionKey(topic: string, partition: number): string {
  return `${topic}-${partition}`;
}

/**
 * The KRaft controller (actor kind "controller", id "controller"): broker
 * registrations and heartbeat sessions (Kafka's `ClusterControlManager` and
 * `BrokerHeartbeatManager`) and partition leadership and ISR (Kafka's
 * `ReplicationControlManager`). A broker silent for
 * broker.session.timeout.ms is fenced: it leaves every ISR it is in (unless
 * it is the last member) and the partitions it led get a new leader, the
 * first ISR replica in replica order that is unfenced, with leader epoch + 1;
 * with none the partition goes offline (leader -1; no unclean election). A
 * fenced broker that heartbeats again once caught up with the metadata is
 * unfenced: it leads offline partitions whose ISR it is in, and leaders add
 * it back to their ISRs with AlterPartition. Every change is pushed to all
 * brokers with UpdateMetadata and observed as `controller.partition`. Its
 * records are written to ctx.storage and replayed after a crash. A
 * SimDisconnect from a broker (its process is not running) fails the
 * updates in flight to it, which the publisher keeps as unacknowledged: the
 * broker gets the full metadata when it registers again. Nothing is resent
 * to it meanwhile.
 *
 * CreateTopics (what a broker forwards, and what auto-creation sends):
 * each new topic's partitions get replicas in the initial placement over the
 * unfenced brokers, the first replica leading, and are pushed to every
 * broker like any change; -1 partitions or replicas take num.partitions and
 * default.replication.factor. A topic that exists is TOPIC_ALREADY_EXISTS.
 * The group coordinators (config `coordinators`) get every created topic
 * too (UpdateMetadata), again every second until each has acknowledged the
 * latest set, so a coordinator that was down learns them when it is back.
 *
 * Control command: `{"command": "move-leader", "topic", "partition", "to"}`
 * elects `to` if it is an unfenced ISR member (a preferred-leader style
 * election).
 */
export class ControllerActor implements Actor {
  readonly config: ControllerConfig;
  readonly #brokers = new Map<number, BrokerRegistrationState>();
  readonly #partitions = new Map<string, PartitionRegistration>();
  /** Every topic: the configured ones and those created since (rebuilt from the partition records on restart). */
  readonly #topics = new Map<string, TopicLayout>();
  /** Per coordinator, how many created topics it has acknowledged. */
  readonly #coordinatorAcks = new Map<ActorId, number>();
  /** The correlation id of the last push to each coordinator, with the number of topics it carried. */
  readonly #coordinatorPushes = new Map<ActorId, { readonly correlationId: number; readonly topics: number }>();
  readonly #publisher: MetadataPublisher;
  readonly #sessionTimeout: Micros;
  #controllerEpoch = 0;
  #nextBrokerEpoch = 1;
  #correlationId = 0;
  #ctx: Context | null = null;

  constructor(config: ControllerConfig) {
    this.config = config;
    this.#sessionTimeout = ms(config.settings["broker.session.timeout.ms"]);
    this.#publisher = new MetadataPublisher(
      () => this.#controllerEpoch,
      () => ++this.#correlationId,
    );
  }

  start(ctx: Context): void {
    this.#ctx = ctx;
    this.#correlationId = Math.floor(ctx.random() * 2 ** 30);
    for (const topic of this.config.topics) this.#topics.set(topic.name, topic);
    const now = ctx.now();
    for (const b of this.config.brokers) {
      this.#brokers.set(b.nodeId, {
        nodeId: b.nodeId,
        host: b.host,
        epoch: -1,
        incarnationId: null,
        fenced: false,
        lastContact: now,
        previousHeartbeatAt: now,
        snapshotCorrelationId: null,
      });
    }
    const records = ctx.storage.readAll() as ControllerRecord[];
    if (records.length === 0) this.#createCluster(ctx);
    else this.#replay(records);
    this.#controllerEpoch++;
    this.#persist({ controllerEpoch: this.#controllerEpoch }, ctx);
    for (const broker of this.#brokers.values()) {
      // A new active controller gives every broker a fresh session (Kafka resets the heartbeat manager on failover).
      broker.lastContact = now;
      if (!broker.fenced) ctx.setTimer(`${SESSION_TIMER}${broker.nodeId}`, this.#sessionTimeout);
    }
    // After a failover brokers may have missed updates: everyone gets the full metadata, and a fenced
    // broker is unfenced only once it acknowledged it.
    if (records.length > 0) for (const broker of this.#brokers.values()) broker.snapshotCorrelationId = this.#sendFull(broker, ctx);
    this.#pushCreatedTopics(ctx);
  }

  #createCluster(ctx: Context): void {
    for (const topic of this.config.topics) {
      for (let p = 0; p < topic.partitions; p++) {
        const replicas = initialReplicas(p, this.config.brokers, topic.replicationFactor);
        const registration: PartitionRegistration = {
          topic: topic.name,
          topicId: topic.id,
          partition: p,
          replicas,
          isr: replicas,
          leader: replicas[0] as number,
          leaderEpoch: 0,
          partitionEpoch: 0,
        };
        this.#partitions.set(partitionKey(topic.name, p), registration);
        this.#persist({ partition: registration }, ctx);
        this.#observe(registration, "create", ctx);
      }
    }
  }

  #replay(records: readonly ControllerRecord[]): void {
    for (const record of records) {
      if ("controllerEpoch" in record) {
        this.#controllerEpoch = Math.max(this.#controllerEpoch, record.controllerEpoch);
      } else if ("broker" in record) {
        const broker = this.#brokers.get(record.broker.nodeId);
        if (broker === undefined) continue;
        broker.epoch = record.broker.epoch;
        broker.incarnationId = record.broker.incarnationId;
        broker.fenced = record.broker.fenced;
        this.#nextBrokerEpoch = Math.max(this.#nextBrokerEpoch, record.broker.epoch + 1);
      } else {
        const partition = record.partition;
        this.#partitions.set(partitionKey(partition.topic, partition.partition), partition);
        const known = this.#topics.get(partition.topic);
        if (known === undefined || known.partitions <= partition.partition) {
          this.#topics.set(partition.topic, {
            name: partition.topic,
            id: partition.topicId,
            partitions: partition.partition + 1,
            replicationFactor: partition.replicas.length,
          });
        }
      }
    }
  }

  #persist(record: ControllerRecord, ctx: Context): void {
    ctx.storage.append(record);
  }

  #persistBroker(broker: BrokerRegistrationState, ctx: Context): void {
    this.#persist(
      { broker: { nodeId: broker.nodeId, epoch: broker.epoch, incarnationId: broker.incarnationId, fenced: broker.fenced } },
      ctx,
    );
  }

  receive(from: ActorId, message: Message, ctx: Context): void {
    this.#ctx = ctx;
    switch (message.type) {
      case "BrokerRegistrationRequest":
        this.#register(from, message, ctx);
        return;
      case "BrokerHeartbeatRequest":
        this.#heartbeat(from, message, ctx);
        return;
      case "AlterPartitionRequest":
        ctx.send(from, this.#alterPartition(message, ctx));
        return;
      case "CreateTopicsRequest":
        ctx.send(from, this.#createTopics(message, ctx));
        return;
      case "UpdateMetadataResponse": {
        const broker = [...this.#brokers.values()].find((b) => b.host === from);
        if (broker !== undefined) this.#publisher.ack(broker.nodeId, message.correlationId);
        const push = this.#coordinatorPushes.get(from);
        if (push !== undefined && push.correlationId === message.correlationId && message.errorCode === ErrorCode.NONE)
          this.#coordinatorAcks.set(from, Math.max(this.#coordinatorAcks.get(from) ?? 0, push.topics));
        return;
      }
      case "SimDisconnect": {
        const broker = [...this.#brokers.values()].find((b) => b.host === from);
        if (broker !== undefined && this.#publisher.hasUnacknowledged(broker.nodeId))
          ctx.log.debug("broker reset the connection: its unacknowledged updates wait for its registration", { broker: broker.nodeId });
        return;
      }
      default:
        ctx.log.debug("controller ignores message", { type: message.type, from });
    }
  }

  // --- brokers ---

  #liveBrokers(): MetadataBroker[] {
    return [...this.#brokers.values()].filter((b) => !b.fenced).map((b) => metadataBrokerOf(b));
  }

  #isActive(brokerId: number): boolean {
    const broker = this.#brokers.get(brokerId);
    return broker !== undefined && !broker.fenced;
  }

  /**
   * BrokerRegistration (Kafka's `ClusterControlManager.registerBroker`): a
   * new incarnation is refused while the previous one still has a live
   * session (DUPLICATE_BROKER_REGISTRATION); a retry with the same
   * incarnation gets the same epoch. A new registration gets a new broker
   * epoch and starts fenced (except a broker of the initial cluster
   * registering for the first time), and is sent the full metadata.
   */
  #register(from: ActorId, request: BrokerRegistrationRequest, ctx: Context): void {
    const respond = (errorCode: number, brokerEpoch = -1) =>
      ctx.send(from, {
        type: "BrokerRegistrationResponse",
        correlationId: request.correlationId,
        throttleTimeMs: 0,
        errorCode,
        brokerEpoch,
      });
    const broker = this.#brokers.get(request.brokerId);
    if (broker === undefined || broker.host !== from) {
      respond(ErrorCode.INVALID_REQUEST);
      return;
    }
    const now = ctx.now();
    if (broker.incarnationId === request.incarnationId && broker.epoch >= 0) {
      respond(ErrorCode.NONE, broker.epoch);
      return;
    }
    // A broker of the initial cluster registering for the first time, and not fenced meanwhile, stays unfenced.
    const initial = broker.incarnationId === null && broker.epoch < 0 && !broker.fenced;
    if (!initial && !broker.fenced && now - broker.lastContact <= this.#sessionTimeout) {
      respond(ErrorCode.DUPLICATE_BROKER_REGISTRATION);
      return;
    }
    // A previous incarnation that still counts as live goes first: its partitions move on.
    if (!initial && !broker.fenced) this.#fence(broker, "broker re-registered", ctx);
    broker.epoch = this.#nextBrokerEpoch++;
    broker.incarnationId = request.incarnationId;
    broker.fenced = !initial;
    broker.lastContact = now;
    broker.previousHeartbeatAt = now;
    this.#persistBroker(broker, ctx);
    if (!broker.fenced) ctx.setTimer(`${SESSION_TIMER}${broker.nodeId}`, this.#sessionTimeout);
    broker.snapshotCorrelationId = this.#sendFull(broker, ctx);
    respond(ErrorCode.NONE, broker.epoch);
  }

  /**
   * BrokerHeartbeat (Kafka's `processBrokerHeartbeat`): renews the session;
   * a broker that missed updates sent before its previous heartbeat gets the
   * full metadata again; a fenced broker that has acknowledged its metadata
   * is unfenced.
   */
  #heartbeat(from: ActorId, request: BrokerHeartbeatRequest, ctx: Context): void {
    const respond = (errorCode: number, isCaughtUp = false, isFenced = true) =>
      ctx.send(from, {
        type: "BrokerHeartbeatResponse",
        correlationId: request.correlationId,
        throttleTimeMs: 0,
        errorCode,
        isCaughtUp,
        isFenced,
        shouldShutDown: false,
      });
    const broker = this.#brokers.get(request.brokerId);
    if (broker === undefined || broker.epoch < 0) {
      respond(ErrorCode.BROKER_ID_NOT_REGISTERED);
      return;
    }
    if (request.brokerEpoch !== broker.epoch) {
      respond(ErrorCode.STALE_BROKER_EPOCH);
      return;
    }
    const now = ctx.now();
    broker.lastContact = now;
    const missed = this.#publisher.missedBefore(broker.nodeId, broker.previousHeartbeatAt);
    broker.previousHeartbeatAt = now;
    if (missed) broker.snapshotCorrelationId = this.#sendFull(broker, ctx);
    const snapshot = broker.snapshotCorrelationId;
    const caughtUp = !missed && (snapshot === null || this.#publisher.isAcked(broker.nodeId, snapshot));
    if (broker.fenced && caughtUp && !request.wantFence) this.#unfence(broker, ctx);
    if (!broker.fenced) ctx.setTimer(`${SESSION_TIMER}${broker.nodeId}`, this.#sessionTimeout);
    respond(ErrorCode.NONE, caughtUp, broker.fenced);
  }

  fire(timer: string, ctx: Context): void {
    this.#ctx = ctx;
    if (timer === COORDINATOR_PUSH_TIMER) {
      this.#pushCreatedTopics(ctx);
      return;
    }
    if (!timer.startsWith(SESSION_TIMER)) return;
    const broker = this.#brokers.get(Number(timer.slice(SESSION_TIMER.length)));
    if (broker === undefined || broker.fenced) return;
    if (ctx.now() - broker.lastContact >= this.#sessionTimeout) this.#fence(broker, "broker session expired", ctx);
    else ctx.setTimer(timer, broker.lastContact + this.#sessionTimeout - ctx.now());
  }

  /** Kafka's `handleBrokerFenced`: out of every ISR it is in (but the last member), new leaders where it led. */
  #fence(broker: BrokerRegistrationState, reason: string, ctx: Context): void {
    broker.fenced = true;
    this.#persistBroker(broker, ctx);
    ctx.cancelTimer(`${SESSION_TIMER}${broker.nodeId}`);
    const changed: PartitionRegistration[] = [];
    for (const current of this.#partitions.values()) {
      if (!current.isr.includes(broker.nodeId)) continue;
      const next = changePartition(current, {
        targetIsr: current.isr.filter((id) => id !== broker.nodeId),
        election: { kind: "online" },
        isAcceptableLeader: (id) => this.#isActive(id),
      });
      if (next !== undefined) changed.push(next);
    }
    this.#commit(changed, `${reason}: broker ${broker.nodeId} fenced`, ctx);
  }

  /** Kafka's `handleBrokerUnfenced`: offline partitions it can lead (it is in their ISR) get it as leader. */
  #unfence(broker: BrokerRegistrationState, ctx: Context): void {
    broker.fenced = false;
    this.#persistBroker(broker, ctx);
    const changed: PartitionRegistration[] = [];
    for (const current of this.#partitions.values()) {
      if (current.leader >= 0) continue;
      const next = changePartition(current, {
        election: { kind: "online" },
        isAcceptableLeader: (id) => id === broker.nodeId || this.#isActive(id),
      });
      if (next !== undefined) changed.push(next);
    }
    this.#commit(changed, `broker ${broker.nodeId} unfenced`, ctx);
  }

  // --- partitions ---

  /**
   * Records partition changes, observes them, and pushes them to every
   * broker (with the current live brokers). With no partition change the
   * live-broker list alone may have changed, which is pushed too.
   */
  #commit(changed: readonly PartitionRegistration[], reason: string, ctx: Context): void {
    for (const registration of changed) {
      this.#partitions.set(partitionKey(registration.topic, registration.partition), registration);
      this.#persist({ partition: registration }, ctx);
      this.#observe(registration, reason, ctx);
    }
    const live = this.#liveBrokers();
    for (const broker of this.#brokers.values()) this.#publisher.send(broker, changed, UpdateMetadataType.INCREMENTAL, live, ctx);
  }

  #sendFull(broker: BrokerRegistrationState, ctx: Context): number {
    return this.#publisher.send(broker, [...this.#partitions.values()], UpdateMetadataType.FULL, this.#liveBrokers(), ctx);
  }

  #observe(registration: PartitionRegistration, reason: string, ctx: Context): void {
    const observation: ControllerPartitionObservation = {
      type: "controller.partition",
      topic: registration.topic,
      partition: registration.partition,
      leader: registration.leader,
      leaderEpoch: registration.leaderEpoch,
      isr: [...registration.isr],
      reason,
    };
    ctx.observe({ ...observation });
  }

  /** AlterPartition (Kafka's `ReplicationControlManager.alterPartition` and its validation). */
  #alterPartition(request: AlterPartitionRequest, ctx: Context): AlterPartitionResponse {
    const respond = (errorCode: number, topics: AlterPartitionResponse["topics"] = []): AlterPartitionResponse => ({
      type: "AlterPartitionResponse",
      correlationId: request.correlationId,
      throttleTimeMs: 0,
      errorCode,
      topics,
    });
    const broker = this.#brokers.get(request.brokerId);
    if (broker === undefined || broker.epoch !== request.brokerEpoch) return respond(ErrorCode.STALE_BROKER_EPOCH);
    const changed: PartitionRegistration[] = [];
    const topics: AlterPartitionResponse["topics"] = request.topics.map((topicData) => {
      const topic = [...this.#topics.values()].find((t) => t.id === topicData.topicId);
      return {
        topicId: topicData.topicId,
        partitions: topicData.partitions.map((data) => {
          const fail = (errorCode: number) => ({
            partitionIndex: data.partitionIndex,
            errorCode,
            leaderId: -1,
            leaderEpoch: -1,
            isr: [],
            leaderRecoveryState: 0,
            partitionEpoch: -1,
          });
          if (topic === undefined) return fail(ErrorCode.UNKNOWN_TOPIC_ID);
          const current = this.#partitions.get(partitionKey(topic.name, data.partitionIndex));
          if (current === undefined) return fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
          const error = this.#validateAlterPartition(request.brokerId, current, data);
          if (error !== ErrorCode.NONE) return fail(error);
          const next =
            changePartition(current, {
              targetIsr: data.newIsr,
              election: { kind: "online" },
              isAcceptableLeader: (id) => this.#isActive(id),
            }) ?? current;
          if (next !== current) changed.push(next);
          return {
            partitionIndex: data.partitionIndex,
            errorCode: ErrorCode.NONE,
            leaderId: next.leader,
            leaderEpoch: next.leaderEpoch,
            isr: [...next.isr],
            leaderRecoveryState: 0,
            partitionEpoch: next.partitionEpoch,
          };
        }),
      };
    });
    if (changed.length > 0) this.#commit(changed, `AlterPartition from broker ${request.brokerId}`, ctx);
    return respond(ErrorCode.NONE, topics);
  }

  /** CreateTopics (Kafka's `ReplicationControlManager.createTopics`, without manual assignments or configs). */
  #createTopics(request: CreateTopicsRequest, ctx: Context): CreateTopicsResponse {
    const created: PartitionRegistration[] = [];
    const unfenced = this.config.brokers.filter((b) => this.#isActive(b.nodeId));
    const topics = request.topics.map(({ name, numPartitions, replicationFactor }) => {
      const partitions = numPartitions === -1 ? this.config.settings["num.partitions"] : numPartitions;
      const replicas = replicationFactor === -1 ? this.config.settings["default.replication.factor"] : replicationFactor;
      const answer = (errorCode: number, errorMessage: string | null) => ({
        name,
        topicId: errorCode === ErrorCode.NONE ? topicIdFor(name) : "",
        errorCode,
        errorMessage,
        numPartitions: errorCode === ErrorCode.NONE ? partitions : -1,
        replicationFactor: errorCode === ErrorCode.NONE ? replicas : -1,
      });
      const invalid = invalidTopicName(name);
      if (invalid !== null) return answer(ErrorCode.INVALID_TOPIC_EXCEPTION, invalid);
      if (this.#topics.has(name)) return answer(ErrorCode.TOPIC_ALREADY_EXISTS, `Topic '${name}' already exists.`);
      if (partitions < 1) return answer(ErrorCode.INVALID_PARTITIONS, "Number of partitions was set to an invalid non-positive value.");
      if (replicas < 1 || replicas > unfenced.length) {
        return answer(
          ErrorCode.INVALID_REPLICATION_FACTOR,
          `Unable to replicate the partition ${replicas} time(s): The target replication factor of ${replicas} cannot be reached because only ${unfenced.length} broker(s) are registered.`,
        );
      }
      if (request.validateOnly) return answer(ErrorCode.NONE, null);
      const topic: TopicLayout = { name, id: topicIdFor(name), partitions, replicationFactor: replicas };
      this.#topics.set(name, topic);
      for (let p = 0; p < partitions; p++) {
        const placed = initialReplicas(p, unfenced, replicas);
        created.push({
          topic: name,
          topicId: topic.id,
          partition: p,
          replicas: placed,
          isr: placed,
          leader: placed[0] as number,
          leaderEpoch: 0,
          partitionEpoch: 0,
        });
      }
      return answer(ErrorCode.NONE, null);
    });
    if (created.length > 0) {
      this.#commit(created, "topic created", ctx);
      this.#pushCreatedTopics(ctx);
    }
    return { type: "CreateTopicsResponse", correlationId: request.correlationId, throttleTimeMs: 0, topics };
  }

  /** Sends the topics created since the start to every coordinator that has not acknowledged them all; retries later. */
  #pushCreatedTopics(ctx: Context): void {
    const configured = new Set(this.config.topics.map((t) => t.name));
    const created = [...this.#topics.values()].filter((t) => !configured.has(t.name));
    const behind = this.config.coordinators.filter((c) => (this.#coordinatorAcks.get(c) ?? 0) < created.length);
    if (behind.length === 0) {
      ctx.cancelTimer(COORDINATOR_PUSH_TIMER);
      return;
    }
    const topicStates = created.map((topic) => ({
      topicName: topic.name,
      topicId: topic.id,
      partitionStates: [...this.#partitions.values()]
        .filter((p) => p.topic === topic.name)
        .map((p) => ({
          partitionIndex: p.partition,
          controllerEpoch: this.#controllerEpoch,
          leader: p.leader,
          leaderEpoch: p.leaderEpoch,
          isr: [...p.isr],
          zkVersion: p.partitionEpoch,
          replicas: [...p.replicas],
          offlineReplicas: [],
        })),
    }));
    for (const coordinator of behind) {
      const correlationId = ++this.#correlationId;
      this.#coordinatorPushes.set(coordinator, { correlationId, topics: created.length });
      ctx.send(coordinator, {
        type: "UpdateMetadataRequest",
        correlationId,
        apiVersion: 8,
        clientId: "controller",
        controllerId: -1,
        isKRaftController: true,
        controllerEpoch: this.#controllerEpoch,
        brokerEpoch: -1,
        updateType: UpdateMetadataType.INCREMENTAL,
        topicStates,
        liveBrokers: this.#liveBrokers(),
      });
    }
    ctx.setTimer(COORDINATOR_PUSH_TIMER, ms(COORDINATOR_PUSH_RETRY_MS));
  }

  #validateAlterPartition(
    brokerId: number,
    current: PartitionRegistration,
    data: AlterPartitionRequest["topics"][number]["partitions"][number],
  ): number {
    // A leader ahead of us means we are not the active controller's view (NOT_CONTROLLER in Kafka).
    if (data.leaderEpoch > current.leaderEpoch || data.partitionEpoch > current.partitionEpoch) return ErrorCode.NOT_CONTROLLER;
    if (data.leaderEpoch < current.leaderEpoch) return ErrorCode.FENCED_LEADER_EPOCH;
    if (brokerId !== current.leader) return ErrorCode.INVALID_REQUEST;
    if (data.partitionEpoch < current.partitionEpoch) return ErrorCode.INVALID_UPDATE_VERSION;
    const distinct = new Set(data.newIsr);
    if (distinct.size !== data.newIsr.length || data.newIsr.some((id) => !current.replicas.includes(id))) return ErrorCode.INVALID_REQUEST;
    if (!distinct.has(current.leader)) return ErrorCode.INVALID_REQUEST;
    if (data.newIsr.some((id) => !this.#isActive(id))) return ErrorCode.INELIGIBLE_REPLICA;
    return ErrorCode.NONE;
  }

  control(command: ControlCommand, ctx: Context): void {
    this.#ctx = ctx;
    if (command.command !== "move-leader") return;
    const { topic, partition, to } = command;
    if (typeof topic !== "string" || typeof partition !== "number" || typeof to !== "number") {
      ctx.log.warn("move-leader needs topic (string), partition and to (numbers)", { command });
      return;
    }
    const current = this.#partitions.get(partitionKey(topic, partition));
    if (current === undefined) {
      ctx.log.warn("move-leader: unknown partition", { topic, partition });
      return;
    }
    const election: Election = { kind: "preferred", target: to };
    const next = changePartition(current, { election, isAcceptableLeader: (id) => this.#isActive(id) });
    if (next === undefined || next.leader !== to) {
      ctx.log.warn("move-leader refused: the target is not an unfenced ISR member, or already leads", { topic, partition, to });
      return;
    }
    this.#commit([next], `move-leader to broker ${to}`, ctx);
  }

  /** A partition's registration (tests and tools). */
  partition(topic: string, partition: number): PartitionRegistration | undefined {
    return this.#partitions.get(partitionKey(topic, partition));
  }

  snapshot(): JsonValue {
    return {
      controllerEpoch: this.#controllerEpoch,
      now: this.#ctx?.now() ?? 0,
      brokers: [...this.#brokers.values()].map((b) => ({
        nodeId: b.nodeId,
        epoch: b.epoch,
        fenced: b.fenced,
        lastContact: b.lastContact,
      })),
      partitions: [...this.#partitions.values()].map((p) => ({
        topic: p.topic,
        partition: p.partition,
        leader: p.leader,
        leaderEpoch: p.leaderEpoch,
        partitionEpoch: p.partitionEpoch,
        replicas: [...p.replicas],
        isr: [...p.isr],
      })),
    };
  }
}

/** Why Kafka rejects a topic name (`Topic.validate`), or null for a valid one. */
function invalidTopicName(name: string): string | null {
  if (name.length === 0) return "Topic name is illegal, it can't be empty";
  if (name === "." || name === "..") return 'Topic name cannot be "." or ".."';
  if (name.length > 249) return `Topic name is illegal, it can't be longer than 249 characters, topic name: ${name}`;
  if (!/^[a-zA-Z0-9._-]+$/.test(name))
    return `Topic name "${name}" is illegal, it contains a character other than ASCII alphanumerics, '.', '_' and '-'`;
  return null;
}

/** The controller actor factory: `(id, config) => Actor`; a bad config throws a one-line ConfigError. */
export function createController(_id: ActorId, config: JsonValue): ControllerActor {
  return new ControllerActor(parseControllerConfig(config));
}
