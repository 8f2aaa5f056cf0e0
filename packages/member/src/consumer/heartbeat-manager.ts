import {
  type ConsumerGroupHeartbeatResponse,
  type Context,
  ErrorCode,
  type ExponentialBackoff,
  errorName,
  type Micros,
  ms,
  PlantedBugs,
} from "@kcsim/protocol";
import type { CoordinatorManager } from "./coordinator-manager.js";
import type { HeartbeatFields } from "./heartbeat-fields.js";
import { HeartbeatRequestState } from "./heartbeat-request-state.js";
import type { MemberObserver } from "./member-observer.js";
import { isLeavingGroup, shouldHeartbeatNow, shouldSkipHeartbeat } from "./member-state.js";
import type { MembershipManager } from "./membership-manager.js";
import type { RequestChannel } from "./request-channel.js";
import { TimerClock } from "./timer-clock.js";

/** `ConsumerNetworkThread.MAX_POLL_TIMEOUT_MS`: the longest the network thread tells the application thread to wait. */
const MAX_POLL_TIMEOUT_US: Micros = 5_000_000;

/**
 * Sends ConsumerGroupHeartbeat (spec 2.3, 1.7; `AbstractHeartbeatRequestManager`):
 * - none without a coordinator or in UNSUBSCRIBED, FENCED, FATAL, STALE;
 * - at once when LEAVING; when JOINING / ACKNOWLEDGING without waiting for
 *   the interval, once nothing is in flight and the backoff of a failed
 *   attempt is over; otherwise when the interval elapsed, the backoff is
 *   over and nothing is in flight (at most one in flight);
 * - the poll timer: no poll() within max.poll.interval.ms makes the member
 *   leave (-1, or -2 if static) and go STALE, once per expiry;
 * - error reactions: NOT_COORDINATOR / COORDINATOR_NOT_AVAILABLE rediscover
 *   and retry without backoff, COORDINATOR_LOAD_IN_PROGRESS backs off
 *   (retry.backoff.ms, doubling up to retry.backoff.max.ms, in every state:
 *   a joining member waits too), UNKNOWN_MEMBER_ID / FENCED_MEMBER_EPOCH
 *   fence (rejoin without backoff), anything else is fatal. A transport
 *   failure (no response in time, or the connection closed) backs off and
 *   forgets the coordinator. Every failure makes the next heartbeat carry
 *   every field.
 */
export class HeartbeatManager {
  readonly #channel: RequestChannel;
  readonly #coordinator: CoordinatorManager;
  readonly #membership: MembershipManager;
  readonly #fields: HeartbeatFields;
  readonly #observer: MemberObserver;
  readonly #maxPollIntervalMs: number;
  readonly #state: HeartbeatRequestState;
  readonly #bugs: PlantedBugs;
  #inFlight: number | null = null;
  /** The poll timer's own time: Kafka's `Timer` never goes back when the wall clock is stepped back. */
  readonly #pollClock: TimerClock;
  #lastPollAt: Micros;
  #pollTimerEndsAt: Micros;

  constructor(
    channel: RequestChannel,
    coordinator: CoordinatorManager,
    membership: MembershipManager,
    fields: HeartbeatFields,
    observer: MemberObserver,
    maxPollIntervalMs: number,
    backoff: ExponentialBackoff,
    now: Micros,
    bugs: PlantedBugs = PlantedBugs.NONE,
  ) {
    this.#bugs = bugs;
    this.#channel = channel;
    this.#coordinator = coordinator;
    this.#membership = membership;
    this.#fields = fields;
    this.#observer = observer;
    this.#maxPollIntervalMs = maxPollIntervalMs;
    this.#state = new HeartbeatRequestState(backoff, now);
    this.#pollClock = new TimerClock(now);
    this.#lastPollAt = now;
    this.#pollTimerEndsAt = now + ms(maxPollIntervalMs);
  }

  get heartbeatIntervalMs(): number {
    return this.#state.intervalMs;
  }

  get inFlight(): boolean {
    return this.#state.inFlight;
  }

  get lastPollAt(): Micros {
    return this.#lastPollAt;
  }

  /**
   * A pass of poll()'s loop began (its PollEvent): the poll timer restarts
   * (`resetPollTimer`), so an expiry is max.poll.interval.ms after the last
   * pass began (`member.poll-timer-reset`). A STALE member rejoins (once its
   * lost callback ran).
   */
  resetPollTimer(ctx: Context): void {
    const now = this.#pollClock.update(ctx.now());
    this.#observer.pollTimerReset(ctx);
    if (now >= this.#pollTimerEndsAt) {
      ctx.log.warn("poll() came after max.poll.interval.ms; the member rejoins", { lateByUs: now - this.#pollTimerEndsAt });
      this.#membership.maybeRejoinStaleMember(ctx);
    }
    this.#lastPollAt = now;
    this.#pollTimerEndsAt = now + ms(this.#maxPollIntervalMs);
  }

  /**
   * How long a pass of poll()'s loop may wait for records, from the
   * heartbeat's side (`AbstractHeartbeatRequestManager.maximumTimeToWait`):
   * until the next heartbeat, at most half of what is left of the poll
   * timer, and at most the network thread's MAX_POLL_TIMEOUT_MS (5 s).
   * Where Kafka answers 0 (a heartbeat due, or no interval known yet) its
   * application thread spins through passes until the network thread has
   * sent it; here the background thread sends it in the same instant, and
   * the pass waits the heartbeat interval (5 s while none is known).
   */
  maximumTimeToWait(now: Micros): Micros {
    const pollLeft = this.#pollTimerEndsAt - this.#pollClock.update(now);
    const interval = ms(this.#state.intervalMs);
    const toHeartbeat = this.#state.timeToNextHeartbeat(now);
    const nextHeartbeat = toHeartbeat > 0 ? toHeartbeat : interval > 0 ? interval : MAX_POLL_TIMEOUT_US;
    const wait = Math.min(nextHeartbeat, MAX_POLL_TIMEOUT_US);
    return pollLeft > 1 ? Math.min(wait, Math.floor(pollLeft / 2)) : wait;
  }

  /** Sends a heartbeat if one is due. */
  poll(ctx: Context): void {
    const membership = this.#membership;
    const coordinator = this.#coordinator.coordinator;
    // Read on every run of the background thread, as `maximumTimeToWait` does in each network-thread loop.
    const pollTimerNow = this.#pollClock.update(ctx.now());
    if (coordinator === null || shouldSkipHeartbeat(membership.state)) {
      membership.onHeartbeatRequestSkipped(ctx);
      return;
    }
    const now = ctx.now();
    if (pollTimerNow >= this.#pollTimerEndsAt && !isLeavingGroup(membership.state) && !this.#ignoresPollTimer()) {
      ctx.log.warn("max.poll.interval.ms expired without a poll(); leaving the group");
      this.#observer.pollTimeout(ctx, this.#lastPollAt, this.#maxPollIntervalMs);
      membership.transitionToSendingLeaveGroup(true, ctx);
      // The leave goes out at once and its response is ignored: the member may rejoin before or after it.
      this.#send(coordinator, true, ctx);
      this.#state.reset();
      this.#inFlight = null;
      this.#fields.reset();
      return;
    }
    // Kafka's `heartbeatNow` skips the interval, but here not the backoff of a failed attempt: without it a
    // joining member answered COORDINATOR_LOAD_IN_PROGRESS would ask again every round trip (spec 1.7).
    const heartbeatNow =
      membership.state === "LEAVING" ||
      (shouldHeartbeatNow(membership.state) && !this.#state.inFlight && !this.#state.backingOffAfterFailure(now));
    if (!heartbeatNow && !this.#state.canSendRequest(now)) return;
    this.#send(coordinator, false, ctx);
  }

  /** When poll() may next have something to do, or null (a response or a state change will tell). */
  nextWakeAt(now: Micros): Micros | null {
    const state = this.#membership.state;
    if (this.#coordinator.coordinator === null || shouldSkipHeartbeat(state)) return null;
    let next: Micros | null =
      isLeavingGroup(state) || (this.#ignoresPollTimer() && now >= this.#pollTimerEndsAt) ? null : this.#pollTimerEndsAt;
    if (!this.#state.inFlight) next = Math.min(next ?? Number.POSITIVE_INFINITY, now + this.#state.timeToNextHeartbeat(now));
    return next;
  }

  /** The planted bug stale-member-keeps-heartbeating: an expired poll timer neither makes the member leave nor wakes it. */
  #ignoresPollTimer(): boolean {
    return this.#bugs.has("stale-member-keeps-heartbeating");
  }

  #send(coordinator: string, ignoreResponse: boolean, ctx: Context): void {
    const membership = this.#membership;
    const correlationId = this.#channel.nextCorrelationId();
    const fields = this.#fields.build({
      groupId: membership.groupId,
      memberId: membership.memberId,
      groupInstanceId: membership.groupInstanceId,
      state: membership.state,
      memberEpoch: membership.memberEpoch(),
      subscription: membership.subscription,
      currentAssignment: membership.currentAssignment,
    });
    this.#channel.send(
      ctx,
      coordinator,
      { type: "ConsumerGroupHeartbeatRequest", correlationId, apiVersion: 1, clientId: this.#channel.clientId, ...fields },
      "ConsumerGroupHeartbeatResponse",
      (response, ctx) => (ignoreResponse ? this.#logIgnored(response, ctx) : this.#onResponse(correlationId, response, ctx)),
      (ctx) => (ignoreResponse ? ctx.log.info("leave heartbeat got no response") : this.#onTransportFailure(correlationId, ctx)),
    );
    if (!ignoreResponse) {
      this.#state.onSendAttempt();
      this.#inFlight = correlationId;
    }
    membership.onHeartbeatRequestGenerated(ctx);
    this.#state.resetTimer(ctx.now());
  }

  /**
   * Whether this is the answer to the heartbeat in flight (settling it).
   * Answers to heartbeats superseded since (the request state was reset
   * after a poll timeout) belong to an earlier membership and are dropped.
   */
  #settle(correlationId: number, ctx: Context): boolean {
    if (this.#inFlight !== correlationId) {
      ctx.log.info("dropped the outcome of a superseded heartbeat", { correlationId });
      return false;
    }
    this.#inFlight = null;
    return true;
  }

  #onResponse(correlationId: number, response: ConsumerGroupHeartbeatResponse, ctx: Context): void {
    if (!this.#settle(correlationId, ctx)) return;
    const now = ctx.now();
    if (response.errorCode === ErrorCode.NONE) {
      this.#state.updateHeartbeatInterval(response.heartbeatIntervalMs, now);
      this.#state.onSuccessfulAttempt(now);
      this.#membership.onHeartbeatSuccess(response, ctx);
      return;
    }
    this.#fields.reset();
    this.#state.onFailedAttempt(now);
    const error = response.errorCode;
    ctx.log.info("heartbeat failed", { error: errorName(error), message: response.errorMessage });
    switch (error) {
      case ErrorCode.NOT_COORDINATOR:
      case ErrorCode.COORDINATOR_NOT_AVAILABLE:
        this.#coordinator.markUnknown(`heartbeat ${errorName(error)}`, ctx);
        // No backoff: the next heartbeat goes as soon as the coordinator is found again.
        this.#state.reset();
        break;
      case ErrorCode.COORDINATOR_LOAD_IN_PROGRESS:
        break;
      case ErrorCode.FENCED_MEMBER_EPOCH:
      case ErrorCode.UNKNOWN_MEMBER_ID:
        this.#membership.transitionToFenced(ctx);
        // No backoff: rejoin as soon as the assignment is released.
        this.#state.reset();
        break;
      default:
        // The fatal list of spec 1.7, and (like Kafka) any error the client does not expect.
        this.#membership.transitionToFatal(errorName(error), ctx);
        break;
    }
    this.#membership.onHeartbeatFailure(ctx);
  }

  #onTransportFailure(correlationId: number, ctx: Context): void {
    if (!this.#settle(correlationId, ctx)) return;
    this.#state.onFailedAttempt(ctx.now());
    this.#fields.reset();
    this.#coordinator.markUnknown("heartbeat got no response", ctx);
    this.#membership.onHeartbeatFailure(ctx);
  }

  #logIgnored(response: ConsumerGroupHeartbeatResponse, ctx: Context): void {
    ctx.log.info("response to the leave heartbeat after the poll timeout (ignored)", { error: errorName(response.errorCode) });
  }
}
