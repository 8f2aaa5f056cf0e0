import type { Context } from "@kcsim/protocol";
import type { AssignedPartitions } from "../consumer/assigned-partitions.js";
import type { CommitRequestManager } from "../consumer/commit-request-manager.js";
import type { Continuation } from "../consumer/completion.js";
import { CLOSE_TIMEOUT_MS, type LeaveReason, type RebalanceListenerInvoker } from "../consumer/membership-manager.js";
import type { ClassicMembership } from "./classic-membership.js";
import { isGenerationReset } from "./generation.js";

export interface GroupLeaveDependencies {
  readonly membership: ClassicMembership;
  readonly assigned: AssignedPartitions;
  readonly commits: CommitRequestManager;
  readonly listener: RebalanceListenerInvoker;
  /** Drops an onJoinPrepare / onJoinComplete under way. */
  abandonRebalanceCallbacks(): void;
  /** `maybeLeaveGroup`. */
  leaveGroup(reason: string, ctx: Context): void;
}

const LEAVE_REASONS: Readonly<Record<LeaveReason, string>> = {
  close: "the consumer is being closed",
  unsubscribe: "the consumer unsubscribed from all topics",
};

/**
 * close() and unsubscribe() of the classic consumer, on the application
 * thread:
 * - close(): with auto-commit, commitSync of all consumed offsets (it fails
 *   locally outside a stable generation);
 * - `onLeavePrepare`: every assigned partition is given up (no longer
 *   owned), onPartitionsRevoked, or onPartitionsLost if the generation was
 *   reset or a rebalance is in progress;
 * - `maybeLeaveGroup`: LeaveGroup for a dynamic member only, then the
 *   generation is forgotten (UNJOINED);
 * - unsubscribe() also drops the subscription (the member stays unjoined
 *   until a subscribe() and a poll()).
 */
export class ClassicGroupLeave {
  readonly #deps: GroupLeaveDependencies;
  #leaving = false;

  constructor(deps: GroupLeaveDependencies) {
    this.#deps = deps;
  }

  get leaving(): boolean {
    return this.#leaving;
  }

  leave(reason: LeaveReason, ctx: Context, onDone: Continuation): void {
    const { membership, commits } = this.#deps;
    this.#leaving = true;
    this.#deps.abandonRebalanceCallbacks();
    const finish = (ctx: Context) => {
      this.#leaving = false;
      if (reason === "unsubscribe") membership.subscribe([]);
      onDone(ctx);
    };
    if (membership.isFatal) {
      // poll() already threw; nothing is owned any more and nothing is sent.
      this.#deps.assigned.clear("leave", ctx);
      finish(ctx);
      return;
    }
    const leavePrepare = (ctx: Context) => this.#onLeavePrepare(ctx, (ctx) => this.#afterRelease(reason, ctx, finish));
    if (reason === "close" && commits.autoCommitEnabled) commits.autoCommitOnClose(CLOSE_TIMEOUT_MS, ctx, (ctx) => leavePrepare(ctx));
    else leavePrepare(ctx);
  }

  /** `ConsumerCoordinator.onLeavePrepare`. */
  #onLeavePrepare(ctx: Context, then: Continuation): void {
    const { membership, assigned, listener } = this.#deps;
    const dropped = assigned.all();
    if (dropped.length === 0) {
      then(ctx);
      return;
    }
    const lost = isGenerationReset(membership.generation) || membership.rebalanceInProgress;
    assigned.releaseAll("leave", ctx);
    listener.invoke(lost ? "onPartitionsLost" : "onPartitionsRevoked", dropped, ctx, (ctx) => {
      assigned.clear("leave", ctx);
      then(ctx);
    });
  }

  #afterRelease(reason: LeaveReason, ctx: Context, finish: Continuation): void {
    if (!this.#deps.membership.isFatal) this.#deps.leaveGroup(LEAVE_REASONS[reason], ctx);
    finish(ctx);
  }
}
