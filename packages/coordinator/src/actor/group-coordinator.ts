import {
  type Actor,
  type ActorId,
  type ConsumerGroupHeartbeatRequest,
  type Context,
  type ControlCommand,
  ErrorCode,
  type HeartbeatRequest,
  type JoinGroupRequest,
  type JsonValue,
  type LeaveGroupRequest,
  type Message,
  type Micros,
  ms,
  type OffsetCommitRequest,
  type OffsetFetchRequest,
  type SyncGroupRequest,
} from "@kcsim/protocol";
import {
  classicHeartbeatPlaceholder,
  classicHeartbeatPrecheckError,
  classicHeartbeatResponse,
  joinGroupPlaceholder,
  joinGroupPrecheckError,
  joinGroupResponse,
  syncGroupPlaceholder,
  syncGroupPrecheckError,
  syncGroupResponse,
} from "../classic-group/classic-group-rpcs.js";
import { leaveGroup, leaveGroupErrorResponse } from "../classic-group/leave-group.js";
import { consumerGroupHeartbeat } from "../consumer-group/consumer-group-heartbeat.js";
import { type GroupTimer, GroupTimers } from "../consumer-group/group-timers.js";
import { validateConsumerGroupHeartbeat } from "../consumer-group/heartbeat-request-validation.js";
import { heartbeatErrorResponse } from "../consumer-group/heartbeat-responses.js";
import { fenceMember } from "../consumer-group/member-fencing.js";
import { MetadataImage } from "../metadata/metadata-image.js";
import type { CoordinatorLoadedObservation } from "../observations.js";
import { offsetCommit, offsetCommitErrorResponse, offsetCommitObservations } from "../offsets/offset-commit.js";
import { offsetFetch } from "../offsets/offset-fetch.js";
import { MemberState } from "../reconciliation/member-state.js";
import { groupIdOf, isStoredRecord, type StoredRecord, type TopicImageRecord } from "../records/coordinator-record.js";
import { replayRecord } from "../records/replay.js";
import { APPEND_LINGER_TIMER, AppendBatcher, type Outgoing } from "../runtime/append-batcher.js";
import type { CoordinatorEnv } from "../runtime/coordinator-env.js";
import { CoordinatorError } from "../runtime/coordinator-error.js";
import { CoordinatorState } from "../runtime/coordinator-state.js";
import { GroupObserver } from "../runtime/group-observer.js";
import { memberObservation } from "../runtime/observation-builders.js";
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

/** What an operation hands back: its response (if any) and whether it goes out at once. */
interface OperationOutcome {
  readonly response: Outgoing | null;
  readonly immediate?: boolean;
}

/**
 * The group coordinator of KIP-848 consumer groups (Kafka's
 * GroupCoordinatorService + CoordinatorRuntime + one GroupCoordinatorShard
 * per actor, holding every `__consumer_offsets` partition placed on it).
 *
 * - FindCoordinator for every group, from the static placement.
 * - ConsumerGroupHeartbeat, OffsetCommit, OffsetFetch for the groups it
 *   hosts (NOT_COORDINATOR for others, COORDINATOR_LOAD_IN_PROGRESS while
 *   loading).
 * - Writes are batched (group.coordinator.append.linger.ms): state changes
 *   apply at once, records reach ctx.storage at the flush, and the
 *   observations and responses of the batch are released after it.
 * - A (re)start replays the whole log, answers LOAD_IN_PROGRESS for
 *   `loadMs`, then re-arms every member timer with full durations and
 *   re-emits gc.group / gc.member for what it loaded.
 * - Classic RPCs get placeholder answers (classic-group/classic-group-rpcs.ts).
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

  constructor(id: ActorId, config: GroupCoordinatorConfig) {
    this.#id = id;
    this.#config = config;
    this.#placement = new CoordinatorPlacement(config.coordinators, config.broker["offsets.topic.num.partitions"]);
    this.#env = { broker: config.broker, timers: this.#timers };
    this.#state = new CoordinatorState(new MetadataImage(config.topics));
    this.#batcher = new AppendBatcher(ms(config.broker["group.coordinator.append.linger.ms"]));
  }

  start(ctx: Context): void {
    // Replay the whole log; nothing is served until the load completes.
    this.#state = new CoordinatorState(new MetadataImage(this.#config.topics));
    this.#batcher = new AppendBatcher(ms(this.#config.broker["group.coordinator.append.linger.ms"]));
    const records = this.#readLog(ctx);
    for (const record of records) replayRecord(this.#state, record);
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
    const memberTimer = this.#timers.take(timer);
    if (memberTimer === undefined) return;
    this.#write(ctx, (op) => {
      this.#onMemberTimer(op, memberTimer);
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
    // The metadata image is durable (KRaft's log in Kafka): keep it in storage at once, outside the batches.
    const record: TopicImageRecord = { type: "kcsim.TopicImage", topic };
    ctx.storage.append(record);
    this.#state.image.apply(topic);
    // Groups subscribed to the topic refresh their subscription metadata on their next heartbeat.
    for (const group of this.#state.groups.values()) {
      if (group.protocol === "consumer" && group.subscribedTopicNames().has(topic.name)) group.metadataRefreshedAtEpoch = null;
    }
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
    this.#batcher.complete(ctx, { records: [], observations: [], response: { to: from, message: response }, immediate: false });
  }

  #onJoinGroup(from: ActorId, request: JoinGroupRequest, ctx: Context): void {
    const error = joinGroupPrecheckError(request, this.#config.broker) || this.#groupError(request.groupId);
    if (error !== ErrorCode.NONE) {
      ctx.send(from, joinGroupResponse(request, error));
      return;
    }
    ctx.log.warn("classic groups are not implemented yet: JoinGroup refused with INCONSISTENT_GROUP_PROTOCOL", {
      groupId: request.groupId,
    });
    ctx.send(from, joinGroupPlaceholder(request));
  }

  #onSyncGroup(from: ActorId, request: SyncGroupRequest, ctx: Context): void {
    const error = syncGroupPrecheckError(request) || this.#groupError(request.groupId);
    ctx.send(from, error !== ErrorCode.NONE ? syncGroupResponse(request, error) : syncGroupPlaceholder(request));
  }

  #onClassicHeartbeat(from: ActorId, request: HeartbeatRequest, ctx: Context): void {
    const precheck = classicHeartbeatPrecheckError(request);
    const error = precheck || this.#groupError(request.groupId);
    // Kafka answers a classic heartbeat blindly with NONE while the coordinator loads.
    if (error === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS) ctx.send(from, classicHeartbeatResponse(request, ErrorCode.NONE));
    else ctx.send(from, error !== ErrorCode.NONE ? classicHeartbeatResponse(request, error) : classicHeartbeatPlaceholder(request));
  }

  #onLeaveGroup(from: ActorId, request: LeaveGroupRequest, ctx: Context): void {
    const error = request.groupId.trim().length === 0 ? ErrorCode.INVALID_GROUP_ID : this.#groupError(request.groupId);
    if (error !== ErrorCode.NONE) {
      ctx.send(from, leaveGroupErrorResponse(request, error));
      return;
    }
    this.#write(ctx, (op) => ({ response: { to: from, message: leaveGroup(op, this.#env, request) } }));
  }

  // ---- timers ----

  /** A session timeout fences the member; a rebalance timeout fences it if it is still at the epoch it was armed for. */
  #onMemberTimer(op: WriteOp, timer: GroupTimer): void {
    const group = op.state.groups.consumerGroup(timer.groupId);
    const member = group?.member(timer.memberId);
    if (group === undefined || member === undefined) return;
    if (timer.kind === "session") {
      op.ctx.log.info("member fenced: session expired", { groupId: group.groupId, memberId: member.memberId });
      fenceMember(op, this.#env, group, member, "session-timeout");
    } else if (member.memberEpoch === timer.memberEpoch) {
      op.ctx.log.info("member fenced: revocation not acknowledged within the rebalance timeout", {
        groupId: group.groupId,
        memberId: member.memberId,
        memberEpoch: member.memberEpoch,
      });
      fenceMember(op, this.#env, group, member, "rebalance-timeout");
    }
  }

  // ---- the runtime ----

  /** NOT_COORDINATOR when another coordinator hosts the group, COORDINATOR_LOAD_IN_PROGRESS while loading, else 0. */
  #groupError(groupId: string): number {
    if (this.#placement.ownerOf(groupId) !== this.#id) return ErrorCode.NOT_COORDINATOR;
    if (this.#loading) return ErrorCode.COORDINATOR_LOAD_IN_PROGRESS;
    return ErrorCode.NONE;
  }

  /**
   * Runs one write operation. On success its records join the open batch
   * and its gc.group changes and observations go out with the batch. A
   * CoordinatorError rolls back every group the operation touched and is
   * answered at once.
   */
  #write(ctx: Context, body: (op: WriteOp) => OperationOutcome, onError?: (error: CoordinatorError) => Outgoing | null): void {
    const op = new WriteOp(this.#state, ctx, ctx.now());
    let outcome: OperationOutcome;
    try {
      outcome = body(op);
    } catch (error) {
      if (!(error instanceof CoordinatorError)) throw error;
      this.#rollback(ctx, op);
      const response = onError?.(error) ?? null;
      this.#batcher.complete(ctx, { records: [], observations: [], response, immediate: true });
      return;
    }
    const observations = [...this.#groupObserver.changes(this.#state.groups, op.touchedGroups), ...op.observations];
    this.#batcher.complete(ctx, { records: op.records, observations, response: outcome.response, immediate: outcome.immediate ?? false });
  }

  /**
   * Undoes a failed operation (Kafka reverts to its timeline snapshot): each
   * group it touched is rebuilt from its records, durable and pending.
   */
  #rollback(ctx: Context, op: WriteOp): void {
    if (op.touchedGroups.size === 0) return;
    const records: StoredRecord[] = [...this.#readLog(ctx), ...this.#batcher.pendingRecords()];
    for (const groupId of op.touchedGroups) {
      this.#state.groups.delete(groupId);
      this.#state.offsets.deleteGroup(groupId);
      for (const record of records) if (groupIdOf(record) === groupId) replayRecord(this.#state, record);
    }
  }

  #readLog(ctx: Context): StoredRecord[] {
    const records = ctx.storage.readAll();
    records.forEach((record, index) => {
      if (!isStoredRecord(record)) throw new Error(`group coordinator ${this.#id}: record ${index} of the log is not a coordinator record`);
    });
    return records as StoredRecord[];
  }

  /** Kafka's `onLoaded`: fresh timers for every member, then the loaded state is reported. */
  #finishLoading(ctx: Context): void {
    ctx.cancelTimer(COORDINATOR_LOAD_TIMER);
    this.#loading = false;
    const sessionTimeoutMs = this.#config.broker["group.consumer.session.timeout.ms"];
    for (const group of this.#state.groups.values()) {
      if (group.protocol !== "consumer") continue;
      group.metadataRefreshedAtEpoch = null;
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
  }
}

/** The actor factory for kind "group-coordinator" (config: GroupCoordinatorConfigJson). */
export function createGroupCoordinator(id: ActorId, config: JsonValue): Actor {
  return new GroupCoordinatorActor(id, parseGroupCoordinatorConfig(id, config));
}
