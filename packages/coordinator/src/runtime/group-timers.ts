import { type Context, ms } from "@kcsim/protocol";

/**
 * A group timer (Kafka keeps them in its `CoordinatorTimer`, never persisted):
 * - consumer groups: a member's `session` and `rebalance` timers, and for a
 *   classic member of a consumer group its `classic-member-join` (rejoin
 *   after REBALANCE_IN_PROGRESS) and `classic-member-sync` deadlines;
 * - classic groups: a member's `classic-heartbeat` (session, pending-member
 *   expiry and new-member join deadline), the group's `classic-join` (the
 *   initial delay or the join deadline) and `classic-sync` deadlines.
 */
export type GroupTimer =
  | { readonly kind: "session"; readonly groupId: string; readonly memberId: string }
  | { readonly kind: "rebalance"; readonly groupId: string; readonly memberId: string; readonly memberEpoch: number }
  | { readonly kind: "classic-member-join"; readonly groupId: string; readonly memberId: string }
  | { readonly kind: "classic-member-sync"; readonly groupId: string; readonly memberId: string }
  | { readonly kind: "classic-heartbeat"; readonly groupId: string; readonly memberId: string }
  | { readonly kind: "classic-join"; readonly groupId: string; readonly initialDelay: InitialRebalanceDelay | null }
  | { readonly kind: "classic-sync"; readonly groupId: string; readonly generationId: number };

/** Where an initial rebalance delay stands: the delay just waited and the time left after it. */
export interface InitialRebalanceDelay {
  readonly delayMs: number;
  readonly remainingMs: number;
}

type TimerContext = Pick<Context, "setTimer" | "cancelTimer">;

/** `groupSessionTimeoutKey`. */
export function sessionTimerName(groupId: string, memberId: string): string {
  return `session-timeout-${groupId}-${memberId}`;
}

/** `groupRebalanceTimeoutKey`. */
export function rebalanceTimerName(groupId: string, memberId: string): string {
  return `rebalance-timeout-${groupId}-${memberId}`;
}

/** `consumerGroupJoinKey`. */
export function classicMemberJoinTimerName(groupId: string, memberId: string): string {
  return `join-${groupId}-${memberId}`;
}

/** `consumerGroupSyncKey`. */
export function classicMemberSyncTimerName(groupId: string, memberId: string): string {
  return `sync-${groupId}-${memberId}`;
}

/** `classicGroupHeartbeatKey`. */
export function classicHeartbeatTimerName(groupId: string, memberId: string): string {
  return `heartbeat-${groupId}-${memberId}`;
}

/** `classicGroupJoinKey`. */
export function classicJoinTimerName(groupId: string): string {
  return `join-${groupId}`;
}

/** `classicGroupSyncKey`. */
export function classicSyncTimerName(groupId: string): string {
  return `sync-${groupId}`;
}

/** The ctx timer name of a group timer. */
export function timerName(timer: GroupTimer): string {
  switch (timer.kind) {
    case "session":
      return sessionTimerName(timer.groupId, timer.memberId);
    case "rebalance":
      return rebalanceTimerName(timer.groupId, timer.memberId);
    case "classic-member-join":
      return classicMemberJoinTimerName(timer.groupId, timer.memberId);
    case "classic-member-sync":
      return classicMemberSyncTimerName(timer.groupId, timer.memberId);
    case "classic-heartbeat":
      return classicHeartbeatTimerName(timer.groupId, timer.memberId);
    case "classic-join":
      return classicJoinTimerName(timer.groupId);
    case "classic-sync":
      return classicSyncTimerName(timer.groupId);
  }
}

/**
 * The group timers, armed on ctx under Kafka's key names. A fired timer's
 * name is mapped back to what it was armed for here (names alone are
 * ambiguous when ids contain '-', exactly as Kafka's string keys are:
 * re-arming a name replaces it).
 */
export class GroupTimers {
  readonly #armed = new Map<string, GroupTimer>();

  /** (Re-)arms a timer to fire after `afterMs`. */
  schedule(ctx: TimerContext, timer: GroupTimer, afterMs: number): void {
    const name = timerName(timer);
    this.#armed.set(name, timer);
    ctx.setTimer(name, ms(Math.max(0, afterMs)));
  }

  /** Arms the timer unless one of that name is armed (Kafka's `scheduleIfAbsent`). */
  scheduleIfAbsent(ctx: TimerContext, timer: GroupTimer, afterMs: number): void {
    if (!this.#armed.has(timerName(timer))) this.schedule(ctx, timer, afterMs);
  }

  /** (Re-)arms the member's session timer (spec 1.6). */
  scheduleSession(ctx: TimerContext, groupId: string, memberId: string, timeoutMs: number): void {
    this.schedule(ctx, { kind: "session", groupId, memberId }, timeoutMs);
  }

  /** (Re-)arms the rebalance timer of a member that must revoke at `memberEpoch`. */
  scheduleRebalance(ctx: TimerContext, groupId: string, memberId: string, memberEpoch: number, timeoutMs: number): void {
    this.schedule(ctx, { kind: "rebalance", groupId, memberId, memberEpoch }, timeoutMs);
  }

  cancelSession(ctx: TimerContext, groupId: string, memberId: string): void {
    this.cancel(ctx, sessionTimerName(groupId, memberId));
  }

  cancelRebalance(ctx: TimerContext, groupId: string, memberId: string): void {
    this.cancel(ctx, rebalanceTimerName(groupId, memberId));
  }

  /** Every timer of a consumer-group member (Kafka's `cancelTimers`). */
  cancelAll(ctx: TimerContext, groupId: string, memberId: string): void {
    this.cancelSession(ctx, groupId, memberId);
    this.cancelRebalance(ctx, groupId, memberId);
    this.cancel(ctx, classicMemberJoinTimerName(groupId, memberId));
    this.cancel(ctx, classicMemberSyncTimerName(groupId, memberId));
  }

  cancel(ctx: TimerContext, name: string): void {
    if (this.#armed.delete(name)) ctx.cancelTimer(name);
  }

  /** What a fired timer was armed for (and forgets it), or undefined if the name is not a group timer. */
  take(name: string): GroupTimer | undefined {
    const timer = this.#armed.get(name);
    this.#armed.delete(name);
    return timer;
  }

  /** The armed timers (for snapshots and tests). */
  armed(): ReadonlyMap<string, GroupTimer> {
    return this.#armed;
  }
}
