import {
  type ActorId,
  type Context,
  ErrorCode,
  errorName,
  type JoinGroupResponse,
  type Micros,
  ms,
  type SyncGroupResponse,
} from "@kcsim/protocol";
import type { ConsumerPartitionAssignor, PartitionCounts } from "../assignors/consumer-partition-assignor.js";
import type { RebalanceProtocol } from "../assignors/rebalance-protocol.js";
import type { AssignedPartitions } from "../consumer/assigned-partitions.js";
import type { CommitRequestManager } from "../consumer/commit-request-manager.js";
import type { CoordinatorManager } from "../consumer/coordinator-manager.js";
import type { RebalanceListenerInvoker } from "../consumer/membership-manager.js";
import type { PositionInitializer } from "../consumer/position-initializer.js";
import type { RequestChannel } from "../consumer/request-channel.js";
import type { AssignorMemory } from "./assignor-memory.js";
import type { ClassicMembership } from "./classic-membership.js";
import { type Generation, isGenerationReset, sameGeneration } from "./generation.js";
import { JoinComplete } from "./join-complete.js";
import { CONSUMER_PROTOCOL_TYPE, joinGroupProtocols } from "./join-group-protocols.js";
import { JoinPrepare } from "./join-prepare.js";
import { performLeaderAssignment, type SyncGroupAssignment } from "./leader-assignment.js";

/** JoinGroup may block for a whole rebalance: its timeout is the rebalance timeout plus this (`JOIN_GROUP_TIMEOUT_LAPSE`). */
const JOIN_GROUP_TIMEOUT_LAPSE_MS = 5000;

/** `JoinGroupRequest.maybeTruncateReason`. */
const MAX_REASON_LENGTH = 255;

/** JoinGroup v9 (SkipAssignment), SyncGroup v5 (protocol type and name). */
const JOIN_GROUP_VERSION = 9;
const SYNC_GROUP_VERSION = 5;

/**
 * How `joinGroupIfNeeded` goes on after a failed join round:
 * - `rejoin`: at once (UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION, REBALANCE_IN_PROGRESS);
 * - `rejoin-with-member-id`: at once, the rejoin already requested (MEMBER_ID_REQUIRED);
 * - `retry`: after retry.backoff.ms (coordinator moved or loading, no response);
 * - `fatal`: poll() throws; the consumer is done.
 */
type FailureReaction = "rejoin" | "rejoin-with-member-id" | "retry" | "fatal";

interface JoinFailure {
  readonly error: string;
  readonly reaction: FailureReaction;
}

/**
 * Where the current join round (Kafka's `joinFuture`: JoinGroup then
 * SyncGroup) stands. Responses are only recorded on arrival; what follows
 * from them happens inside poll(), as in Kafka, where the application
 * thread handles the JoinGroup response (the heartbeat thread sleeps while
 * a JoinGroup is out) and runs onJoinComplete.
 */
type JoinRound =
  | { readonly phase: "joining"; readonly coordinator: ActorId }
  | { readonly phase: "join-answered"; readonly response: JoinGroupResponse | null; readonly sent: Generation }
  | { readonly phase: "syncing"; readonly coordinator: ActorId }
  | { readonly phase: "synced"; readonly assignment: Uint8Array }
  | { readonly phase: "failed"; readonly failure: JoinFailure }
  | { readonly phase: "completing"; readonly completion: JoinComplete };

export interface JoinGroupSettings {
  readonly sessionTimeoutMs: number;
  /** max.poll.interval.ms, sent as the rebalance timeout. */
  readonly rebalanceTimeoutMs: number;
  readonly retryBackoffMs: number;
  readonly rackId: string | null;
  /** The configured assignors, in preference order. */
  readonly assignors: readonly ConsumerPartitionAssignor[];
  /** The highest protocol every configured assignor supports. */
  readonly protocol: RebalanceProtocol;
  /** Partition counts the leader assigns from (the cluster metadata). */
  readonly partitionCounts: PartitionCounts;
}

export interface JoinGroupDependencies {
  readonly membership: ClassicMembership;
  readonly coordinator: CoordinatorManager;
  readonly channel: RequestChannel;
  readonly assigned: AssignedPartitions;
  readonly commits: CommitRequestManager;
  readonly positions: PositionInitializer;
  readonly listener: RebalanceListenerInvoker;
  readonly assignorMemory: AssignorMemory;
  /** The heartbeat thread starts when the JoinGroup is answered (`HeartbeatThread.enable`). */
  enableHeartbeat(ctx: Context): void;
  /** A fatal error: the consumer stops. */
  fail(error: string, ctx: Context): void;
}

/**
 * The classic join loop (`AbstractCoordinator.joinGroupIfNeeded` with
 * `ConsumerCoordinator`'s hooks), run from inside poll(): onJoinPrepare,
 * JoinGroup (an empty member id first; MEMBER_ID_REQUIRED hands one out),
 * the leader's assignment, SyncGroup, onJoinComplete, and the reactions to
 * every error (spec 4.3). Whatever needs the application thread waits for
 * the next poll(); `needsPoll` tells the actor when a waiting poll() has
 * something to do.
 */
export class JoinGroupLoop {
  readonly #settings: JoinGroupSettings;
  readonly #deps: JoinGroupDependencies;
  #round: JoinRound | null = null;
  #prepare: JoinPrepare | null = null;
  #retryAt: Micros | null = null;
  #isLeader = false;

  constructor(settings: JoinGroupSettings, deps: JoinGroupDependencies) {
    this.#settings = settings;
    this.#deps = deps;
  }

  get isLeader(): boolean {
    return this.#isLeader;
  }

  get phase(): string {
    if (this.#prepare !== null) return "preparing";
    return this.#round?.phase ?? "idle";
  }

  /** `ConsumerCoordinator.rejoinNeededOrPending`: a rejoin is asked for, the subscription changed, or a round is under way. */
  rejoinNeededOrPending(ctx: Context): boolean {
    const { membership } = this.#deps;
    if (membership.subscription.length === 0) return false;
    const joined = membership.joinedSubscription;
    if (joined !== null && !sameTopics(joined, membership.subscription)) {
      membership.requestRejoinIfNecessary("subscription has changed", ctx);
      return true;
    }
    return membership.rejoinNeeded || this.#round !== null || this.#prepare !== null;
  }

  /** Whether a poll() waiting for records should wake up: the loop can move on now. */
  needsPoll(ctx: Context): boolean {
    const { membership, coordinator } = this.#deps;
    this.failRoundIfCoordinatorLost();
    if (membership.isFatal || !this.rejoinNeededOrPending(ctx) || coordinator.coordinator === null) return false;
    if (this.#retryAt !== null && ctx.now() < this.#retryAt) return false;
    if (this.#prepare !== null) return this.#prepare.canAdvance(ctx.now());
    const round = this.#round;
    if (round === null) return true;
    return round.phase === "join-answered" || round.phase === "synced" || round.phase === "failed" || this.#completed(round);
  }

  /** When the loop may next move on by itself (a retry backoff, onJoinPrepare's backoff or timeout), or null. */
  nextWakeAt(now: Micros): Micros | null {
    if (this.#retryAt !== null && this.#retryAt > now) return this.#retryAt;
    const prepared = this.#prepare?.wakeAt() ?? null;
    return prepared !== null && prepared > now ? prepared : null;
  }

  /** The member leaves or fails: an onJoinPrepare or onJoinComplete under way is dropped. (A JoinGroup in flight stays, as Kafka's join future does.) */
  abandonCallbacks(): void {
    this.#prepare?.abandon();
    this.#prepare = null;
    if (this.#round?.phase === "completing") {
      this.#round.completion.abandon();
      this.#round = null;
    }
  }

  /** `joinGroupIfNeeded`, from inside poll(): moves the loop on as far as it can without waiting. */
  run(ctx: Context): void {
    const { membership, coordinator } = this.#deps;
    // Each pass either returns to wait or changes the round; a rebalance needs a handful at most.
    for (let pass = 0; pass < 32; pass++) {
      this.failRoundIfCoordinatorLost();
      if (membership.isFatal || !this.rejoinNeededOrPending(ctx)) return;
      if (coordinator.coordinator === null) return; // ensureCoordinatorReady: the background finds it
      if (this.#retryAt !== null) {
        if (ctx.now() < this.#retryAt) return;
        this.#retryAt = null;
      }
      const prepare = this.#prepare;
      if (prepare !== null) {
        prepare.advance(ctx);
        if (prepare.canAdvance(ctx.now()) && !prepare.done) continue; // e.g. nothing to commit: the callback may run now
        if (!prepare.done) return;
        this.#prepare = null;
        this.#sendJoinGroup(ctx);
        continue;
      }
      const round = this.#round;
      if (round === null) {
        if (membership.needsJoinPrepare) {
          // Cleared before onJoinPrepare runs; a reset while it runs sets it again (for the next round).
          membership.needsJoinPrepare = false;
          this.#isLeader = false;
          this.#prepare = new JoinPrepare({
            membership,
            assigned: this.#deps.assigned,
            commits: this.#deps.commits,
            listener: this.#deps.listener,
            protocol: this.#settings.protocol,
            rebalanceTimeoutMs: this.#settings.rebalanceTimeoutMs,
            retryBackoffMs: this.#settings.retryBackoffMs,
          });
          continue;
        }
        this.#sendJoinGroup(ctx);
        continue;
      }
      switch (round.phase) {
        case "joining":
        case "syncing":
          return;
        case "join-answered":
          this.#round = null;
          this.#onJoinResponse(round.response, round.sent, ctx);
          continue;
        case "synced":
          this.#round = null;
          this.#startJoinComplete(round.assignment, ctx);
          continue;
        case "failed":
          this.#round = null;
          this.#onJoinFailed(round.failure, ctx);
          continue;
        case "completing":
          if (!round.completion.done) return;
          this.#round = null;
          membership.needsJoinPrepare = true;
          continue;
      }
    }
  }

  /**
   * After every event: Kafka disconnects from a coordinator it marks
   * unknown (a heartbeat error, a session timeout), failing what is in
   * flight to it: a JoinGroup or SyncGroup out to the old coordinator fails
   * now (retriable) instead of waiting for its timeout.
   */
  failRoundIfCoordinatorLost(): void {
    const round = this.#round;
    if (round === null || (round.phase !== "joining" && round.phase !== "syncing")) return;
    if (this.#deps.coordinator.coordinator === round.coordinator) return;
    this.#failRound("DisconnectException", "retry");
  }

  #completed(round: JoinRound): boolean {
    return round.phase === "completing" && round.completion.done;
  }

  // ---- JoinGroup ------------------------------------------------------------

  /** `initiateJoinGroup` + `sendJoinGroupRequest`. */
  #sendJoinGroup(ctx: Context): void {
    const { membership, coordinator, channel, assigned } = this.#deps;
    const target = coordinator.coordinator;
    if (target === null) {
      this.#round = { phase: "failed", failure: { error: "COORDINATOR_NOT_AVAILABLE", reaction: "retry" } };
      return;
    }
    membership.transitionTo("PREPARING_REBALANCE", ctx);
    const sent = membership.generation;
    membership.joinedSubscription = membership.subscription;
    const protocols = joinGroupProtocols(this.#settings.assignors, this.#deps.assignorMemory, {
      topics: membership.subscription,
      owned: assigned.all().filter((tp) => assigned.statusOf(tp) !== "released"),
      generationId: sent.generationId,
      rackId: this.#settings.rackId,
    });
    ctx.log.info("(re-)joining group", { memberId: sent.memberId, generation: sent.generationId, reason: membership.rejoinReason });
    const round: JoinRound = { phase: "joining", coordinator: target };
    this.#round = round;
    const answered = (response: JoinGroupResponse | null) => {
      if (this.#round !== round) return;
      this.#round = { phase: "join-answered", response, sent };
      membership.changed();
    };
    channel.send(
      ctx,
      target,
      {
        type: "JoinGroupRequest",
        correlationId: channel.nextCorrelationId(),
        apiVersion: JOIN_GROUP_VERSION,
        clientId: channel.clientId,
        groupId: membership.groupId,
        sessionTimeoutMs: this.#settings.sessionTimeoutMs,
        rebalanceTimeoutMs: this.#settings.rebalanceTimeoutMs,
        memberId: sent.memberId,
        groupInstanceId: membership.groupInstanceId,
        protocolType: CONSUMER_PROTOCOL_TYPE,
        protocols,
        reason: membership.rejoinReason.slice(0, MAX_REASON_LENGTH),
      },
      "JoinGroupResponse",
      (response) => answered(response),
      () => answered(null),
      { timeoutMs: Math.max(channel.requestTimeoutMs, this.#settings.rebalanceTimeoutMs + JOIN_GROUP_TIMEOUT_LAPSE_MS) },
    );
  }

  /** `JoinGroupResponseHandler`, run inside poll(). */
  #onJoinResponse(response: JoinGroupResponse | null, sent: Generation, ctx: Context): void {
    const { membership, coordinator } = this.#deps;
    if (response === null) {
      coordinator.markUnknown("JoinGroup got no response", ctx);
      this.#failRound("DisconnectException", "retry");
      return;
    }
    const error = response.errorCode;
    const generationUnchanged = sameGeneration(membership.generation, sent);
    switch (error) {
      case ErrorCode.NONE:
        this.#onJoined(response, ctx);
        return;
      case ErrorCode.COORDINATOR_LOAD_IN_PROGRESS:
        this.#failRound(errorName(error), "retry");
        return;
      case ErrorCode.UNKNOWN_MEMBER_ID:
        if (generationUnchanged) membership.resetStateAndRejoin("encountered UNKNOWN_MEMBER_ID from JOIN_GROUP response", true, ctx);
        this.#failRound(errorName(error), "rejoin");
        return;
      case ErrorCode.ILLEGAL_GENERATION:
        // Spec 4.3: rejoin keeping the member id (handled like the same error on SyncGroup).
        if (generationUnchanged) membership.resetStateAndRejoin("encountered ILLEGAL_GENERATION from JOIN_GROUP response", false, ctx);
        this.#failRound(errorName(error), "rejoin");
        return;
      case ErrorCode.COORDINATOR_NOT_AVAILABLE:
      case ErrorCode.NOT_COORDINATOR:
        coordinator.markUnknown(`JoinGroup ${errorName(error)}`, ctx);
        this.#failRound(errorName(error), "retry");
        return;
      case ErrorCode.MEMBER_ID_REQUIRED:
        // KIP-394: the coordinator minted an id; join again with it at once.
        membership.setGeneration({ generationId: -1, memberId: response.memberId, protocolName: null });
        membership.requestRejoin(`need to re-join with the given member-id: ${response.memberId}`, ctx);
        this.#failRound(errorName(error), "rejoin-with-member-id");
        return;
      case ErrorCode.REBALANCE_IN_PROGRESS:
        this.#failRound(errorName(error), "rejoin");
        return;
      default:
        // FENCED_INSTANCE_ID, INCONSISTENT_GROUP_PROTOCOL, INVALID_SESSION_TIMEOUT, INVALID_GROUP_ID,
        // GROUP_AUTHORIZATION_FAILED, GROUP_MAX_SIZE_REACHED, UNSUPPORTED_VERSION, and anything unexpected.
        this.#failRound(errorName(error), "fatal");
        return;
    }
  }

  #onJoined(response: JoinGroupResponse, ctx: Context): void {
    const { membership } = this.#deps;
    if (response.protocolType !== null && response.protocolType !== CONSUMER_PROTOCOL_TYPE) {
      this.#failRound("INCONSISTENT_GROUP_PROTOCOL", "fatal");
      return;
    }
    if (membership.state !== "PREPARING_REBALANCE") {
      // Left (poll timeout, leave) since the JoinGroup went out.
      this.#failRound("UnjoinedGroupException", "retry");
      return;
    }
    membership.setGeneration({ generationId: response.generationId, memberId: response.memberId, protocolName: response.protocolName });
    membership.transitionTo("COMPLETING_REBALANCE", ctx);
    this.#deps.enableHeartbeat(ctx);
    ctx.log.info("joined group", {
      generation: response.generationId,
      memberId: response.memberId,
      protocol: response.protocolName,
      leader: response.leader === response.memberId,
    });
    let assignments: SyncGroupAssignment[] = [];
    if (response.leader === response.memberId) {
      this.#isLeader = true;
      if (response.skipAssignment) {
        ctx.log.info("static leader skips the assignment: the group keeps its current one", { generation: response.generationId });
      } else {
        const assignor = this.#settings.assignors.find((a) => a.name === response.protocolName);
        if (assignor === undefined) {
          this.#failRound(`IllegalStateException: Coordinator selected invalid assignment protocol: ${response.protocolName}`, "fatal");
          return;
        }
        try {
          assignments = performLeaderAssignment(assignor, this.#settings.protocol, this.#settings.partitionCounts, response.members);
        } catch (error) {
          this.#failRound(`IllegalStateException: ${error instanceof Error ? error.message : String(error)}`, "fatal");
          return;
        }
      }
    }
    this.#sendSyncGroup(assignments, ctx);
  }

  // ---- SyncGroup ------------------------------------------------------------

  /** The leader sends every member's assignment; followers send none. */
  #sendSyncGroup(assignments: readonly SyncGroupAssignment[], ctx: Context): void {
    const { membership, coordinator, channel } = this.#deps;
    const target = coordinator.coordinator;
    if (target === null) {
      this.#failRound("COORDINATOR_NOT_AVAILABLE", "retry");
      return;
    }
    const sent = membership.generation;
    const round: JoinRound = { phase: "syncing", coordinator: target };
    this.#round = round;
    channel.send(
      ctx,
      target,
      {
        type: "SyncGroupRequest",
        correlationId: channel.nextCorrelationId(),
        apiVersion: SYNC_GROUP_VERSION,
        clientId: channel.clientId,
        groupId: membership.groupId,
        generationId: sent.generationId,
        memberId: sent.memberId,
        groupInstanceId: membership.groupInstanceId,
        protocolType: CONSUMER_PROTOCOL_TYPE,
        protocolName: sent.protocolName,
        assignments: assignments.map(({ memberId, assignment }) => ({ memberId, assignment })),
      },
      "SyncGroupResponse",
      (response, ctx) => {
        if (this.#round === round) this.#onSyncResponse(response, sent, ctx);
      },
      (ctx) => {
        if (this.#round !== round) return;
        coordinator.markUnknown("SyncGroup got no response", ctx);
        this.#failRound("DisconnectException", "retry");
      },
    );
  }

  /**
   * `SyncGroupResponseHandler`, on arrival (the heartbeat thread, awake in
   * COMPLETING_REBALANCE, handles it in Kafka): the member becomes STABLE
   * now; onJoinComplete waits for poll().
   */
  #onSyncResponse(response: SyncGroupResponse, sent: Generation, ctx: Context): void {
    const { membership, coordinator } = this.#deps;
    const error = response.errorCode;
    if (membership.isFatal) return;
    switch (error) {
      case ErrorCode.NONE: {
        if (response.protocolType !== null && response.protocolType !== CONSUMER_PROTOCOL_TYPE) {
          this.#failRound("INCONSISTENT_GROUP_PROTOCOL", "fatal");
          return;
        }
        const generation = membership.generation;
        if (isGenerationReset(generation) || membership.state !== "COMPLETING_REBALANCE") {
          ctx.log.info("generation reset before the SyncGroup response; retrying the rebalance", { state: membership.state });
          this.#failRound("ILLEGAL_GENERATION", "rejoin");
          return;
        }
        if (response.protocolName !== null && response.protocolName !== generation.protocolName) {
          this.#failRound("INCONSISTENT_GROUP_PROTOCOL", "fatal");
          return;
        }
        membership.markSynced(ctx);
        ctx.log.info("synced group", { generation: generation.generationId });
        this.#round = { phase: "synced", assignment: response.assignment };
        return;
      }
      case ErrorCode.REBALANCE_IN_PROGRESS:
        this.#failRound(errorName(error), "rejoin");
        return;
      case ErrorCode.UNKNOWN_MEMBER_ID:
      case ErrorCode.ILLEGAL_GENERATION:
        if (sameGeneration(membership.generation, sent)) {
          // ILLEGAL_GENERATION keeps the member id: it may still be valid.
          membership.resetStateAndRejoin(
            `encountered ${errorName(error)} from SYNC_GROUP response`,
            error === ErrorCode.UNKNOWN_MEMBER_ID,
            ctx,
          );
        }
        this.#failRound(errorName(error), "rejoin");
        return;
      case ErrorCode.COORDINATOR_NOT_AVAILABLE:
      case ErrorCode.NOT_COORDINATOR:
        coordinator.markUnknown(`SyncGroup ${errorName(error)}`, ctx);
        this.#failRound(errorName(error), "retry");
        return;
      default:
        // FENCED_INSTANCE_ID, GROUP_AUTHORIZATION_FAILED, and anything unexpected.
        this.#failRound(errorName(error), "fatal");
        return;
    }
  }

  // ---- after the round ------------------------------------------------------

  #failRound(error: string, reaction: FailureReaction): void {
    this.#round = { phase: "failed", failure: { error, reaction } };
    this.#deps.membership.changed();
  }

  #onJoinFailed(failure: JoinFailure, ctx: Context): void {
    const { membership } = this.#deps;
    ctx.log.info("rebalance failed", { error: failure.error, reaction: failure.reaction });
    if (failure.reaction === "fatal") {
      this.#deps.fail(failure.error, ctx);
      return;
    }
    if (failure.reaction !== "rejoin-with-member-id") membership.requestRejoin(`rebalance failed due to ${failure.error}`, ctx);
    if (failure.reaction === "retry") this.#retryAt = ctx.now() + ms(this.#settings.retryBackoffMs);
  }

  /** SyncGroup succeeded: onJoinComplete, unless the heartbeat thread reset the generation meanwhile. */
  #startJoinComplete(assignment: Uint8Array, ctx: Context): void {
    const { membership } = this.#deps;
    const generation = membership.generation;
    if (isGenerationReset(generation) || membership.state !== "STABLE") {
      membership.resetStateAndRejoin("rebalance failed since the generation/state was modified by heartbeat thread", true, ctx);
      return;
    }
    const assignor = generation.protocolName ?? "";
    if (!this.#settings.assignors.some((a) => a.name === assignor)) {
      this.#deps.fail(`IllegalStateException: Coordinator selected invalid assignment protocol: ${assignor}`, ctx);
      return;
    }
    const completion = new JoinComplete(
      {
        membership,
        assigned: this.#deps.assigned,
        commits: this.#deps.commits,
        positions: this.#deps.positions,
        listener: this.#deps.listener,
        assignorMemory: this.#deps.assignorMemory,
        protocol: this.#settings.protocol,
      },
      generation,
    );
    this.#round = { phase: "completing", completion };
    try {
      completion.start(assignment, assignor, ctx);
    } catch (error) {
      this.#round = null;
      this.#deps.fail(`${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`, ctx);
    }
  }
}

function sameTopics(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((topic, i) => topic === b[i]);
}
