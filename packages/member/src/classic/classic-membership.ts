import type { Context } from "@kcsim/protocol";
import type { AssignedPartitions } from "../consumer/assigned-partitions.js";
import type { MemberObserver } from "../consumer/member-observer.js";
import type { ClassicMemberState } from "../observations.js";
import { IllegalClassicTransitionError, isAllowedClassicTransition, isRebalanceInProgress } from "./classic-member-state.js";
import { type Generation, NO_GENERATION } from "./generation.js";

/**
 * The classic member's standing in its group, shared by the join loop, the
 * heartbeat thread and the commits (the synchronized fields of Kafka's
 * `AbstractCoordinator`): the state, the generation, whether a rejoin is
 * needed and why, whether the next join must first run onJoinPrepare, and
 * the subscription. A reset (lost membership) also ends the application's
 * ownership at once: the partitions are lost from that moment, and
 * onPartitionsLost runs before the next JoinGroup.
 */
export class ClassicMembership {
  readonly groupId: string;
  readonly groupInstanceId: string | null;
  #assigned: AssignedPartitions | null = null;
  #observer: MemberObserver | null = null;
  #state: ClassicMemberState = "UNJOINED";
  #generation: Generation = NO_GENERATION;
  #rejoinNeeded = true;
  #rejoinReason = "";
  /** Set when a join completes or the generation resets; the next join first runs onJoinPrepare. */
  needsJoinPrepare = true;
  #subscription: readonly string[] = [];
  /** The subscription of the last JoinGroup (`ConsumerCoordinator.joinedSubscription`); null before the first. */
  joinedSubscription: readonly string[] | null = null;
  #fatalError: string | null = null;
  #version = 0;

  constructor(groupId: string, groupInstanceId: string | null) {
    this.groupId = groupId;
    this.groupInstanceId = groupInstanceId;
  }

  /** Wired after construction: the observer (through the assignment) reads this membership's id and generation. */
  attach(assigned: AssignedPartitions, observer: MemberObserver): void {
    this.#assigned = assigned;
    this.#observer = observer;
  }

  get state(): ClassicMemberState {
    return this.#state;
  }

  get generation(): Generation {
    return this.#generation;
  }

  get memberId(): string {
    return this.#generation.memberId;
  }

  get isDynamic(): boolean {
    return this.groupInstanceId === null;
  }

  get rejoinNeeded(): boolean {
    return this.#rejoinNeeded;
  }

  get rejoinReason(): string {
    return this.#rejoinReason;
  }

  get fatalError(): string | null {
    return this.#fatalError;
  }

  get isFatal(): boolean {
    return this.#state === "FATAL";
  }

  get subscription(): readonly string[] {
    return this.#subscription;
  }

  /** Bumped on every change the actor may need to act on. */
  get version(): number {
    return this.#version;
  }

  changed(): void {
    this.#version++;
  }

  subscribe(topics: readonly string[]): void {
    this.#subscription = [...new Set(topics)].sort();
    this.changed();
  }

  /** `AbstractCoordinator.generationIfStable`. */
  generationIfStable(): Generation | null {
    return this.#state === "STABLE" ? this.#generation : null;
  }

  get rebalanceInProgress(): boolean {
    return isRebalanceInProgress(this.#state);
  }

  setGeneration(generation: Generation): void {
    this.#generation = generation;
    this.changed();
  }

  requestRejoin(reason: string, ctx: Context): void {
    if (!this.#rejoinNeeded) ctx.log.info("request joining group", { reason });
    this.#rejoinReason = reason;
    this.#rejoinNeeded = true;
    this.changed();
  }

  /** `requestRejoinIfNecessary`: keeps the first reason of a pending rejoin. */
  requestRejoinIfNecessary(reason: string, ctx: Context): void {
    if (!this.#rejoinNeeded) this.requestRejoin(reason, ctx);
  }

  /** SyncGroup succeeded: the member is in the group with its assignment. */
  markSynced(ctx: Context): void {
    this.transitionTo("STABLE", ctx);
    this.#rejoinReason = "";
    this.#rejoinNeeded = false;
  }

  /**
   * `resetStateAndRejoin`: the member is no longer part of its generation
   * (an error from the coordinator, a poll timeout, a leave). It forgets the
   * generation (and its member id, unless told to keep it), rejoins on the
   * next poll() after onJoinPrepare, and its partitions are lost now.
   */
  resetStateAndRejoin(reason: string, resetMemberId: boolean, ctx: Context): void {
    if (this.isFatal) return;
    ctx.log.info(resetMemberId ? "resetting generation and member id" : "resetting generation", { reason });
    this.#generation = resetMemberId ? NO_GENERATION : { ...NO_GENERATION, memberId: this.#generation.memberId };
    this.transitionTo("UNJOINED", ctx);
    this.requestRejoin(reason, ctx);
    this.needsJoinPrepare = true;
    this.#assigned?.releaseAll("lost", ctx);
  }

  /** A fatal error: the consumer stops for good (poll() throws it). Returns false if it already had one. */
  markFatal(error: string, ctx: Context): boolean {
    if (this.isFatal) return false;
    this.#fatalError = error;
    this.transitionTo("FATAL", ctx);
    this.#observer?.fatal(ctx, error);
    return true;
  }

  transitionTo(next: ClassicMemberState, ctx: Context): void {
    if (next === this.#state) return;
    if (!isAllowedClassicTransition(this.#state, next)) throw new IllegalClassicTransitionError(this.#state, next);
    const from = this.#state;
    this.#state = next;
    this.changed();
    this.#observer?.state(ctx, from, next);
  }
}
