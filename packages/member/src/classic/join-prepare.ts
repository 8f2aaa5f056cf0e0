import { type Context, ms, type TopicPartition, tpKey } from "@kcsim/protocol";
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
  /** max.poll.interval.ms: how long the commit before the revocation may be retried. */
  readonly rebalanceTimeoutMs: number;
}

/**
 * - `start`: nothing done yet;
 * - `committing`: the auto-commit before the revocation is in flight (or retrying);
 * - `committed`: it is over; the callback may run (on the application thread, inside poll());
 * - `revoking`: the callback runs;
 * - `done`: the JoinGroup may go.
 */
type JoinPrepareStep = "start" | "committing" | "committed" | "revoking" | "done";

/**
 * One run of `ConsumerCoordinator.onJoinPrepare`, before a JoinGroup:
 * with auto-commit, commit all consumed offsets (retried on retriable
 * errors until the rebalance timeout; a failure only delays the join),
 * then give partitions up on the application thread:
 * - the generation was reset (the member lost its membership): all of
 *   them, onPartitionsLost;
 * - EAGER: all of them, onPartitionsRevoked (even with none);
 * - COOPERATIVE: only those of topics no longer subscribed, onPartitionsRevoked.
 * Partitions stop being owned when their revocation begins, before the commit.
 */
export class JoinPrepare {
  readonly #deps: JoinPrepareDependencies;
  #step: JoinPrepareStep = "start";
  #abandoned = false;

  constructor(deps: JoinPrepareDependencies) {
    this.#deps = deps;
  }

  get done(): boolean {
    return this.#step === "done";
  }

  /** Whether `advance` has something to do now (the commit and the callback are waited for). */
  get canAdvance(): boolean {
    return this.#step === "start" || this.#step === "committed" || this.#step === "done";
  }

  /** The member left or failed meanwhile: late completions change nothing. */
  abandon(): void {
    this.#abandoned = true;
  }

  /** Runs inside poll(): starts the commit, or the callback once the commit is over. */
  advance(ctx: Context): void {
    if (this.#abandoned) return;
    if (this.#step === "start") this.#commit(ctx);
    else if (this.#step === "committed") this.#revoke(ctx);
  }

  #commit(ctx: Context): void {
    const { membership, assigned, commits } = this.#deps;
    // Stop fetching what is about to be revoked, so positions cannot move past the commit.
    if (!isGenerationReset(membership.generation)) assigned.markPendingRevocation(this.#toRevoke(), ctx);
    this.#step = "committing";
    const deadline = ctx.now() + ms(this.#deps.rebalanceTimeoutMs);
    commits.autoCommitBeforeRevocation("revocation", deadline, ctx, () => {
      if (this.#abandoned) return;
      this.#step = "committed";
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
