import { type Micros, type TopicPartition, tpKey } from "@kcsim/protocol";
import { earliestAfter } from "../earliest-after.js";
import { ResetCount, TopicPartitionState } from "./partition-state.js";
import type { PositionProblem } from "./record-source.js";

/**
 * The partitions the fetcher holds and their states (the assignment half of
 * Kafka's `SubscriptionState`). Iteration order is the fetch order: kept
 * partitions keep their place, new ones join at the end, and a partition
 * moves to the end after an error or after its data was consumed (Kafka's
 * `movePartitionToEnd`), so every partition gets its turn at the front of a
 * request.
 */
export class SubscriptionState {
  readonly #states = new Map<string, TopicPartitionState>();
  #problems: PositionProblem[] = [];
  #assignmentVersion = 0;
  /** How many of the states await a reset (kept by the states themselves). */
  readonly #resets = new ResetCount();

  /** Moves on with every assignment: equal versions mean the same partitions are held. */
  get assignmentVersion(): number {
    return this.#assignmentVersion;
  }

  /** Replaces the assignment; returns the states of the partitions that left it. */
  assign(partitions: readonly TopicPartition[]): TopicPartitionState[] {
    this.#assignmentVersion++;
    const wanted = new Map(partitions.map((tp) => [tpKey(tp.topic, tp.partition), tp]));
    const removed: TopicPartitionState[] = [];
    for (const [key, state] of this.#states) {
      if (wanted.has(key)) continue;
      this.#states.delete(key);
      state.leaveCount();
      removed.push(state);
    }
    for (const [key, tp] of wanted) if (!this.#states.has(key)) this.#states.set(key, new TopicPartitionState(tp, this.#resets));
    if (removed.length > 0) {
      const gone = new Set(removed.map((state) => state.key));
      this.#problems = this.#problems.filter((p) => !gone.has(tpKey(p.partition.topic, p.partition.partition)));
    }
    return removed;
  }

  get size(): number {
    return this.#states.size;
  }

  get(partition: TopicPartition): TopicPartitionState | undefined {
    return this.#states.get(tpKey(partition.topic, partition.partition));
  }

  getByKey(key: string): TopicPartitionState | undefined {
    return this.#states.get(key);
  }

  all(): IterableIterator<TopicPartitionState> {
    return this.#states.values();
  }

  moveToEnd(key: string): void {
    const state = this.#states.get(key);
    if (state === undefined) return;
    this.#states.delete(key);
    this.#states.set(key, state);
  }

  /** Partitions waiting for a ListOffsets that may be sent now. */
  needingReset(now: Micros): TopicPartitionState[] {
    const needing: TopicPartitionState[] = [];
    // Asked on every pass of the fetcher; almost always no partition awaits a reset.
    if (this.#resets.awaiting === 0) return needing;
    for (const state of this.#states.values()) if (state.awaitingReset() && !state.awaitingRetryBackoff(now)) needing.push(state);
    return needing;
  }

  /** The earliest retry time after `now` of a partition awaiting reset, or null. */
  nextResetRetryAt(now: Micros): Micros | null {
    let next: Micros | null = null;
    if (this.#resets.awaiting === 0) return next;
    for (const state of this.#states.values()) {
      const at = state.nextRetryAt;
      if (state.awaitingReset()) next = earliestAfter(now, next, at);
    }
    return next;
  }

  reportProblem(state: TopicPartitionState, problem: PositionProblem["problem"]): void {
    this.#problems.push({ partition: state.partition, problem });
  }

  takeProblems(): PositionProblem[] {
    const problems = this.#problems;
    this.#problems = [];
    return problems;
  }
}
