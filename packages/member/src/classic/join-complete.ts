import { type Context, compareTp, decodeAssignment, type TopicPartition, tpKey } from "@kcsim/protocol";
import type { RebalanceProtocol } from "../assignors/rebalance-protocol.js";
import { flattenTopicPartitionList } from "../assignors/topic-partitions.js";
import type { AssignedPartitions } from "../consumer/assigned-partitions.js";
import type { CommitRequestManager } from "../consumer/commit-request-manager.js";
import type { RebalanceListenerInvoker } from "../consumer/membership-manager.js";
import type { PositionInitializer } from "../consumer/position-initializer.js";
import type { AssignorMemory } from "./assignor-memory.js";
import type { ClassicMembership } from "./classic-membership.js";
import { type Generation, sameGeneration } from "./generation.js";

export interface JoinCompleteDependencies {
  readonly membership: ClassicMembership;
  readonly assigned: AssignedPartitions;
  readonly commits: CommitRequestManager;
  readonly positions: PositionInitializer;
  readonly listener: RebalanceListenerInvoker;
  readonly assignorMemory: AssignorMemory;
  readonly protocol: RebalanceProtocol;
}

/** The assignment in a SyncGroup response does not decode: Kafka's IllegalStateException out of poll(), fatal. */
export class UnreadableAssignmentError extends Error {
  override readonly name = "IllegalStateException";
}

/**
 * One run of `ConsumerCoordinator.onJoinComplete`, inside poll() once
 * SyncGroup answered: take the new assignment. COOPERATIVE first revokes
 * what the assignment takes away (owned - assigned), onPartitionsRevoked,
 * and asks for a second rebalance at once if that was anything; both
 * protocols then install the assignment and call onPartitionsAssigned with
 * what was added (everything under EAGER, where nothing is owned by now),
 * after which those partitions are owned and get positions.
 *
 * A generation reset by the heartbeat thread while a callback runs does
 * not stop the run, as in Kafka: `joinGroupIfNeeded` checks the generation
 * only before calling onJoinComplete, which then installs the assignment
 * and calls onPartitionsAssigned whatever happened meanwhile. The member
 * owns the installed partitions under a dead generation until the next
 * `onJoinPrepare` (the join loop goes on, since the reset asked for a
 * rejoin) gives them up as lost. Positions are not initialized for them:
 * Kafka's poll() updates fetch positions only once the join loop is done.
 * Only leaving (close/unsubscribe) or a fatal error drops the rest of the run.
 */
export class JoinComplete {
  readonly #deps: JoinCompleteDependencies;
  readonly #generation: Generation;
  #done = false;
  #abandoned = false;

  constructor(deps: JoinCompleteDependencies, generation: Generation) {
    this.#deps = deps;
    this.#generation = generation;
  }

  get done(): boolean {
    return this.#done;
  }

  abandon(): void {
    this.#abandoned = true;
  }

  /** Starts the run; throws UnreadableAssignmentError when the assignment does not decode. */
  start(assignmentBytes: Uint8Array, assignor: string, ctx: Context): void {
    const { membership, assigned, protocol } = this.#deps;
    let assignment: TopicPartition[];
    try {
      assignment = flattenTopicPartitionList(decodeAssignment(assignmentBytes).assignedPartitions).sort(compareTp);
    } catch (error) {
      throw new UnreadableAssignmentError(
        `the assignment from the SyncGroup response does not decode (${assignmentBytes.length} bytes): ${error instanceof Error ? error.message : String(error)}`,
      );
    }

    // `SubscriptionState.checkAssignmentMatchedSubscription`: the subscription changed since the join.
    const subscribed = new Set(membership.subscription);
    if (assignment.some((tp) => !subscribed.has(tp.topic))) {
      ctx.log.info("received assignment does not match the current subscription; rejoining", {
        assignment: assignment.map((tp) => tpKey(tp.topic, tp.partition)),
      });
      membership.requestRejoin("received assignment does not match the current subscription", ctx);
      this.#finish();
      return;
    }

    const owned = assigned.all();
    const assignedKeys = new Set(assignment.map(key));
    const ownedKeys = new Set(owned.map(key));
    const added = assignment.filter((tp) => !ownedKeys.has(key(tp)));
    const revoked = protocol === "COOPERATIVE" ? owned.filter((tp) => !assignedKeys.has(key(tp))) : [];
    ctx.log.info("joined group; updating assignment", {
      generation: this.#generation.generationId,
      assigned: assignment.map(key),
      added: added.map(key),
      revoked: revoked.map(key),
    });
    const install = (ctx: Context) => this.#install(assignment, added, assignor, ctx);
    if (revoked.length === 0) {
      install(ctx);
      return;
    }
    assigned.markPendingRevocation(revoked, ctx);
    this.#deps.listener.invoke("onPartitionsRevoked", revoked, ctx, (ctx) => {
      if (this.#stopped()) return;
      membership.requestRejoin("need to revoke partitions and re-join", ctx);
      install(ctx);
    });
  }

  #install(assignment: readonly TopicPartition[], added: readonly TopicPartition[], assignor: string, ctx: Context): void {
    const { assigned, commits, assignorMemory, listener, positions } = this.#deps;
    assignorMemory.onAssignment(assignor, assignment, this.#generation.generationId);
    commits.resetAutoCommitTimer(ctx.now());
    assigned.install(assignment, added, ctx);
    listener.invoke("onPartitionsAssigned", added, ctx, (ctx) => {
      if (this.#stopped()) return;
      const enabled = assigned.enableAwaitingCallback(ctx);
      if (sameGeneration(this.#deps.membership.generation, this.#generation)) positions.request(enabled, ctx);
      else
        ctx.log.info("assignment installed after the generation was reset; the next onJoinPrepare gives it up as lost", {
          generation: this.#generation.generationId,
        });
      this.#finish();
    });
  }

  /** Left or failed since the join: the rest of the run is dropped. */
  #stopped(): boolean {
    if (!this.#abandoned && !this.#deps.membership.isFatal) return false;
    this.#finish();
    return true;
  }

  #finish(): void {
    this.#done = true;
    this.#deps.membership.changed();
  }
}

function key(tp: TopicPartition): string {
  return tpKey(tp.topic, tp.partition);
}
