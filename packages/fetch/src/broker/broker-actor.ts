import type {
  Actor,
  ActorId,
  Context,
  ControlCommand,
  InitProducerIdRequest,
  InitProducerIdResponse,
  JsonValue,
  Message,
  MetadataRequest,
  MetadataResponse,
} from "@kcsim/protocol";
import { ConfigError, disconnects, ErrorCode, ms, type SimDisconnect, type UpdateMetadataRequest } from "@kcsim/protocol";
import { ALTER_PARTITION_CONNECTION, ALTER_PARTITION_TIMER, AlterPartitionManager } from "./alter-partition-manager.js";
import { type BrokerActorConfig, parseBrokerActorConfig } from "./broker-actor-config.js";
import { BrokerLifecycleManager, LIFECYCLE_TIMER } from "./broker-lifecycle-manager.js";
import type { BrokerStorageRecord } from "./broker-storage.js";
import { ProducerIdManager } from "./producer-id-manager.js";
import { REPLICA_FETCHER_CONNECTION } from "./replica-fetcher.js";
import { ReplicaManager } from "./replica-manager.js";

const ISR_EXPIRATION_TIMER = "isr-expiration";
const HW_CHECKPOINT_TIMER = "hw-checkpoint";
const RETENTION_TIMER = "log-retention";

/**
 * A Kafka broker (actor kind "broker", ids like "broker-0") for the data
 * path: partition logs (surviving crashes through ctx.storage), leadership
 * and replication as the KRaft controller decides (UpdateMetadata,
 * AlterPartition, BrokerRegistration/BrokerHeartbeat), and the client APIs
 * Produce (idempotent and transactional: per-partition producer state; a
 * transaction's first batch on a partition verified with its transaction
 * coordinator, KIP-890 part 1, or for a producer of transaction version 2
 * added to its transaction there, KIP-890 part 2, when `txnCoordinators`
 * are configured),
 * Fetch (KIP-227 sessions, read_committed up to the last stable offset),
 * ListOffsets, OffsetForLeaderEpoch and Metadata; WriteTxnMarkers from
 * transaction coordinators; InitProducerId for idempotent producers (no
 * transactional id: a fresh producer id from this broker's own range; with
 * a transactional id, NOT_COORDINATOR: transaction coordinators are
 * separate actors here).
 *
 * On its very first start a broker takes the initial placement (the
 * controller's rule) as its metadata and serves at once; after a restart it
 * rebuilds its logs from storage and waits for the controller's metadata
 * before it leads or follows anything.
 *
 * A SimDisconnect from a peer whose process is not running fails this
 * broker's requests in flight to it at once, as Kafka's NetworkClient does
 * on a disconnect: the replica fetchers' requests to that leader, and
 * AlterPartition to the controller. (Registration and heartbeats need
 * nothing: the lifecycle timer always holds the next attempt.) A reset from
 * a client, or one with nothing in flight, changes nothing.
 *
 * Control command: `{"command": "delete-records", "topic", "partition",
 * "offset"}` moves a partition's log start on its leader (-1: to the high
 * watermark), as the DeleteRecords API does.
 */
export class BrokerActor implements Actor {
  readonly config: BrokerActorConfig;
  readonly #host: ActorId;
  #ctx: Context | null = null;
  #correlationId = 0;
  readonly replicaManager: ReplicaManager;
  readonly #alterPartitions: AlterPartitionManager;
  readonly #lifecycle: BrokerLifecycleManager;
  readonly #producerIds: ProducerIdManager;

  constructor(id: ActorId, config: BrokerActorConfig) {
    this.config = config;
    this.#host = id;
    this.#producerIds = new ProducerIdManager(config.brokerId);
    const self = config.brokers.find((b) => b.nodeId === config.brokerId);
    if (self !== undefined && self.host !== id) {
      throw new ConfigError(`broker config: 'brokers' lists node ${config.brokerId} at host "${self.host}", but this actor is "${id}"`);
    }
    const nextCorrelationId = () => ++this.#correlationId;
    this.replicaManager = new ReplicaManager(config, {
      ctx: () => this.#context(),
      nextCorrelationId,
      submitAlterPartition: (partition, proposal) => this.#alterPartitions.submit(partition, proposal, this.#context()),
    });
    this.#alterPartitions = new AlterPartitionManager({
      brokerId: config.brokerId,
      controller: config.controller,
      brokerEpoch: () => this.#lifecycle.brokerEpoch,
      nextCorrelationId,
      requestTimeout: ms(config.settings["controller.socket.timeout.ms"]),
      onOutcome: (partition, proposal, outcome) =>
        this.replicaManager.onAlterPartitionOutcome(partition, proposal, outcome, this.#context()),
    });
    this.#lifecycle = new BrokerLifecycleManager(
      config.brokerId,
      id,
      config.controller,
      config.settings["broker.heartbeat.interval.ms"],
      () => this.replicaManager.metadataCache.appliedOffset,
      nextCorrelationId,
    );
  }

  #context(): Context {
    if (this.#ctx === null) throw new Error("broker used before start");
    return this.#ctx;
  }

  start(ctx: Context): void {
    this.#ctx = ctx;
    // A fresh range of correlation ids per incarnation, so answers meant for the crashed one never match.
    this.#correlationId = Math.floor(ctx.random() * 2 ** 30);
    const records = ctx.storage.readAll() as BrokerStorageRecord[];
    const rm = this.replicaManager;
    if (!records.some((r) => "boot" in r)) {
      const marker: BrokerStorageRecord = { boot: true };
      ctx.storage.append(marker);
      rm.applyPartitionStates(rm.metadataCache.bootstrap(this.config), ctx);
    } else {
      rm.recover(records);
    }
    this.#producerIds.recover(records);
    const settings = this.config.settings;
    ctx.setTimer(ISR_EXPIRATION_TIMER, ms(settings["replica.lag.time.max.ms"] / 2));
    ctx.setTimer(HW_CHECKPOINT_TIMER, ms(settings["replica.high.watermark.checkpoint.interval.ms"]));
    ctx.setTimer(RETENTION_TIMER, ms(settings["log.retention.check.interval.ms"]));
    this.#lifecycle.start(ctx);
  }

  receive(from: ActorId, message: Message, ctx: Context): void {
    this.#ctx = ctx;
    const rm = this.replicaManager;
    switch (message.type) {
      case "ProduceRequest":
        rm.handleProduce(from, message, ctx);
        return;
      case "FetchRequest":
        rm.handleFetch(from, message, ctx);
        return;
      case "ListOffsetsRequest":
        ctx.send(from, rm.handleListOffsets(message));
        return;
      case "OffsetForLeaderEpochRequest":
        ctx.send(from, rm.handleOffsetForLeaderEpoch(message));
        return;
      case "MetadataRequest":
        ctx.send(from, this.#metadataResponse(message));
        return;
      case "WriteTxnMarkersRequest":
        rm.handleWriteTxnMarkers(from, message, ctx);
        return;
      case "InitProducerIdRequest":
        ctx.send(from, this.#initProducerId(message, ctx));
        return;
      case "UpdateMetadataRequest":
        this.#updateMetadata(from, message, ctx);
        return;
      case "FetchResponse":
        rm.fetchers.onFetchResponse(message, ctx);
        return;
      case "OffsetForLeaderEpochResponse":
        rm.fetchers.onOffsetForLeaderEpochResponse(message, ctx);
        return;
      case "ListOffsetsResponse":
        rm.fetchers.onListOffsetsResponse(message, ctx);
        return;
      case "AlterPartitionResponse":
        this.#alterPartitions.onResponse(message, ctx);
        return;
      case "BrokerRegistrationResponse":
        if (this.#lifecycle.onRegistrationResponse(message, ctx)) this.#alterPartitions.maybeSend(ctx);
        return;
      case "BrokerHeartbeatResponse":
        this.#lifecycle.onHeartbeatResponse(message, ctx);
        return;
      case "AddPartitionsToTxnBrokerResponse":
        rm.onVerificationMessage(from, message, ctx);
        return;
      case "SimDisconnect":
        this.#disconnected(from, message, ctx);
        return;
      default:
        ctx.log.debug("broker ignores message", { type: message.type, from });
    }
  }

  /** A connection of this broker's to `peer` is gone: what it had in flight on it fails as a disconnect. */
  #disconnected(peer: ActorId, message: SimDisconnect, ctx: Context): void {
    // A datagram-mode reset ("*") concerns every connection to the peer: each client hears it.
    this.replicaManager.onVerificationMessage(peer, message, ctx);
    const fetches = disconnects(message, REPLICA_FETCHER_CONNECTION) && this.replicaManager.fetchers.disconnected(peer, ctx);
    const alterPartition =
      peer === this.config.controller && disconnects(message, ALTER_PARTITION_CONNECTION) && this.#alterPartitions.disconnected(ctx);
    if (fetches || alterPartition) ctx.log.debug("connection reset by peer", { peer, fetches, alterPartition });
  }

  /**
   * InitProducerId without a transactional id (Kafka's
   * `TransactionCoordinator.handleInitProducerId` for a null id): always a
   * new producer id at epoch 0, whatever id and epoch the producer had.
   */
  #initProducerId(request: InitProducerIdRequest, ctx: Context): InitProducerIdResponse {
    const answer = (errorCode: number, producerId: number, producerEpoch: number): InitProducerIdResponse => ({
      type: "InitProducerIdResponse",
      correlationId: request.correlationId,
      throttleTimeMs: 0,
      errorCode,
      producerId,
      producerEpoch,
    });
    if (request.transactionalId !== null) return answer(ErrorCode.NOT_COORDINATOR, -1, -1);
    return answer(ErrorCode.NONE, this.#producerIds.generate(ctx.storage), 0);
  }

  #metadataResponse(request: MetadataRequest): MetadataResponse {
    const cache = this.replicaManager.metadataCache;
    return {
      type: "MetadataResponse",
      correlationId: request.correlationId,
      throttleTimeMs: 0,
      brokers: [...cache.liveBrokers()],
      controllerId: cache.controllerId,
      topics: cache.describeTopics(request),
    };
  }

  #updateMetadata(from: ActorId, request: UpdateMetadataRequest, ctx: Context): void {
    const changes = this.replicaManager.metadataCache.update(request);
    if (changes !== undefined) this.replicaManager.applyPartitionStates(changes, ctx);
    ctx.send(from, {
      type: "UpdateMetadataResponse",
      correlationId: request.correlationId,
      errorCode: changes === undefined ? ErrorCode.STALE_CONTROLLER_EPOCH : ErrorCode.NONE,
    });
  }

  fire(timer: string, ctx: Context): void {
    this.#ctx = ctx;
    const rm = this.replicaManager;
    const settings = this.config.settings;
    switch (timer) {
      case LIFECYCLE_TIMER:
        this.#lifecycle.onTimer(ctx);
        return;
      case ALTER_PARTITION_TIMER:
        this.#alterPartitions.onTimer(ctx);
        return;
      case ISR_EXPIRATION_TIMER:
        rm.maybeShrinkIsr();
        ctx.setTimer(ISR_EXPIRATION_TIMER, ms(settings["replica.lag.time.max.ms"] / 2));
        return;
      case HW_CHECKPOINT_TIMER:
        rm.checkpointHighWatermarks();
        ctx.setTimer(HW_CHECKPOINT_TIMER, ms(settings["replica.high.watermark.checkpoint.interval.ms"]));
        return;
      case RETENTION_TIMER:
        rm.deleteOldSegments(ctx);
        ctx.setTimer(RETENTION_TIMER, ms(settings["log.retention.check.interval.ms"]));
        return;
      default:
        if (!rm.onFetcherTimer(timer, ctx) && !rm.onVerificationTimer(timer, ctx)) rm.onDelayedTimer(timer, ctx);
    }
  }

  control(command: ControlCommand, ctx: Context): void {
    this.#ctx = ctx;
    if (command.command !== "delete-records") return;
    const { topic, partition, offset } = command;
    if (typeof topic !== "string" || typeof partition !== "number" || typeof offset !== "number") {
      ctx.log.warn("delete-records needs topic (string), partition and offset (numbers)", { command });
      return;
    }
    const errorCode = this.replicaManager.deleteRecords(topic, partition, offset, ctx);
    if (errorCode !== ErrorCode.NONE) ctx.log.warn("delete-records refused", { topic, partition, offset, errorCode });
  }

  snapshot(): JsonValue {
    const rm = this.replicaManager;
    const now = this.#ctx?.now() ?? 0;
    const metrics = rm.fetchManager.cache.metrics(now);
    return {
      brokerId: this.config.brokerId,
      brokerEpoch: this.#lifecycle.brokerEpoch,
      fenced: this.#lifecycle.fenced,
      partitions: rm.partitions().map((p) => ({
        topic: p.topic,
        partition: p.index,
        role: p.role,
        leader: p.leaderId,
        leaderEpoch: p.leaderEpoch,
        partitionEpoch: p.partitionEpoch,
        isr: [...p.isr],
        isrState: p.isrState.kind,
        logStartOffset: p.log.logStartOffset,
        logEndOffset: p.log.logEndOffset,
        highWatermark: p.log.highWatermark,
        lastStableOffset: p.log.lastStableOffset,
      })),
      followers: rm.fetchers.states(),
      parked: rm.parked,
      alterPartitionsPending: this.#alterPartitions.pending,
      fetchSessionCache: {
        NumIncrementalFetchSessions: metrics.NumIncrementalFetchSessions,
        NumIncrementalFetchPartitionsCached: metrics.NumIncrementalFetchPartitionsCached,
        IncrementalFetchSessionEvictionsPerSec: { ...metrics.IncrementalFetchSessionEvictionsPerSec },
      },
    };
  }
}

/** The broker actor factory: `(id, config) => Actor`; a bad config throws a one-line ConfigError. */
export function createBroker(id: ActorId, config: JsonValue): BrokerActor {
  return new BrokerActor(id, parseBrokerActorConfig(config));
}
