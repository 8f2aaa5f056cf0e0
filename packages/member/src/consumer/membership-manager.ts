import { type ConsumerGroupHeartbeatResponse, type Context, ms, PlantedBugs, type TopicPartition, tpKey } from "@kcsim/protocol";
import type { ClientMemberState, RebalanceCallback } from "../observations.js";
import type { AssignedPartitions } from "./assigned-partitions.js";
import type { CommitRequestManager } from "./commit-request-manager.js";
import { Completion, type Continuation } from "./completion.js";
import { LocalAssignment } from "./local-assignment.js";
import type { MemberIdentity } from "./member-identity.js";
import type { MemberObserver } from "./member-observer.js";
import { assertAllowedTransition, canHandleNewAssignment, isAllowedTransition, isNotInGroup } from "./member-state.js";
import type { PositionInitializer } from "./position-initializer.js";
import type { TopicMetadata } from "./topic-metadata.js";

/** Runs a rebalance callback on the application thread; `onDone` once it has completed. */
export interface RebalanceListenerInvoker {
  invoke(callback: RebalanceCallback, partitions: readonly TopicPartition[], ctx: Context, onDone: Continuation): void;
}

export type LeaveReason = "close" | "unsubscribe";

/** consumer.close()'s default timeout (`KafkaConsumer.DEFAULT_CLOSE_TIMEOUT_MS`), which bounds the commit on close. */
export const CLOSE_TIMEOUT_MS = 30_000;

/** Leave epochs (`ConsumerGroupHeartbeatRequest.LEAVE_GROUP_MEMBER_EPOCH` / `LEAVE_GROUP_STATIC_MEMBER_EPOCH`). */
const LEAVE_GROUP_MEMBER_EPOCH = -1;
const LEAVE_GROUP_STATIC_MEMBER_EPOCH = -2;

/** What one reconciliation installs: the assignment it acknowledges, its partitions by name, and those it adds. */
interface AssignmentPlan {
  readonly resolved: LocalAssignment;
  readonly partitions: readonly TopicPartition[];
  readonly added: readonly TopicPartition[];
}

/** One reconciliation in progress; `rejoined` interrupts it. */
interface ReconciliationRun {
  rejoined: boolean;
}

export interface MembershipSettings {
  readonly groupId: string;
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  /** max.poll.interval.ms: bounds the commit before a revocation. */
  readonly rebalanceTimeoutMs: number;
  /** Planted bugs (normally none). */
  readonly bugs?: PlantedBugs;
  /** kcsim.reconciliation.skip.released.partitions (not Kafka; default false). */
  readonly skipReleasedPartitions?: boolean;
}

export interface MembershipDependencies {
  readonly metadata: TopicMetadata;
  readonly assigned: AssignedPartitions;
  readonly listener: RebalanceListenerInvoker;
  readonly commits: CommitRequestManager;
  readonly positions: PositionInitializer;
  readonly observer: MemberObserver;
}

/**
 * The member's side of the KIP-848 protocol (spec 2, `AbstractMembershipManager`
 * and `ConsumerMembershipManager`): the client state machine, the target and
 * reconciled assignments, reconciliation with its commit and callbacks,
 * fencing, fatal errors, leaving, and the STALE state after a poll timeout.
 */
export class MembershipManager implements MemberIdentity {
  readonly groupId: string;
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  readonly #rebalanceTimeoutMs: number;
  readonly #deps: MembershipDependencies;
  readonly #bugs: PlantedBugs;
  readonly #skipReleasedPartitions: boolean;

  #state: ClientMemberState = "UNSUBSCRIBED";
  #epoch = 0;
  #current: LocalAssignment = LocalAssignment.NONE;
  #target: LocalAssignment = LocalAssignment.NONE;
  #reconciliation: ReconciliationRun | null = null;
  #subscription: readonly string[] = [];
  #subscriptionUpdated = false;
  #pollTimerExpired = false;
  #staleRelease: Completion | null = null;
  #leave: Completion | null = null;
  #fatalError: string | null = null;
  #unresolvedLogged = "";
  #version = 0;

  constructor(settings: MembershipSettings, deps: MembershipDependencies) {
    this.groupId = settings.groupId;
    this.memberId = settings.memberId;
    this.groupInstanceId = settings.groupInstanceId;
    this.#rebalanceTimeoutMs = settings.rebalanceTimeoutMs;
    this.#deps = deps;
    this.#bugs = settings.bugs ?? PlantedBugs.NONE;
    this.#skipReleasedPartitions = settings.skipReleasedPartitions ?? false;
  }

  get state(): ClientMemberState {
    return this.#state;
  }

  memberEpoch(): number {
    return this.#epoch;
  }

  get currentAssignment(): LocalAssignment {
    return this.#current;
  }

  get targetAssignment(): LocalAssignment {
    return this.#target;
  }

  get subscription(): readonly string[] {
    return this.#subscription;
  }

  get fatalError(): string | null {
    return this.#fatalError;
  }

  get reconciliationInProgress(): boolean {
    return this.#reconciliation !== null;
  }

  /** Bumped on every state change or reconciliation step, so the actor knows when to look again. */
  get version(): number {
    return this.#version;
  }

  // ---- subscription -------------------------------------------------------

  /** subscribe(): records the topics; the next poll() joins if the member is not in the group. */
  subscribe(topics: readonly string[]): void {
    this.#subscription = [...new Set(topics)].sort();
    this.#subscriptionUpdated = true;
  }

  hasSubscription(): boolean {
    return this.#subscription.length > 0;
  }

  /** Called by every poll(): a pending subscribe() makes an unsubscribed member join. */
  onConsumerPoll(ctx: Context): void {
    const updated = this.#subscriptionUpdated;
    this.#subscriptionUpdated = false;
    if (updated && this.#state === "UNSUBSCRIBED" && this.hasSubscription()) this.transitionToJoining(ctx);
  }

  // ---- heartbeat outcomes -------------------------------------------------

  onHeartbeatSuccess(response: ConsumerGroupHeartbeatResponse, ctx: Context): void {
    if (this.#state === "LEAVING") return;
    if (this.#state === "UNSUBSCRIBED" && response.memberEpoch < 0) {
      this.#completeLeave(ctx);
      return;
    }
    if (isNotInGroup(this.#state)) return;
    if (response.memberEpoch < 0) {
      this.#completeLeave(ctx);
      return;
    }
    this.#epoch = response.memberEpoch;
    this.#changed();
    if (response.assignment === null) return;
    if (!canHandleNewAssignment(this.#state)) return;
    this.#processAssignmentReceived(LocalAssignment.partitionsFrom(response.assignment.topicPartitions), ctx);
  }

  /** After an error or transport failure: the (unretried) leave heartbeat is over either way. */
  onHeartbeatFailure(ctx: Context): void {
    if (this.#state === "UNSUBSCRIBED") this.#completeLeave(ctx);
  }

  /** A heartbeat request was just built: ACKNOWLEDGING and LEAVING end here, without waiting for the response. */
  onHeartbeatRequestGenerated(ctx: Context): void {
    if (this.#state === "ACKNOWLEDGING") {
      this.#transitionTo(this.#current.equals(this.#target) ? "STABLE" : "RECONCILING", ctx);
    } else if (this.#state === "LEAVING") {
      if (this.#pollTimerExpired) {
        this.#transitionToStale(ctx);
      } else {
        this.#transitionTo("UNSUBSCRIBED", ctx);
        this.#completeLeave(ctx);
      }
    }
  }

  /** No heartbeat could be sent (no coordinator, or a state without heartbeats): a leave is not retried. */
  onHeartbeatRequestSkipped(ctx: Context): void {
    if (this.#state !== "LEAVING") return;
    ctx.log.warn("leave heartbeat could not be sent (no coordinator); leaving without it");
    this.#transitionTo("UNSUBSCRIBED", ctx);
    this.#completeLeave(ctx);
  }

  #processAssignmentReceived(partitions: ReadonlyMap<string, readonly number[]>, ctx: Context): void {
    const updated = this.#target.updateWith(partitions);
    if (updated !== null) this.#target = updated;
    if (!this.#current.equals(this.#target)) {
      this.#transitionTo("RECONCILING", ctx);
    } else if (this.#state === "RECONCILING" || this.#state === "JOINING") {
      this.#transitionTo("STABLE", ctx);
    }
  }

  // ---- fencing, fatal, joining --------------------------------------------

  /** UNKNOWN_MEMBER_ID / FENCED_MEMBER_EPOCH: give up the assignment as lost, then rejoin at epoch 0. */
  transitionToFenced(ctx: Context): void {
    switch (this.#state) {
      case "PREPARE_LEAVING":
        // Already leaving: no leave heartbeat, no rejoin; the release under way finishes (as lost).
        this.#deps.assigned.releaseAll("lost", ctx);
        this.transitionToSendingLeaveGroup(false, ctx);
        this.#transitionTo("UNSUBSCRIBED", ctx);
        this.#completeLeave(ctx);
        return;
      case "LEAVING":
        this.#transitionTo("UNSUBSCRIBED", ctx);
        this.#completeLeave(ctx);
        return;
      case "UNSUBSCRIBED":
        return;
      case "FENCED":
      case "STALE":
      case "FATAL":
        // A late answer to a heartbeat sent before the member left the group.
        ctx.log.info("fencing error ignored: the member is no longer in the group", { state: this.#state });
        return;
      default:
        break;
    }
    this.#transitionTo("FENCED", ctx);
    this.#epoch = 0;
    if (this.#bugs.has("keep-partitions-after-fenced")) {
      // Planted bug: no onPartitionsLost; the application keeps consuming what it owned while the member
      // rejoins (with an empty owned list, as a join must) until its next assignment is installed.
      this.#current = LocalAssignment.NONE;
      this.transitionToJoining(ctx);
      return;
    }
    const lost = this.#deps.assigned.all();
    this.#deps.assigned.releaseAll("lost", ctx);
    this.#signalPartitionsLost(lost, ctx, (ctx) => {
      this.#clearAssignment(ctx);
      if (this.#state === "FENCED") this.transitionToJoining(ctx);
    });
  }

  /** A fatal error: the member stops for good (poll() throws). */
  transitionToFatal(error: string, ctx: Context): void {
    const previous = this.#state;
    if (previous === "FATAL") return;
    if (!isAllowedTransition(previous, "FATAL")) {
      ctx.log.warn("fatal error ignored: the member is no longer in the group", { state: previous, error });
      return;
    }
    this.#fatalError = error;
    this.#transitionTo("FATAL", ctx);
    this.#deps.observer.fatal(ctx, error);
    if (previous === "UNSUBSCRIBED" || previous === "LEAVING" || previous === "PREPARE_LEAVING") {
      // The leave under way is dropped, callbacks and all; whatever it still held is no longer owned.
      this.#deps.assigned.releaseAll("lost", ctx);
      this.#completeLeave(ctx);
      return;
    }
    const lost = this.#deps.assigned.all();
    this.#deps.assigned.releaseAll("lost", ctx);
    this.#signalPartitionsLost(lost, ctx, (ctx) => this.#clearAssignment(ctx));
  }

  transitionToJoining(ctx: Context): void {
    if (this.#state === "FATAL") return;
    if (this.#reconciliation !== null) this.#reconciliation.rejoined = true;
    this.#epoch = 0;
    this.#transitionTo("JOINING", ctx);
    this.#target = LocalAssignment.NONE;
  }

  // ---- leaving and the poll timeout --------------------------------------

  /**
   * unsubscribe() or close(): give up the assignment (close() with
   * auto-commit commits first; unsubscribe() never commits), then
   * onPartitionsRevoked, or onPartitionsLost if the member has no epoch,
   * then send the leave heartbeat. `onDone` runs when the leave is over.
   */
  leaveGroup(reason: LeaveReason, ctx: Context, onDone: Continuation): void {
    if (isNotInGroup(this.#state)) {
      if (this.#state === "FENCED") {
        this.#clearAssignment(ctx);
        this.#transitionTo("UNSUBSCRIBED", ctx);
      }
      this.#subscription = [];
      onDone(ctx);
      return;
    }
    if (this.#state === "PREPARE_LEAVING" || this.#state === "LEAVING") {
      (this.#leave ?? new Completion()).whenDone(onDone, ctx);
      return;
    }
    this.#transitionTo("PREPARE_LEAVING", ctx);
    const leave = new Completion();
    this.#leave = leave;
    leave.whenDone(onDone, ctx);

    // The application thread is inside close()/unsubscribe(): nothing is consumed while the commit runs.
    const release = (ctx: Context) => {
      const dropped = this.#deps.assigned.all();
      this.#deps.assigned.releaseAll("leave", ctx);
      if (dropped.length === 0) {
        this.#afterLeaveRelease(leave, ctx);
      } else if (this.#epoch > 0) {
        this.#revokePartitions(dropped, ctx, (ctx) => this.#afterLeaveRelease(leave, ctx));
      } else {
        this.#signalPartitionsLost(dropped, ctx, (ctx) => this.#afterLeaveRelease(leave, ctx));
      }
    };
    // Only close() commits (`AsyncKafkaConsumer.releaseAssignmentAndLeaveGroup`); unsubscribe() goes
    // straight to the callbacks: `leaveGroup` -> `revokePartitions` commits nothing.
    const commits = this.#deps.commits;
    if (reason === "close" && commits.autoCommitEnabled && this.#epoch > 0 && this.#deps.assigned.size > 0) {
      commits.autoCommitOnClose(CLOSE_TIMEOUT_MS, ctx, (ctx) => release(ctx));
    } else {
      release(ctx);
    }
  }

  #afterLeaveRelease(leave: Completion, ctx: Context): void {
    if (this.#state === "PREPARE_LEAVING" || this.#state === "UNSUBSCRIBED") {
      this.#subscription = [];
      this.#clearAssignment(ctx);
    }
    // Fenced or failed meanwhile: the leave is already over.
    if (this.#leave === leave && this.#state === "PREPARE_LEAVING") this.transitionToSendingLeaveGroup(false, ctx);
  }

  /** Moves to LEAVING with the leave epoch; the heartbeat manager sends the leave heartbeat at once. */
  transitionToSendingLeaveGroup(dueToExpiredPollTimer: boolean, ctx: Context): void {
    if (this.#state === "FATAL" || this.#state === "UNSUBSCRIBED") return;
    if (dueToExpiredPollTimer) {
      this.#pollTimerExpired = true;
      // Straight through PREPARE_LEAVING: a stale member releases its assignment (as lost) only after the leave heartbeat.
      this.#transitionTo("PREPARE_LEAVING", ctx);
    }
    this.#epoch = this.groupInstanceId !== null ? LEAVE_GROUP_STATIC_MEMBER_EPOCH : LEAVE_GROUP_MEMBER_EPOCH;
    this.#current = LocalAssignment.NONE;
    this.#transitionTo("LEAVING", ctx);
  }

  /** poll() found the poll timer expired: a STALE member rejoins once its lost callback has completed. */
  maybeRejoinStaleMember(ctx: Context): void {
    this.#pollTimerExpired = false;
    if (this.#state !== "STALE") return;
    (this.#staleRelease ?? new Completion()).whenDone((ctx) => {
      if (this.#state === "STALE") this.transitionToJoining(ctx);
    }, ctx);
  }

  #transitionToStale(ctx: Context): void {
    this.#transitionTo("STALE", ctx);
    const lost = this.#deps.assigned.all();
    this.#deps.assigned.releaseAll("lost", ctx);
    const release = new Completion();
    this.#staleRelease = release;
    this.#signalPartitionsLost(lost, ctx, (ctx) => {
      this.#clearAssignment(ctx);
      release.complete(ctx);
    });
  }

  #completeLeave(ctx: Context): void {
    const leave = this.#leave;
    this.#leave = null;
    leave?.complete(ctx);
  }

  // ---- reconciliation -----------------------------------------------------

  /** Whether a reconciliation is waiting for poll() to start it (auto-commit needs safe positions). */
  needsPollToReconcile(): boolean {
    return this.#deps.commits.autoCommitEnabled && this.#hasWorkToReconcile();
  }

  /**
   * RECONCILING, a target not yet reconciled, nothing in progress, and not
   * just an unresolvable remainder already acknowledged. (Kafka would
   * re-acknowledge such a remainder on every heartbeat until metadata names
   * it; metadata is static here, so the member waits in RECONCILING instead.)
   */
  #hasWorkToReconcile(): boolean {
    if (this.#state !== "RECONCILING" || this.#current.equals(this.#target) || this.#reconciliation !== null) return false;
    return this.#current.localEpoch !== this.#target.localEpoch;
  }

  /**
   * Starts reconciling the target assignment if the member is RECONCILING and
   * nothing else is being reconciled. With auto-commit it only starts from
   * poll() (`canCommit`), when the consumed positions are safe to commit.
   */
  maybeReconcile(canCommit: boolean, ctx: Context): void {
    // Asked several times per poll: the work, and the closures it makes, live in #reconcile so that asking costs nothing.
    if (this.#hasWorkToReconcile()) this.#reconcile(canCommit, ctx);
  }

  #reconcile(canCommit: boolean, ctx: Context): void {
    const resolved = this.#deps.metadata.resolve(this.#target.partitions);
    this.#logUnresolved(resolved.unresolvedTopicIds, ctx);
    const resolvedAssignment = new LocalAssignment(this.#target.localEpoch, resolved.byId);
    // Partitions the guard left installed but never enabled must still be revoked, so they rule out the shortcut.
    const resolvedKeys = new Set(resolved.partitions.map(key));
    const nothingElseInstalled = () => this.#deps.assigned.all().every((tp) => resolvedKeys.has(key(tp)));
    if (!this.#current.isNone() && this.#current.hasSamePartitions(resolved.byId) && nothingElseInstalled()) {
      // Only unresolvable topics changed: adopt the new local epoch and acknowledge.
      this.#current = resolvedAssignment;
      this.#transitionTo("ACKNOWLEDGING", ctx);
      return;
    }
    if (this.#deps.commits.autoCommitEnabled && !canCommit) return;

    const run: ReconciliationRun = { rejoined: false };
    this.#reconciliation = run;
    this.#changed();
    const assignment = resolved.partitions;
    const owned = this.#deps.assigned.all();
    const assignedKeys = new Set(assignment.map(key));
    const ownedKeys = new Set(owned.map(key));
    const added = assignment.filter((tp) => !ownedKeys.has(key(tp)));
    const revoked = owned.filter((tp) => !assignedKeys.has(key(tp)));
    ctx.log.debug("reconciling", { localEpoch: resolvedAssignment.localEpoch, added: added.map(key), revoked: revoked.map(key) });

    // Stop fetching what is revoked before committing, so positions cannot move past the commit.
    this.#deps.assigned.markPendingRevocation(revoked, ctx);
    const deadline = ctx.now() + ms(this.#rebalanceTimeoutMs);
    this.#deps.commits.autoCommitBeforeRevocation("revocation", deadline, ctx, (ctx) => {
      if (this.#maybeAbortReconciliation(run, ctx)) return;
      const assign = (ctx: Context) => {
        if (this.#maybeAbortReconciliation(run, ctx)) return;
        const plan: AssignmentPlan = { resolved: resolvedAssignment, partitions: assignment, added };
        this.#assignPartitions(run, this.#skipReleasedPartitions ? this.#withoutReleased(plan, ctx) : plan, ctx);
      };
      if (revoked.length > 0) this.#revokePartitions(revoked, ctx, assign, () => this.#endReconciliation(run));
      else assign(ctx);
    });
  }

  #assignPartitions(run: ReconciliationRun, { resolved, partitions, added }: AssignmentPlan, ctx: Context): void {
    this.#deps.assigned.install(partitions, added, ctx);
    this.#deps.listener.invoke("onPartitionsAssigned", added, ctx, (ctx) => {
      // Kafka enables the added partitions even if the reconciliation was
      // interrupted; here they stay unowned then (the lost or leave callback
      // queued behind this one clears them anyway).
      if (this.#reconciliation !== run || this.#maybeAbortReconciliation(run, ctx)) return;
      // With the guard, a newer target that arrived while the callback waited for the application thread counts too.
      const released = this.#skipReleasedPartitions ? this.#releasedByNewerTarget(resolved.localEpoch, added) : new Set<string>();
      if (released.size > 0) ctx.log.info("not enabling partitions a newer target released", { partitions: [...released] });
      const enabled = this.#deps.assigned.enableAwaitingCallback(ctx, released);
      this.#current = this.#without(resolved, released);
      this.#deps.commits.resetAutoCommitTimer(ctx.now());
      this.#endReconciliation(run);
      this.#transitionTo("ACKNOWLEDGING", ctx);
      this.#deps.positions.request(enabled, ctx);
    });
  }

  /**
   * The guard behind kcsim.reconciliation.skip.released.partitions (not
   * Kafka): if a newer target arrived while this reconciliation was committing
   * or revoking, partitions it would add that the newer target no longer holds
   * are left out (and if it arrives while onPartitionsAssigned waits for the
   * application thread, they are not enabled, and the next reconciliation
   * revokes them). The coordinator may already have released them (a full
   * heartbeat sent meanwhile listed the owned set without them) and given them
   * to another member. The next reconciliation moves on to the newer target.
   */
  #withoutReleased(plan: AssignmentPlan, ctx: Context): AssignmentPlan {
    const released = this.#releasedByNewerTarget(plan.resolved.localEpoch, plan.added);
    if (released.size === 0) return plan;
    ctx.log.info("skipping partitions a newer target released", { partitions: [...released] });
    const isKept = (tp: TopicPartition) => !released.has(key(tp));
    return {
      resolved: this.#without(plan.resolved, released),
      partitions: plan.partitions.filter(isKept),
      added: plan.added.filter(isKept),
    };
  }

  /** Keys of the `added` partitions that the newest target no longer holds, if it is newer than `localEpoch`. */
  #releasedByNewerTarget(localEpoch: number, added: readonly TopicPartition[]): Set<string> {
    if (this.#target.localEpoch === localEpoch) return new Set();
    const stillTargeted = new Set(this.#deps.metadata.resolve(this.#target.partitions).partitions.map(key));
    return new Set(added.filter((tp) => !stillTargeted.has(key(tp))).map(key));
  }

  /** The assignment without the partitions whose keys are in `released`. */
  #without(assignment: LocalAssignment, released: ReadonlySet<string>): LocalAssignment {
    if (released.size === 0) return assignment;
    const keptById = new Map<string, readonly number[]>();
    for (const [topicId, partitions] of assignment.partitions) {
      const topic = this.#deps.metadata.nameOf(topicId) ?? topicId;
      const kept = partitions.filter((partition) => !released.has(key({ topic, partition })));
      if (kept.length > 0) keptById.set(topicId, kept);
    }
    return new LocalAssignment(assignment.localEpoch, keptById);
  }

  /** A reconciliation is dropped if the member left RECONCILING or rejoined since it started. */
  #maybeAbortReconciliation(run: ReconciliationRun, ctx: Context): boolean {
    if (this.#state === "RECONCILING" && !run.rejoined) return false;
    ctx.log.info("reconciliation interrupted", { state: this.#state, rejoined: run.rejoined });
    this.#endReconciliation(run);
    return true;
  }

  #endReconciliation(run: ReconciliationRun): void {
    if (this.#reconciliation !== run) return;
    this.#reconciliation = null;
    this.#changed();
  }

  /** onPartitionsRevoked for the partitions still assigned; `onFailed` if the member failed meanwhile. */
  #revokePartitions(partitions: readonly TopicPartition[], ctx: Context, onDone: Continuation, onFailed?: () => void): void {
    const stillAssigned = new Set(this.#deps.assigned.all().map(key));
    const revoked = partitions.filter((tp) => stillAssigned.has(key(tp)));
    if (this.#state === "FATAL") {
      ctx.log.info("revocation aborted: the member failed");
      if (onFailed !== undefined) {
        onFailed();
        return;
      }
      onDone(ctx);
      return;
    }
    if (revoked.length === 0) {
      onDone(ctx);
      return;
    }
    this.#deps.listener.invoke("onPartitionsRevoked", revoked, ctx, onDone);
  }

  #signalPartitionsLost(partitions: readonly TopicPartition[], ctx: Context, onDone: Continuation): void {
    if (partitions.length === 0) {
      onDone(ctx);
      return;
    }
    this.#deps.listener.invoke("onPartitionsLost", partitions, ctx, onDone);
  }

  #clearAssignment(ctx: Context): void {
    this.#deps.assigned.clear("lost", ctx);
    this.#current = LocalAssignment.NONE;
    this.#target = LocalAssignment.NONE;
  }

  #logUnresolved(topicIds: readonly string[], ctx: Context): void {
    const text = topicIds.join(",");
    if (text === "" || text === this.#unresolvedLogged) return;
    this.#unresolvedLogged = text;
    ctx.log.warn("target assignment has topic ids missing from the metadata; reconciling the rest", { topicIds: [...topicIds] });
  }

  // ---- the state machine --------------------------------------------------

  #transitionTo(next: ClientMemberState, ctx: Context): void {
    if (next === this.#state) return;
    assertAllowedTransition(this.#state, next);
    const from = this.#state;
    this.#state = next;
    this.#changed();
    this.#deps.observer.state(ctx, from, next);
  }

  #changed(): void {
    this.#version++;
  }

  /** For snapshots and tests. */
  describe(): { state: ClientMemberState; memberEpoch: number; current: string; target: string } {
    const show = (a: LocalAssignment) =>
      a.isNone()
        ? "NONE"
        : `${a.localEpoch}:${[...a.partitions].map(([id, ps]) => `${this.#deps.metadata.nameOf(id) ?? id}[${ps.join(",")}]`).join(";")}`;
    return { state: this.#state, memberEpoch: this.#epoch, current: show(this.#current), target: show(this.#target) };
  }
}

function key(tp: TopicPartition): string {
  return tpKey(tp.topic, tp.partition);
}
