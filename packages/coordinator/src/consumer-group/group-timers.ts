import { type Context, ms } from "@kcsim/protocol";

/** A member timer of a consumer group (Kafka keeps them in its `CoordinatorTimer`, never persisted). */
export type GroupTimer =
  | { readonly kind: "session"; readonly groupId: string; readonly memberId: string }
  | { readonly kind: "rebalance"; readonly groupId: string; readonly memberId: string; readonly memberEpoch: number };

type TimerContext = Pick<Context, "setTimer" | "cancelTimer">;

/** `consumerGroupSessionTimeoutKey`. */
export function sessionTimerName(groupId: string, memberId: string): string {
  return `session-timeout-${groupId}-${memberId}`;
}

/** `consumerGroupRebalanceTimeoutKey`. */
export function rebalanceTimerName(groupId: string, memberId: string): string {
  return `rebalance-timeout-${groupId}-${memberId}`;
}

/**
 * The session and rebalance timers of consumer-group members, armed on
 * ctx under Kafka's key names. A fired timer's name is mapped back to what
 * it was armed for here (names alone are ambiguous when ids contain '-',
 * exactly as Kafka's string keys are: re-arming a name replaces it).
 */
export class GroupTimers {
  readonly #armed = new Map<string, GroupTimer>();

  /** (Re-)arms the member's session timer (spec 1.6). */
  scheduleSession(ctx: TimerContext, groupId: string, memberId: string, timeoutMs: number): void {
    const name = sessionTimerName(groupId, memberId);
    this.#armed.set(name, { kind: "session", groupId, memberId });
    ctx.setTimer(name, ms(timeoutMs));
  }

  /** (Re-)arms the rebalance timer of a member that must revoke at `memberEpoch`. */
  scheduleRebalance(ctx: TimerContext, groupId: string, memberId: string, memberEpoch: number, timeoutMs: number): void {
    const name = rebalanceTimerName(groupId, memberId);
    this.#armed.set(name, { kind: "rebalance", groupId, memberId, memberEpoch });
    ctx.setTimer(name, ms(Math.max(0, timeoutMs)));
  }

  cancelSession(ctx: TimerContext, groupId: string, memberId: string): void {
    this.#cancel(ctx, sessionTimerName(groupId, memberId));
  }

  cancelRebalance(ctx: TimerContext, groupId: string, memberId: string): void {
    this.#cancel(ctx, rebalanceTimerName(groupId, memberId));
  }

  cancelAll(ctx: TimerContext, groupId: string, memberId: string): void {
    this.cancelSession(ctx, groupId, memberId);
    this.cancelRebalance(ctx, groupId, memberId);
  }

  /** What a fired timer was armed for (and forgets it), or undefined if the name is not a member timer. */
  take(name: string): GroupTimer | undefined {
    const timer = this.#armed.get(name);
    this.#armed.delete(name);
    return timer;
  }

  /** The armed timers (for snapshots and tests). */
  armed(): ReadonlyMap<string, GroupTimer> {
    return this.#armed;
  }

  #cancel(ctx: TimerContext, name: string): void {
    if (this.#armed.delete(name)) ctx.cancelTimer(name);
  }
}
