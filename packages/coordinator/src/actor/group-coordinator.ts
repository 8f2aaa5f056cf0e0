import {
  type Actor,
  type ActorId,
  type AddPartitionsToTxnManager,
  addPartitionsToTxnManagerFor,
  type ConsumerGroupHeartbeatRequest,
  type Context,
  type ControlCommand,
  ErrorCode,
  GROUP_METADATA_TOPIC_NAME,
  type HeartbeatRequest,
  type JoinGroupRequest,
  type JsonValue,
  type LeaveGroupRequest,
  type Message,
  type Micros,
  ms,
  type OffsetCommitRequest,
  type OffsetFetchRequest,
  partitionFor,
  SENTINEL_GUARD,
  type SyncGroupRequest,
  type TxnOffsetCommitRequest,
  tpKey,
  txnOffsetCommitTransactionOperation,
  type UpdateMetadataRequest,
  type VerificationGuard,
  type WriteTxnMarkersRequest,
} from "@kcsim/protocol";
import { heartbeat, joinGroup, syncGroup } from "../classic-group/classic-apis.js";
import { prepareRebalance, reportClassicAssignment, rescheduleHeartbeat } from "../classic-group/classic-rebalance.js";
import { isBlankGroupId, joinGroupPrecheckError } from "../classic-group/classic-request-validation.js";
import { classicHeartbeatResponse, joinGroupErrorResponse, syncGroupResponse } from "../classic-group/classic-responses.js";
import { onClassicHeartbeatExpired, onClassicJoinTimer, onClassicSyncExpired } from "../classic-group/classic-timers.js";
import { leaveGroup, leaveGroupErrorResponse } from "../classic-group/leave-group.js";
import { consumerGroupHeartbeat } from "../consumer-group/consumer-group-heartbeat.js";
import { validateConsumerGroupHeartbeat } from "../consumer-group/heartbeat-request-validation.js";
import { heartbeatErrorResponse } from "../consumer-group/heartbeat-responses.js";
import { fenceMember } from "../consumer-group/member-fencing.js";
import { MetadataImage } from "../metadata/metadata-image.js";
import type { CoordinatorLoadedObservation } from "../observations.js";
import { offsetCommit, offsetCommitErrorResponse, offsetCommitObservations } from "../offsets/offset-commit.js";
import { offsetFetch } from "../offsets/offset-fetch.js";
import {
  hasKnownPartition,
  txnOffsetCommit,
  txnOffsetCommitErrorResponse,
  txnOffsetCommitObservations,
} from "../offsets/txn-offset-commit.js";
import { writeTxnMarkers } from "../offsets/write-txn-markers.js";
import { MemberState } from "../reconciliation/member-state.js";
import { isStoredRecord, type StoredRecord, type TopicImageRecord } from "../records/coordinator-record.js";
import { replayRecord, replayRecordForGroup } from "../records/replay.js";
import { fromStoredForm } from "../records/stored-form.js";
import { APPEND_LINGER_TIMER, AppendBatcher, type Outgoing } from "../runtime/append-batcher.js";
import type { CoordinatorEnv } from "../runtime/coordinator-env.js";
import { CoordinatorError } from "../runtime/coordinator-error.js";
import { CoordinatorState } from "../runtime/coordinator-state.js";
import { GroupObserver } from "../runtime/group-observer.js";
import { type GroupTimer, GroupTimers } from "../runtime/group-timers.js";
import { memberObservation } from "../runtime/observation-builders.js";
import { operationErrorForClient } from "../runtime/operation-error.js";
import { WriteOp } from "../runtime/write-op.js";
import { CoordinatorPlacement } from "./coordinator-placement.js";
import { coordinatorSnapshot } from "./coordinator-snapshot.js";
import { findCoordinator } from "./find-coordinator.js";
import { type GroupCoordinatorConfig, parseGroupCoordinatorConfig } from "./group-coordinator-config.js";
import { topicChangeOf } from "./metadata-commands.js";

/** The actor kind scenarios name. */
export const GROUP_COORDINATOR_KIND = "group-coordinator";

/** The timer that ends the load of the log after a (re)start. */
export const COORDINATOR_LOAD_TIMER = "coordinator-load";

/** Kafka's default messages of the errors the runtime answers with. */
const NOT_COORDINATOR_MESSAGE = "This is not the correct coordinator.";
const LOAD_IN_PROGRESS_MESSAGE = "The coordinator is loading and hence can't process requests.";

/** The default load time: 100 ms plus 1 ms per 1,000 records (1 us per record). */
function defaultLoadMicros(records: number): Micros {
  return ms(100) + records;
}

/** What an operation hands back: its response (if any; others go through op.respond) and whether it goes out at once. */
interface OperationOutcome {
  readonly response: Outgoing | null;
  readonly immediate?: boolean;
}

/** A consumer-group timer: a member's session, rebalance, or (classic member) rejoin and sync deadlines. */
type ConsumerMemberTimer = Extract<GroupTimer, { kind: "session" | "rebalance" | "classic-member-join" | "classic-member-sync" }>;

/**
 * The group coordinator of KIP-848 consumer groups and classic groups
 * (Kafka's GroupCoordinatorService + CoordinatorRuntime + one
 * GroupCoordinatorShard per actor, holding every `__consumer_offsets`
 * partition placed on it).
 *
 * - FindCoordinator for every group, from the static placement.
 * - ConsumerGroupHeartbeat, JoinGroup, SyncGroup, Heartbeat, LeaveGroup,
 *   OffsetCommit, OffsetFetch, TxnOffsetCommit for the groups it hosts
 *   (NOT_COORDINATOR for others, COORDINATOR_LOAD_IN_PROGRESS while
 *   loading; a classic Heartbeat is answered NONE while loading, as Kafka
 *   does).
 * - Transactions (KIP-98, KIP-447): TxnOffsetCommit offsets stay pending
 *   per producer id until a transaction coordinator's WriteTxnMarkers for
 *   the group's `__consumer_offsets` partition commits (materialises) or
 *   aborts (drops) them; OffsetFetch with RequireStable answers
 *   UNSTABLE_OFFSET_COMMIT for partitions with pending offsets.
 * - KIP-890 part 1 (transaction.partition.verification.enable, on by
 *   default): a TxnOffsetCommit whose producer has no transaction ongoing
 *   on the group's `__consumer_offsets` partition waits while the
 *   transaction coordinator is asked whether that partition is in the
 *   producer's transaction (AddPartitionsToTxnManager); a partition outside
 *   it fails the request (INVALID_TXN_STATE below v4, TRANSACTION_ABORTABLE
 *   from v4), so a stale request cannot start a transaction of its own.
 * - KIP-890 part 2 (transaction version 2): a TxnOffsetCommit v5 asks the
 *   transaction coordinator to add that partition to the producer's
 *   transaction (its client sends no AddOffsetsToTxn), whatever
 *   transaction.partition.verification.enable says; markers of version 2
 *   get the strict epoch check of Kafka 4.2 (KIP-1228, KAFKA-19999).
 * - group.coordinator.rebalance.protocols: without `consumer`,
 *   ConsumerGroupHeartbeat is UNSUPPORTED_VERSION; without `classic`, so
 *   are JoinGroup, SyncGroup and Heartbeat (Kafka cannot disable classic).
 * - Writes are batched (group.coordinator.append.linger.ms): state changes
 *   apply at once, records reach ctx.storage at the flush, and the
 *   observations and responses of the batch are released after it
 *   (classic answers included: Kafka sends some JoinGroup answers before
 *   their records commit; here every answer waits for the open batch).
 * - A (re)start replays the whole log, answers LOAD_IN_PROGRESS for
 *   `loadMs`, then re-arms every member timer with full durations and
 *   re-emits gc.group / gc.member for what it loaded.
 */
export class GroupCoordinatorActor implements Actor {
  readonly #id: ActorId;
  readonly #config: GroupCoordinatorConfig;
  readonly #placement: CoordinatorPlacement;
  readonly #timers = new GroupTimers();
  readonly #env: CoordinatorEnv;
  #state: CoordinatorState;
  #batcher: AppendBatcher;
  #loading = true;
  #loadedRecords = 0;
  readonly #groupObserver = new GroupObserver();
  /** KIP-890's client of the transaction coordinators (verifications, and adds for transaction version 2); null without any. */
  #addPartitionsToTxnManager: AddPartitionsToTxnManager | null = null;

  constructor(id: ActorId, config: GroupCoordinatorConfig) {
    this.#id = id;
    this.#config = config;
    this.#placement = new CoordinatorPlacement(config.coordinators, config.broker["offsets.topic.num.partitions"]);
    this.#env = { broker: config.broker, timers: this.#timers, bugs: config.plantedBugs };
    this.#state = new CoordinatorState(new MetadataImage(config.topics), config.broker["offsets.topic.num.partitions"]);
    this.#batcher = new AppendBatcher(ms(config.broker["group.coordinator.append.linger.ms"]));
  }

  start(ctx: Context): void {
    // Replay the whole log; nothing is served until the load completes.
    this.#state = new CoordinatorState(new MetadataImage(this.#config.topics), this.#config.broker["offsets.topic.num.partitions"]);
    this.#batcher = new AppendBatcher(ms(this.#config.broker["group.coordinator.append.linger.ms"]));
    this.#addPartitionsToTxnManager = addPartitionsToTxnManagerFor(this.#config.broker, this.#config.txnCoordinators);
    const records = this.#readLog(ctx);
    records.forEach((record, recordOffset) => {
      replayRecord(this.#state, record, recordOffset);
    });
    this.#loadedRecords = records.length;
    this.#loading = true;
    const loadMicros = this.#config.loadMs === null ? defaultLoadMicros(records.length) : ms(this.#config.loadMs);
    if (loadMicros <= 0) this.#finishLoading(ctx);
    else ctx.setTimer(COORDINATOR_LOAD_TIMER, loadMicros);
  }

  receive(from: ActorId, message: Message, ctx: Context): void {
    switch (message.type) {
      case "FindCoordinatorRequest":
        ctx.send(from, findCoordinator(this.#placement, message));
        return;
      case "ConsumerGroupHeartbeatRequest":
        this.#onConsumerGroupHeartbeat(from, message, ctx);
        return;
      case "OffsetCommitRequest":
        this.#onOffsetCommit(from, message, ctx);
        return;
      case "OffsetFetchRequest":
        this.#onOffsetFetch(from, message, ctx);
        return;
      case "JoinGroupRequest":
        this.#onJoinGroup(from, message, ctx);
        return;
      case "SyncGroupRequest":
        this.#onSyncGroup(from, message, ctx);
        return;
      case "HeartbeatRequest":
        this.#onClassicHeartbeat(from, message, ctx);
        return;
      case "LeaveGroupRequest":
        this.#onLeaveGroup(from, message, ctx);
        return;
      case "TxnOffsetCommitRequest":
        this.#onTxnOffsetCommit(from, message, ctx);
        return;
      case "WriteTxnMarkersRequest":
        this.#onWriteTxnMarkers(from, message, ctx);
        return;
      case "UpdateMetadataRequest":
        this.#onUpdateMetadata(from, message, ctx);
        return;
      case "AddPartitionsToTxnBrokerResponse":
      case "SimDisconnect":
        this.#addPartitionsToTxnManager?.receive(from, message, ctx);
        return;
      default:
        ctx.log.debug("group coordinator ignores a message", { type: message.type, from });
    }
  }

  fire(timer: string, ctx: Context): void {
    if (timer === COORDINATOR_LOAD_TIMER) {
      this.#finishLoading(ctx);
      return;
    }
    if (timer === APPEND_LINGER_TIMER) {
      this.#batcher.flush(ctx);
      return;
    }
    if (this.#addPartitionsToTxnManager?.onTimer(timer, ctx)) return;
    const groupTimer = this.#timers.take(timer);
    if (groupTimer === undefined) return;
    this.#write(ctx, (op) => {
      this.#onGroupTimer(op, groupTimer);
      return { response: null };
    });
  }

  control(command: ControlCommand, ctx: Context): void {
    let topic: ReturnType<typeof topicChangeOf>;
    try {
      topic = topicChangeOf(command, this.#state.image);
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      ctx.log.warn(`group coordinator ignores a bad command: ${error.message}`, { command: command.command });
      return;
    }
    if (topic === null) return;
    this.#applyTopic(topic, ctx);
  }

  /** A topic's new image (created, or more partitions): durable at once, and groups subscribed to it refresh. */
  #applyTopic(topic: TopicImageRecord["topic"], ctx: Context): void {
    // The metadata image is durable (KRaft's log in Kafka): keep it in storage at once, outside the batches.
    const record: TopicImageRecord = { type: "kcsim.TopicImage", topic };
    ctx.storage.append(record);
    this.#state.image.apply(topic);
    // Groups subscribed to the topic refresh their subscription metadata on their next heartbeat.
    for (const group of this.#state.groups.values()) {
      if (group.protocol === "consumer" && group.subscribedTopicNames().has(topic.name)) group.metadataRefreshedAtEpoch = null;
    }
  }

  /**
   * The controller's push of topics created while the cluster runs (CreateTopics, auto-creation): the
   * coordinator's metadata image learns them, as a Kafka broker's coordinators read the metadata log.
   * A topic already known with at least as many partitions changes nothing.
   */
  #onUpdateMetadata(from: ActorId, request: UpdateMetadataRequest, ctx: Context): void {
    for (const topic of request.topicStates) {
      const partitions = Math.max(0, ...topic.partitionStates.map((p) => p.partitionIndex + 1));
      const known = this.#state.image.topic(topic.topicName);
      if (partitions === 0 || (known !== undefined && known.id === topic.topicId && known.partitions >= partitions)) continue;
      this.#applyTopic({ name: topic.topicName, id: topic.topicId, partitions }, ctx);
    }
    ctx.send(from, { type: "UpdateMetadataResponse", correlationId: request.correlationId, errorCode: ErrorCode.NONE });
  }

  snapshot(): JsonValue {
    return coordinatorSnapshot(this.#state, this.#timers, {
      loading: this.#loading,
      pendingRecords: this.#batcher.pendingRecords().length,
    });
  }

  // ---- requests ----

  #onConsumerGroupHeartbeat(from: ActorId, request: ConsumerGroupHeartbeatRequest, ctx: Context): void {
    const reply = (errorCode: number, message: string | null): void => ctx.send(from, heartbeatErrorResponse(request, errorCode, message));
    if (!this.#config.broker["group.coordinator.rebalance.protocols"].includes("consumer")) {
      reply(ErrorCode.UNSUPPORTED_VERSION, "The consumer rebalance protocol is not enabled (group.coordinator.rebalance.protocols).");
      return;
    }
    try {
      validateConsumerGroupHeartbeat(request, this.#config.broker["group.consumer.assignors"]);
    } catch (error) {
      if (!(error instanceof CoordinatorError)) throw error;
      reply(error.errorCode, error.message);
      return;
    }
    const placementError = this.#groupError(request.groupId);
    if (placementError !== ErrorCode.NONE) {
      reply(placementError, placementError === ErrorCode.NOT_COORDINATOR ? NOT_COORDINATOR_MESSAGE : LOAD_IN_PROGRESS_MESSAGE);
      return;
    }
    this.#write(
      ctx,
      (op) => ({ response: { to: from, message: consumerGroupHeartbeat(op, this.#env, from, request) } }),
      (error) => ({ to: from, message: heartbeatErrorResponse(request, error.errorCode, error.message) }),
    );
  }

  #onOffsetCommit(from: ActorId, request: OffsetCommitRequest, ctx: Context): void {
    const placementError = this.#groupError(request.groupId);
    if (placementError !== ErrorCode.NONE) {
      const response = offsetCommitErrorResponse(request, placementError);
      for (const observation of offsetCommitObservations(request, response)) ctx.observe(observation);
      ctx.send(from, response);
      return;
    }
    this.#write(ctx, (op) => {
      const outcome = offsetCommit(op, this.#env, request);
      return { response: { to: from, message: outcome.response }, immediate: outcome.immediate };
    });
  }

  #onTxnOffsetCommit(from: ActorId, request: TxnOffsetCommitRequest, ctx: Context): void {
    // The context of the event that answers: the request's, or a later one's once a verification ends.
    const reject = (errorCode: number, answerCtx: Context): Outgoing => {
      const response = txnOffsetCommitErrorResponse(request, this.#state.image, errorCode);
      for (const observation of txnOffsetCommitObservations(request, response)) answerCtx.observe(observation);
      return { to: from, message: response };
    };
    const error = isBlankGroupId(request.groupId) ? ErrorCode.INVALID_GROUP_ID : this.#groupError(request.groupId);
    if (error !== ErrorCode.NONE) {
      const { to, message } = reject(error, ctx);
      ctx.send(to, message);
      return;
    }
    // Whether the log checks a write's verification guard (transaction.partition.verification.enable).
    const manager = this.#addPartitionsToTxnManager;
    const verificationEnabled = manager !== null && this.#config.broker["transaction.partition.verification.enable"];
    const write = (writeCtx: Context, guard: VerificationGuard): void =>
      this.#write(
        writeCtx,
        (op) => {
          const outcome = txnOffsetCommit(op, this.#env, request, { enabled: verificationEnabled, guard });
          return { response: { to: from, message: outcome.response }, immediate: outcome.immediate };
        },
        (failure) => reject(failure.errorCode, writeCtx),
      );
    const partition = partitionFor(request.groupId, this.#config.broker["offsets.topic.num.partitions"]);
    const operation = txnOffsetCommitTransactionOperation(request.apiVersion);
    // A request with no partition the metadata knows is answered without a verification (KafkaApis answers it itself).
    if (manager === null || !hasKnownPartition(this.#state.image, request)) {
      write(ctx, SENTINEL_GUARD);
      return;
    }
    if (operation === "addPartition") {
      // Kafka 4.x's UnifiedLog#maybeStartTransactionVerification: an epoch older than the partition's is refused at once
      // (KAFKA-18042); a transaction ongoing there at the request's epoch needs no add (KAFKA-18575).
      const partitionEpoch = this.#state.producers.epochOn(partition, request.producerId);
      if (partitionEpoch !== undefined && request.producerEpoch < partitionEpoch) {
        const { to, message } = reject(ErrorCode.INVALID_PRODUCER_EPOCH, ctx);
        ctx.send(to, message);
        return;
      }
      if (this.#state.producers.hasOngoingTransactionAtEpoch(partition, request.producerId, request.producerEpoch)) {
        write(ctx, SENTINEL_GUARD);
        return;
      }
    } else if (!verificationEnabled || this.#state.producers.hasOngoingTransaction(partition, request.producerId)) {
      // Before transaction version 2 nothing is asked when verification is off (ReplicaManager#maybeSendPartitionsToTransactionCoordinator).
      write(ctx, SENTINEL_GUARD);
      return;
    }
    // Kafka's CoordinatorRuntime.scheduleTransactionalWriteOperation: verify (v5: add), then write with the guard.
    const guard = this.#state.producers.startVerification(
      partition,
      request.producerId,
      request.producerEpoch,
      operation === "addPartition",
    );
    const verifiedPartition = { topic: GROUP_METADATA_TOPIC_NAME, partition };
    manager.verifyTransaction(
      ctx,
      {
        transactionalId: request.transactionalId,
        producerId: request.producerId,
        producerEpoch: request.producerEpoch,
        partitions: [verifiedPartition],
      },
      operation,
      (errors, answerCtx) => {
        // The group's placement and the load were checked when the request came; neither changes within an incarnation.
        // Errors are mapped as CoordinatorOperationExceptionHelper does; unlike a leader's produce, the group
        // coordinator does not retry CONCURRENT_TRANSACTIONS itself.
        const failure = errors.get(tpKey(verifiedPartition.topic, verifiedPartition.partition));
        if (failure === undefined) {
          write(answerCtx, guard);
          return;
        }
        const { to, message } = reject(operationErrorForClient(failure), answerCtx);
        answerCtx.send(to, message);
      },
    );
  }

  /**
   * WriteTxnMarkers from a transaction coordinator, for the
   * `__consumer_offsets` partitions this coordinator hosts (others, and all
   * while loading: NOT_LEADER_OR_FOLLOWER).
   */
  #onWriteTxnMarkers(from: ActorId, request: WriteTxnMarkersRequest, ctx: Context): void {
    const placementError = (partition: number): number =>
      this.#loading || this.#placement.ownerOfPartition(partition) !== this.#id ? ErrorCode.NOT_LEADER_OR_FOLLOWER : ErrorCode.NONE;
    this.#write(ctx, (op) => ({ response: { to: from, message: writeTxnMarkers(op, request, placementError) } }));
  }

  #onOffsetFetch(from: ActorId, request: OffsetFetchRequest, ctx: Context): void {
    const response = offsetFetch(this.#state, request, (groupId) => this.#groupError(groupId));
    if (
      response.groups.every(
        (group) => group.errorCode === ErrorCode.NOT_COORDINATOR || group.errorCode === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
      )
    ) {
      ctx.send(from, response);
      return;
    }
    // A read: answered after the open batch, if any (it may have read what the batch writes).
    this.#batcher.complete(ctx, { records: [], observations: [], responses: [{ to: from, message: response }], immediate: false });
  }

  #onJoinGroup(from: ActorId, request: JoinGroupRequest, ctx: Context): void {
    const error = this.#classicProtocolError() || joinGroupPrecheckError(request, this.#config.broker) || this.#groupError(request.groupId);
    if (error !== ErrorCode.NONE) {
      ctx.send(from, joinGroupErrorResponse(request, error));
      return;
    }
    this.#write(
      ctx,
      (op) => {
        joinGroup(op, this.#env, from, request);
        return { response: null };
      },
      (failure) => ({ to: from, message: joinGroupErrorResponse(request, failure.errorCode) }),
    );
  }

  #onSyncGroup(from: ActorId, request: SyncGroupRequest, ctx: Context): void {
    const error =
      this.#classicProtocolError() || (isBlankGroupId(request.groupId) ? ErrorCode.INVALID_GROUP_ID : this.#groupError(request.groupId));
    if (error !== ErrorCode.NONE) {
      ctx.send(from, syncGroupResponse(request, error));
      return;
    }
    this.#write(
      ctx,
      (op) => {
        syncGroup(op, this.#env, from, request);
        return { response: null };
      },
      (failure) => ({ to: from, message: syncGroupResponse(request, failure.errorCode) }),
    );
  }

  #onClassicHeartbeat(from: ActorId, request: HeartbeatRequest, ctx: Context): void {
    const error =
      this.#classicProtocolError() || (isBlankGroupId(request.groupId) ? ErrorCode.INVALID_GROUP_ID : this.#groupError(request.groupId));
    // Kafka answers a classic heartbeat blindly with NONE while the coordinator loads.
    if (error === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS) {
      ctx.send(from, classicHeartbeatResponse(request, ErrorCode.NONE));
      return;
    }
    if (error !== ErrorCode.NONE) {
      ctx.send(from, classicHeartbeatResponse(request, error));
      return;
    }
    this.#write(
      ctx,
      (op) => {
        heartbeat(op, this.#env, from, request);
        return { response: null };
      },
      (failure) => ({ to: from, message: classicHeartbeatResponse(request, failure.errorCode) }),
    );
  }

  /** LeaveGroup is served whatever the protocols: an admin also removes static consumer-group members with it. */
  #onLeaveGroup(from: ActorId, request: LeaveGroupRequest, ctx: Context): void {
    const error = isBlankGroupId(request.groupId) ? ErrorCode.INVALID_GROUP_ID : this.#groupError(request.groupId);
    if (error !== ErrorCode.NONE) {
      ctx.send(from, leaveGroupErrorResponse(request, error));
      return;
    }
    this.#write(
      ctx,
      (op) => ({ response: { to: from, message: leaveGroup(op, this.#env, request) } }),
      (failure) => ({ to: from, message: leaveGroupErrorResponse(request, failure.errorCode) }),
    );
  }

  // ---- timers ----

  #onGroupTimer(op: WriteOp, timer: GroupTimer): void {
    switch (timer.kind) {
      case "classic-heartbeat":
        onClassicHeartbeatExpired(op, this.#env, timer.groupId, timer.memberId);
        return;
      case "classic-join":
        onClassicJoinTimer(op, this.#env, timer.groupId, timer.initialDelay);
        return;
      case "classic-sync":
        onClassicSyncExpired(op, this.#env, timer.groupId, timer.generationId);
        return;
      default:
        this.#onConsumerMemberTimer(op, timer);
    }
  }

  /**
   * A consumer-group member's timer: a session timeout fences the member; a
   * rebalance timeout fences it if it is still at the epoch it was armed
   * for; a classic member's rejoin and sync deadlines fence it.
   */
  #onConsumerMemberTimer(op: WriteOp, timer: ConsumerMemberTimer): void {
    const group = op.state.groups.consumerGroup(timer.groupId);
    const member = group?.member(timer.memberId);
    if (group === undefined || member === undefined) return;
    const fields = { groupId: group.groupId, memberId: member.memberId };
    switch (timer.kind) {
      case "session":
        // Planted bug: the expired member stays in the group with its partitions.
        if (this.#env.bugs.has("skip-fencing-on-session-expiry")) return;
        op.ctx.log.info("member fenced: session expired", fields);
        fenceMember(op, this.#env, group, member, "session-timeout");
        return;
      case "rebalance":
        if (member.memberEpoch !== timer.memberEpoch) return;
        op.ctx.log.info("member fenced: revocation not acknowledged within the rebalance timeout", {
          ...fields,
          memberEpoch: member.memberEpoch,
        });
        fenceMember(op, this.#env, group, member, "rebalance-timeout");
        return;
      case "classic-member-join":
        op.ctx.log.info("classic member fenced: it did not rejoin within its rebalance timeout", fields);
        fenceMember(op, this.#env, group, member, "rebalance-timeout");
        return;
      case "classic-member-sync":
        op.ctx.log.info("classic member fenced: it did not sync within its rebalance timeout", fields);
        fenceMember(op, this.#env, group, member, "sync-timeout");
        return;
    }
  }

  // ---- the runtime ----

  /** UNSUPPORTED_VERSION when group.coordinator.rebalance.protocols leaves out `classic`, else 0. */
  #classicProtocolError(): number {
    return this.#config.broker["group.coordinator.rebalance.protocols"].includes("classic")
      ? ErrorCode.NONE
      : ErrorCode.UNSUPPORTED_VERSION;
  }

  /** NOT_COORDINATOR when another coordinator hosts the group, COORDINATOR_LOAD_IN_PROGRESS while loading, else 0. */
  #groupError(groupId: string): number {
    if (this.#placement.ownerOf(groupId) !== this.#id) return ErrorCode.NOT_COORDINATOR;
    if (this.#loading) return ErrorCode.COORDINATOR_LOAD_IN_PROGRESS;
    return ErrorCode.NONE;
  }

  /**
   * Runs one write operation. On success its records join the open batch
   * and its gc.group changes, observations and responses go out with the
   * batch. A CoordinatorError rolls back every group the operation touched
   * and is answered at once (with any parked request the operation had
   * already answered: those answers, like Kafka's completed futures, stand).
   */
  #write(ctx: Context, body: (op: WriteOp) => OperationOutcome, onError?: (error: CoordinatorError) => Outgoing | null): void {
    const op = new WriteOp(this.#state, ctx, ctx.now(), ctx.storage.length + this.#batcher.pendingRecords().length);
    let outcome: OperationOutcome;
    try {
      outcome = body(op);
    } catch (error) {
      if (!(error instanceof CoordinatorError)) throw error;
      this.#rollback(ctx, op);
      const response = onError?.(error) ?? null;
      const responses = response === null ? op.responses : [...op.responses, response];
      this.#batcher.complete(ctx, { records: [], observations: [], responses, immediate: true });
      return;
    }
    const observations = [...this.#groupObserver.changes(this.#state.groups, op.touchedGroups), ...op.observations];
    const responses = outcome.response === null ? op.responses : [...op.responses, outcome.response];
    this.#batcher.complete(ctx, { records: op.records, observations, responses, immediate: outcome.immediate ?? false });
  }

  /**
   * Undoes a failed operation (Kafka reverts to its timeline snapshot): each
   * group it touched is rebuilt from its records, durable and pending. A
   * classic group is not timeline-backed in Kafka either: the very object
   * the operation started from is put back as it is.
   */
  #rollback(ctx: Context, op: WriteOp): void {
    if (op.touchedGroups.size === 0) return;
    const records: StoredRecord[] = [...this.#readLog(ctx), ...this.#batcher.pendingRecords()];
    for (const groupId of op.touchedGroups) {
      const before = op.groupsBefore.get(groupId);
      this.#state.groups.delete(groupId);
      this.#state.offsets.deleteGroup(groupId);
      records.forEach((record, recordOffset) => {
        replayRecordForGroup(this.#state, record, recordOffset, groupId);
      });
      if (before?.protocol === "classic" && !before.isSimpleGroup()) this.#state.groups.put(before);
    }
  }

  #readLog(ctx: Context): StoredRecord[] {
    const records = ctx.storage.readAll().map(fromStoredForm);
    records.forEach((record, index) => {
      if (!isStoredRecord(record)) throw new Error(`group coordinator ${this.#id}: record ${index} of the log is not a coordinator record`);
    });
    return records as StoredRecord[];
  }

  /**
   * Kafka's `onLoaded`: fresh timers for every member (consumer-group
   * members, classic members of consumer groups included, get the group's
   * session timeout as in Kafka; classic members their own), a classic
   * group over group.max.size rebalances, then the loaded state is reported.
   */
  #finishLoading(ctx: Context): void {
    ctx.cancelTimer(COORDINATOR_LOAD_TIMER);
    this.#loading = false;
    const sessionTimeoutMs = this.#config.broker["group.consumer.session.timeout.ms"];
    const overCapacity: string[] = [];
    for (const group of this.#state.groups.values()) {
      if (group.protocol === "classic") {
        if (group.numMembers > this.#config.broker["group.max.size"]) overCapacity.push(group.groupId);
        continue;
      }
      group.metadataRefreshedAtEpoch = null;
      // Planted bug: loaded members get no timers; one that never heartbeats again is never fenced.
      if (this.#env.bugs.has("forget-timers-after-failover")) continue;
      for (const member of group.members().values()) {
        this.#timers.scheduleSession(ctx, group.groupId, member.memberId, sessionTimeoutMs);
        if (member.state === MemberState.UNREVOKED_PARTITIONS) {
          this.#timers.scheduleRebalance(ctx, group.groupId, member.memberId, member.memberEpoch, member.rebalanceTimeoutMs);
        }
      }
    }
    const loaded: CoordinatorLoadedObservation = { type: "gc.loaded", records: this.#loadedRecords, groups: this.#state.groups.size };
    ctx.observe({ ...loaded });
    for (const group of this.#state.groups.values()) {
      for (const observation of this.#groupObserver.changes(this.#state.groups, [group.groupId])) ctx.observe(observation);
      if (group.protocol !== "consumer") continue;
      for (const member of group.members().values()) ctx.observe(memberObservation(group, member, this.#state.image));
    }
    this.#write(ctx, (op) => {
      for (const group of this.#state.groups.values()) {
        if (group.protocol !== "classic") continue;
        for (const member of group.members().values()) {
          rescheduleHeartbeat(op, this.#env, group, member);
          reportClassicAssignment(op, group, member);
        }
      }
      return { response: null };
    });
    for (const groupId of overCapacity) {
      this.#write(ctx, (op) => {
        const group = op.state.groups.classicGroup(groupId);
        if (group?.canRebalance()) {
          op.touch(groupId);
          prepareRebalance(op, this.#env, group, `the loaded group is over group.max.size (${group.numMembers} members)`);
        }
        return { response: null };
      });
    }
  }
}

/** The actor factory for kind "group-coordinator" (config: GroupCoordinatorConfigJson). */
export function createGroupCoordinator(id: ActorId, config: JsonValue): Actor {
  return new GroupCoordinatorActor(id, parseGroupCoordinatorConfig(id, config));
}
