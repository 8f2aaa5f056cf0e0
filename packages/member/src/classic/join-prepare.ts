import { type Context, type Micros, ms, type TopicPartition, tpKey } from "@kcsim/protocol";
import type { RebalanceProtocol } from "../assignors/rebalance-protocol.js";
import type { AssignedPartitions } from "../consumer/assigned-partitions.js";
import type { CommitRequestManager } from "../consumer/commit-request-manager.js";
import type { RebalanceListenerInvoker } from "../consumer/membership-manager.js";
import type { ClassicMembership } from "./classic-membership.js";
import { isGenerationReset } from "./generation.js";

export interface JoinPrepareDependencies {
  readonly membership: ClassicMembership;
  readonly assigned: AssignedPartitions;
  readonly commits: CommitRequestManager;
  readonly listener: RebalanceListenerInvoker;
  readonly protocol: RebalanceProtocol;
  /** max.poll.interval.ms: how long onJoinPrepare keeps committing before it gives up and goes on (`joinPrepareTimer`). */
  readonly rebalanceTimeoutMs: number;
  /** retry.backoff.ms: the wait after a commit's retriable failure before the next. */
  readonly retryBackoffMs: number;
}

/**
 * - `start`: nothing done yet;
 * - `committing`: an auto-commit before the revocation is in flight;
 * - `backing-off`: the last one failed retriably; the next goes at `#retryAt`;
 * - `committed`: the commits are over; the callback may run (on the application thread, inside poll());
 * - `revoking`: the callback runs;
 * - `done`: the JoinGroup may go.
 */
type JoinPrepareStep = "start" | "committing" | "backing-off" | "committed" | "revoking" | "done";

/**
 * One run of `ConsumerCoordinator.onJoinPrepare`, before a JoinGroup:
 * - with auto-commit, commit all consumed offsets asynchronously and wait
 *   for the answer. A retriable failure is met by a new commit, sent from
 *   the next call inside poll() after retry.backoff.ms, of the positions
 *   consumed by then (never the old request again, so nothing goes out
 *   after close() began, and nothing older than what went before). A
 *   non-retriable failure, or the rebalance timeout running out (even with
 *   a commit still in flight), only ends the waiting: the join goes on.
 * - then give partitions up on the application thread:
 *   - the generation was reset (the member lost its membership): all of
 *     them, onPartitionsLost;
 *   - EAGER: all of them, onPartitionsRevoked (even with none);
 *   - COOPERATIVE: only those of topics no longer subscribed, onPartitionsRevoked.
 * Partitions stop being owned when their revocation begins, before the commit.
 */
export class JoinPrepare {
  readonly #deps: JoinPrepareDependencies;
  #step: JoinPrepareStep = "start";
  #abandoned = false;
  /** When onJoinPrepare stops waiting for commits (`joinPrepareTimer`), set by the first call. */
  #deadline: Micros | null = null;
  #retryAt: Micros = 0;

  constructor(deps: JoinPrepareDependencies) {
    this.#deps = deps;
  }

  get done(): boolean {
    return this.#step === "done";
  }

  /** Whether `advance` has something to do now (a commit in flight and the callback are waited for, up to the timeout). */
  canAdvance(now: Micros): boolean {
    switch (this.#step) {
      case "start":
      case "committed":
      case "done":
        return true;
      case "backing-off":
        return now >= this.#retryAt;
      case "committing":
        return this.#deadline !== null && now >= this.#deadline;
      case "revoking":
        return false;
    }
  }

  /** When `advance` will have something to do without an answer arriving (the backoff's end, the timeout), or null. */
  wakeAt(): Micros | null {
    if (this.#abandoned) return null;
    if (this.#step === "backing-off") return this.#retryAt;
    if (this.#step === "committing") return this.#deadline;
    return null;
  }

  /** The member left or failed meanwhile: late completions change nothing, and no commit is sent again. */
  abandon(): void {
    this.#abandoned = true;
  }

  /** Runs inside poll(): sends a commit, moves on when the waiting is over, or runs the callback once the commits are. */
  advance(ctx: Context): void {
    if (this.#abandoned) return;
    const now = ctx.now();
    switch (this.#step) {
      case "start":
        this.#deadline = now + ms(this.#deps.rebalanceTimeoutMs);
        this.#commit(ctx);
        return;
      case "backing-off":
        if (now >= this.#retryAt) this.#commit(ctx);
        return;
      case "committing":
        if (this.#deadline !== null && now >= this.#deadline) {
          ctx.log.error("asynchronous auto-commit of offsets failed: joinPrepare timeout; will continue to join group");
          this.#step = "committed";
        }
        return;
      case "committed":
        this.#revoke(ctx);
        return;
      case "revoking":
      case "done":
        return;
    }
  }

  #commit(ctx: Context): void {
    const { membership, assigned, commits } = this.#deps;
    if (!commits.autoCommitEnabled) {
      this.#step = "committed";
      return;
    }
    // Stop fetching what is about to be revoked, so positions cannot move past the commit.
    if (!isGenerationReset(membership.generation)) assigned.markPendingRevocation(this.#toRevoke(), ctx);
    this.#step = "committing";
    commits.autoCommitAsync("revocation", ctx, (ctx, committed, retriable) => {
      // One commit is out at a time; once the timeout moved on, its answer changes nothing.
      if (this.#abandoned || this.#step !== "committing") return;
      const now = ctx.now();
      const deadline = this.#deadline ?? now;
      if (committed || !retriable || now >= deadline) {
        if (!committed && !retriable) ctx.log.error("asynchronous auto-commit of offsets failed; will continue to join group");
        this.#step = "committed";
      } else {
        // `pollTimer.sleep(min(remaining, retry.backoff.ms))`, then the next onJoinPrepare commits anew.
        this.#step = "backing-off";
        this.#retryAt = Math.min(now + ms(this.#deps.retryBackoffMs), deadline);
      }
      membership.changed();
    });
  }

  /** Decided after the commit: the heartbeat thread may have reset the generation meanwhile. */
  #revoke(ctx: Context): void {
    const { membership, assigned } = this.#deps;
    if (isGenerationReset(membership.generation)) {
      const lost = assigned.all();
      if (lost.length === 0) {
        this.#finish();
        return;
      }
      assigned.releaseAll("lost", ctx);
      this.#invoke("onPartitionsLost", lost, ctx, (ctx) => assigned.clear("lost", ctx));
      return;
    }
    const revoked = this.#toRevoke();
    if (this.#deps.protocol === "COOPERATIVE" && revoked.length === 0) {
      this.#finish();
      return;
    }
    assigned.markPendingRevocation(revoked, ctx);
    // EAGER calls onPartitionsRevoked even when nothing is owned, as Kafka does.
    this.#invoke("onPartitionsRevoked", revoked, ctx, (ctx) => {
      if (this.#deps.protocol === "EAGER") {
        assigned.clear("revoked", ctx);
        return;
      }
      const gone = new Set(revoked.map((tp) => tpKey(tp.topic, tp.partition)));
      assigned.install(
        assigned.all().filter((tp) => !gone.has(tpKey(tp.topic, tp.partition))),
        [],
        ctx,
      );
    });
  }

  /** EAGER: everything assigned; COOPERATIVE: the partitions of topics the member no longer subscribes to. */
  #toRevoke(): TopicPartition[] {
    const { membership, assigned } = this.#deps;
    const all = assigned.all().filter((tp) => assigned.statusOf(tp) !== "released");
    if (this.#deps.protocol === "EAGER") return all;
    const subscribed = new Set(membership.subscription);
    return all.filter((tp) => !subscribed.has(tp.topic));
  }

  #invoke(
    callback: "onPartitionsLost" | "onPartitionsRevoked",
    partitions: readonly TopicPartition[],
    ctx: Context,
    afterCallback: (ctx: Context) => void,
  ): void {
    this.#step = "revoking";
    this.#deps.listener.invoke(callback, partitions, ctx, (ctx) => {
      if (this.#abandoned) return;
      afterCallback(ctx);
      this.#finish();
    });
  }

  #finish(): void {
    this.#step = "done";
    this.#deps.membership.changed();
  }
}
