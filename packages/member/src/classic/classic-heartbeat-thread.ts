import { type ActorId, type Context, ErrorCode, errorName, type HeartbeatResponse, type Micros } from "@kcsim/protocol";
import type { CoordinatorManager } from "../consumer/coordinator-manager.js";
import type { MemberObserver } from "../consumer/member-observer.js";
import type { RequestChannel } from "../consumer/request-channel.js";
import { hasNotJoinedGroup } from "./classic-member-state.js";
import type { ClassicMembership } from "./classic-membership.js";
import { type Generation, sameGeneration } from "./generation.js";
import type { HeartbeatTimers } from "./heartbeat-timers.js";

export interface HeartbeatThreadDependencies {
  readonly channel: RequestChannel;
  readonly coordinator: CoordinatorManager;
  readonly membership: ClassicMembership;
  readonly timers: HeartbeatTimers;
  readonly observer: MemberObserver;
  readonly maxPollIntervalMs: number;
  /** `maybeLeaveGroup` (the poll timeout). */
  leaveGroup(reason: string, ctx: Context): void;
  /** A fatal error (FENCED_INSTANCE_ID): the consumer stops. */
  fail(error: string, ctx: Context): void;
}

/**
 * Kafka's classic heartbeat thread (`AbstractCoordinator.HeartbeatThread`),
 * run by the actor after every event:
 * - heartbeats every heartbeat.interval.ms while the member has joined
 *   (COMPLETING_REBALANCE and STABLE), several may be in flight; a failed
 *   one (an error, no response in time, the connection closed) is followed
 *   by the next after the backoff: retry.backoff.ms, doubling with each
 *   failure in a row up to retry.backoff.max.ms;
 * - no successful response within session.timeout.ms: the coordinator is
 *   presumed gone and rediscovered (the coordinator, not the client, ends
 *   the membership; the client learns it from UNKNOWN_MEMBER_ID);
 * - no pass of poll()'s loop within max.poll.interval.ms: `member.poll-timeout`,
 *   then a dynamic member sends LeaveGroup (a static one does not) and either
 *   resets its generation; the next poll() rejoins. Checked only while it
 *   heartbeats (COMPLETING_REBALANCE and STABLE), as Kafka's heartbeat
 *   thread does: it disables itself while the member has not joined, and
 *   the JoinGroup's answer enables it and restarts the poll timer;
 * - the error reactions of spec 4.3.
 * Nothing happens without a known coordinator.
 */
export class ClassicHeartbeatThread {
  readonly #deps: HeartbeatThreadDependencies;
  #knownCoordinator: ActorId | null = null;
  /** The poll-timer deadline already acted on: one expiry per deadline, even if the member rejoins before its next poll() returns. */
  #expiredDeadline: Micros | null = null;

  constructor(deps: HeartbeatThreadDependencies) {
    this.#deps = deps;
  }

  /**
   * `HeartbeatThread.enable`: the JoinGroup was answered; heartbeats start an
   * interval from now, and the session and the poll timer start over
   * (`Heartbeat.resetTimeouts`).
   */
  enable(ctx: Context): void {
    this.#deps.timers.resetTimeouts(ctx.now());
    this.#deps.observer.pollTimerReset(ctx);
  }

  /** A pass of poll()'s loop began (`ConsumerCoordinator.poll` calls `pollHeartbeat`): the poll timer restarts. */
  resetPollTimer(ctx: Context): void {
    this.#deps.observer.pollTimerReset(ctx);
    this.#deps.timers.poll(ctx.now());
  }

  /**
   * `AbstractCoordinator.timeToNextHeartbeat`: none is due before the member
   * joined; one due now goes out in this instant (the heartbeat thread runs
   * after every event), so the next is an interval away.
   */
  timeToNextHeartbeat(now: Micros): Micros {
    const { membership, timers } = this.#deps;
    if (hasNotJoinedGroup(membership.state)) return Number.POSITIVE_INFINITY;
    const left = timers.heartbeatDueAt - now;
    return left > 0 ? left : timers.intervalUs;
  }

  poll(ctx: Context): void {
    const { membership, coordinator, timers } = this.#deps;
    if (membership.isFatal) return;
    const now = ctx.now();
    const target = coordinator.coordinator;
    if (target !== this.#knownCoordinator) {
      // A (re)discovered coordinator gets a whole session (`resetSessionTimeout` on FindCoordinator success).
      if (target !== null) timers.resetSessionTimeout(now);
      this.#knownCoordinator = target;
    }
    if (target === null) return;
    const state = membership.state;
    const heartbeating = !hasNotJoinedGroup(state);
    if (heartbeating && timers.sessionTimeoutExpired(now)) {
      coordinator.markUnknown("session timed out without receiving a heartbeat response", ctx);
      this.#knownCoordinator = null;
      return;
    }
    // Only while joined: Kafka's heartbeat thread disables itself while the member has not joined (UNJOINED, or
    // PREPARING_REBALANCE with its JoinGroup out), and the JoinGroup's answer restarts the poll timer (enable).
    if (heartbeating && timers.pollTimeoutExpired(now) && this.#expiredDeadline !== timers.pollTimerEndsAt) {
      this.#expiredDeadline = timers.pollTimerEndsAt;
      this.#handlePollTimeoutExpiry(ctx);
      return;
    }
    if (heartbeating && timers.shouldHeartbeat(now)) this.#send(target, ctx);
  }

  /** When poll() next has something to do, or null. */
  nextWakeAt(_now: Micros): Micros | null {
    const { membership, coordinator, timers } = this.#deps;
    const state = membership.state;
    if (membership.isFatal || coordinator.coordinator === null || hasNotJoinedGroup(state)) return null;
    const poll = this.#expiredDeadline === timers.pollTimerEndsAt ? Number.POSITIVE_INFINITY : timers.pollTimerEndsAt;
    return Math.min(poll, timers.heartbeatDueAt, timers.sessionEndsAt);
  }

  #handlePollTimeoutExpiry(ctx: Context): void {
    const { timers, observer, maxPollIntervalMs } = this.#deps;
    ctx.log.warn("consumer poll timeout has expired (max.poll.interval.ms without a poll())", { lastPollUs: timers.lastPollAt });
    observer.pollTimeout(ctx, timers.lastPollAt, maxPollIntervalMs);
    this.#deps.leaveGroup("consumer poll timeout has expired.", ctx);
  }

  #send(coordinator: ActorId, ctx: Context): void {
    const { channel, membership, timers } = this.#deps;
    timers.sentHeartbeat(ctx.now());
    const sent = membership.generation;
    channel.send(
      ctx,
      coordinator,
      {
        type: "HeartbeatRequest",
        correlationId: channel.nextCorrelationId(),
        apiVersion: 4,
        clientId: channel.clientId,
        groupId: membership.groupId,
        generationId: sent.generationId,
        memberId: sent.memberId,
        groupInstanceId: membership.groupInstanceId,
      },
      "HeartbeatResponse",
      (response, ctx) => this.#onResponse(response, sent, ctx),
      (ctx) => this.#onTransportFailure(ctx),
    );
  }

  /** `HeartbeatResponseHandler` and the thread's listener on the outcome. */
  #onResponse(response: HeartbeatResponse, sent: Generation, ctx: Context): void {
    const { membership, coordinator, timers } = this.#deps;
    if (membership.isFatal) return;
    const now = ctx.now();
    const error = response.errorCode;
    switch (error) {
      case ErrorCode.NONE:
        timers.receiveHeartbeat(now);
        return;
      case ErrorCode.COORDINATOR_NOT_AVAILABLE:
      case ErrorCode.NOT_COORDINATOR:
        ctx.log.info("heartbeat failed: coordinator not available or not valid", { error: errorName(error) });
        coordinator.markUnknown(`heartbeat ${errorName(error)}`, ctx);
        timers.failHeartbeat(now);
        return;
      case ErrorCode.REBALANCE_IN_PROGRESS:
        // Heartbeating on through the rebalance keeps the session alive; only a STABLE member rejoins.
        if (membership.state === "STABLE") membership.requestRejoin("group is already rebalancing", ctx);
        timers.receiveHeartbeat(now);
        return;
      case ErrorCode.ILLEGAL_GENERATION:
      case ErrorCode.UNKNOWN_MEMBER_ID:
      case ErrorCode.FENCED_INSTANCE_ID:
        if (!sameGeneration(membership.generation, sent)) {
          ctx.log.info("heartbeat error for a stale generation ignored", { error: errorName(error), generation: sent.generationId });
          timers.receiveHeartbeat(now);
          return;
        }
        ctx.log.info("heartbeat failed; resetting generation", { error: errorName(error) });
        // ILLEGAL_GENERATION keeps the member id: it is still valid.
        membership.resetStateAndRejoin(
          `encountered ${errorName(error)} from HEARTBEAT response`,
          error !== ErrorCode.ILLEGAL_GENERATION,
          ctx,
        );
        if (error === ErrorCode.FENCED_INSTANCE_ID) this.#deps.fail(errorName(error), ctx);
        else timers.failHeartbeat(now);
        return;
      default:
        ctx.log.warn("heartbeat failed", { error: errorName(error) });
        timers.failHeartbeat(now);
        return;
    }
  }

  #onTransportFailure(ctx: Context): void {
    if (this.#deps.membership.isFatal) return;
    this.#deps.coordinator.markUnknown("heartbeat got no response", ctx);
    this.#deps.timers.failHeartbeat(ctx.now());
  }
}
