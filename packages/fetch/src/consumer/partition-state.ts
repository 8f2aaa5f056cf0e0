import { IsolationLevel, type Micros, type TopicPartition, tpKey } from "@kcsim/protocol";
import type { SessionPartition } from "../session/fetch-request-data.js";
import type { PartitionLeader } from "./cluster-metadata.js";

/**
 * Kafka's `FetchStates`, reduced to what the fetcher needs (no
 * AWAIT_VALIDATION: positions are not validated against leader epochs).
 * - `initializing`: assigned, no position yet (the consumer seeks it to the
 *   committed offset or asks for a reset);
 * - `awaiting-reset`: waiting for a ListOffsets answer (no position);
 * - `fetching`: has a position.
 */
export type FetchState = "initializing" | "awaiting-reset" | "fetching";

/** Why a position is being reset, as `fetch.reset` reports it. */
export type ResetReason = "no-committed-offset" | "out-of-range";

/** A strategy ListOffsets can apply ("none" never gets this far). */
export type ListOffsetsStrategy = "earliest" | "latest";

/** How many partition states of a subscription await a reset: each state keeps its own contribution up to date. */
export class ResetCount {
  awaiting = 0;
}

/**
 * One assigned partition's fetch state (Kafka's
 * `SubscriptionState.TopicPartitionState`): position, pause, reset in
 * progress, and what the last fetch said about the log.
 */
export class TopicPartitionState {
  readonly partition: TopicPartition;
  readonly key: string;
  #fetchState: FetchState = "initializing";
  /** The count this state adds to while it awaits a reset; null once it left its subscription. */
  #resets: ResetCount | null;
  /** The next offset to hand out (and to fetch, when nothing is buffered). */
  position: number | null = null;
  /** Not fetchable by the consumer's choice (pause, revocation in progress, awaiting onPartitionsAssigned). */
  paused = false;
  /**
   * A fetch answered with a leader error (NOT_LEADER_OR_FOLLOWER, ...) and
   * named no new leader: not fetched until the next metadata response
   * (Kafka's `awaitUpdate`), so the old leader is not asked again meanwhile.
   */
  awaitingMetadata = false;
  /** OFFSET_OUT_OF_RANGE under auto.offset.reset=none: not fetched until the application seeks or resets. */
  outOfRange = false;
  resetStrategy: ListOffsetsStrategy | null = null;
  resetReason: ResetReason | null = null;
  /** While a ListOffsets is in flight or backing off: not before this time. */
  nextRetryAt: Micros | null = null;
  highWatermark: number | null = null;
  logStartOffset: number | null = null;
  lastStableOffset: number | null = null;
  /** The partition's leader as the metadata at `leaderVersion` named it (-1: not looked up yet): the fetch request manager's memo. */
  leader: PartitionLeader | undefined = undefined;
  leaderVersion = -1;
  /** The fetch session entry last made for this partition (reused while its fetch data stays the same). */
  fetchEntry: SessionPartition | null = null;

  constructor(partition: TopicPartition, resets: ResetCount | null = null) {
    this.partition = { topic: partition.topic, partition: partition.partition };
    this.key = tpKey(partition.topic, partition.partition);
    this.#resets = resets;
  }

  get fetchState(): FetchState {
    return this.#fetchState;
  }

  #setFetchState(fetchState: FetchState): void {
    const resets = this.#resets;
    if (resets !== null) resets.awaiting += (fetchState === "awaiting-reset" ? 1 : 0) - (this.#fetchState === "awaiting-reset" ? 1 : 0);
    this.#fetchState = fetchState;
  }

  /** The state left its subscription: it no longer counts there. */
  leaveCount(): void {
    if (this.#resets !== null && this.#fetchState === "awaiting-reset") this.#resets.awaiting--;
    this.#resets = null;
  }

  hasValidPosition(): boolean {
    return this.#fetchState === "fetching";
  }

  isFetchable(): boolean {
    return this.hasValidPosition() && !this.paused && !this.awaitingMetadata && !this.outOfRange;
  }

  awaitingReset(): boolean {
    return this.#fetchState === "awaiting-reset";
  }

  awaitingRetryBackoff(now: Micros): boolean {
    return this.nextRetryAt !== null && now < this.nextRetryAt;
  }

  seek(offset: number): void {
    this.#setFetchState("fetching");
    this.position = offset;
    this.outOfRange = false;
    this.resetStrategy = null;
    this.resetReason = null;
    this.nextRetryAt = null;
  }

  requestReset(strategy: ListOffsetsStrategy, reason: ResetReason): void {
    this.#setFetchState("awaiting-reset");
    this.position = null;
    this.outOfRange = false;
    this.resetStrategy = strategy;
    this.resetReason = reason;
    this.nextRetryAt = null;
  }

  /** Back to no position (reset=none found nothing to start from). */
  clearPosition(): void {
    this.#setFetchState("initializing");
    this.position = null;
    this.outOfRange = false;
    this.resetStrategy = null;
    this.resetReason = null;
    this.nextRetryAt = null;
  }

  /** Kafka's `partitionLag`: to the high watermark, or to the last stable offset under read_committed. */
  lag(isolationLevel: number): number | null {
    if (this.position === null) return null;
    const end = isolationLevel === IsolationLevel.READ_COMMITTED ? this.lastStableOffset : this.highWatermark;
    return end === null ? null : end - this.position;
  }

  /** Kafka's `partitionLead`: how far the position is past the log start. */
  lead(): number | null {
    return this.position === null || this.logStartOffset === null ? null : this.position - this.logStartOffset;
  }
}
