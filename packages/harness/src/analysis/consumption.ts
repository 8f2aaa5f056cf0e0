import type { RecordRange } from "@kcsim/member";
import { type Micros, topicPartitionsOf, tpKey } from "@kcsim/protocol";
import type { HistoryEvent } from "../history/history-event.js";
import { memoByHistory } from "./history-memo.js";
import type { EventFollower, SharedAnalysis } from "./history-pass.js";
import { knownObservation } from "./observations.js";
import { OwnershipTimeline, sharedOwnership } from "./ownership-timeline.js";
import { PartitionTable } from "./partition-table.js";

/** A break in the offsets one owner handed to its application. */
export interface OffsetBreak {
  readonly t: Micros;
  readonly index: number;
  readonly actor: string;
  readonly partition: string;
  readonly kind: "skip" | "rewind";
  readonly expected: number;
  readonly got: number;
  /** What explains it: an auto.offset.reset, or nothing (a bug). */
  readonly cause: "reset" | null;
}

/** Records delivered again (an offset some application had already been handed). */
export interface Redelivery {
  readonly t: Micros;
  readonly index: number;
  readonly actor: string;
  readonly partition: string;
  readonly count: number;
  /**
   * Why: a new owner restarted from an older committed offset ("rebalance"),
   * after the previous owner's commit failed ("failed commit"), a fenced
   * member still processing what it fetched before it learned it was out
   * ("zombie"), a reset, or nothing.
   */
  readonly cause: "rebalance" | "failed commit" | "zombie" | "reset" | null;
  /** Who had been handed the partition's records furthest before it (up to `consumedUpTo`), and where: its delivery's history index. */
  readonly before: { readonly actor: string; readonly consumedUpTo: number; readonly t: Micros; readonly index: number };
}

export interface ConsumptionReport {
  readonly breaks: readonly OffsetBreak[];
  readonly redeliveries: readonly Redelivery[];
  /** Records handed out for a partition the member did not own at that moment. */
  readonly unowned: readonly { t: Micros; index: number; actor: string; partition: string }[];
  readonly recordsConsumed: number;
}

interface Tenure {
  readonly id: number;
  next: number | null;
  /** Why this tenure re-reads records an application already had, decided at its start. */
  catchUp: Redelivery["cause"];
}

/** What the analysis follows per partition. */
interface PartitionState {
  readonly tp: string;
  /**
   * The highest offset any application has been handed (NOTHING_CONSUMED: none yet), and which actor it was
   * handed to: two fields rather than an object, since they move with nearly every range of records (a record
   * or two each).
   */
  consumedUpTo: number;
  consumedBy: string;
  /** When and where (history index) consumedBy was handed them. */
  consumedAt: Micros;
  consumedIndex: number;
}

/** What the analysis follows per actor and partition. */
interface PairState {
  readonly partition: PartitionState;
  /** The actor's tenure of the partition, while it owns it. */
  tenure: Tenure | undefined;
  /** A reset happened since its last records. */
  resetPending: boolean;
  /** The result of the actor's last commit attempt covering the partition. */
  lastCommit: string | undefined;
}

/** PartitionState.consumedUpTo of a partition no application has been handed records of. */
const NOTHING_CONSUMED = Number.NEGATIVE_INFINITY;

/** The events the consumption analysis reads (besides the ownership timeline it is given). */
const CONSUMPTION_EVENTS: readonly string[] = ["life", "member.owned", "fetch.reset", "member.commit", "member.records"];

/**
 * Follows every record handed to an application (`member.records`) through
 * the owner's tenures (a tenure of a partition runs from the moment
 * `member.owned` gives it to an actor to the moment it leaves that set, or
 * the process crashes). Within a tenure offsets must follow each other;
 * across tenures a new owner may re-read what an earlier one consumed but
 * had not committed. Fed event by event, after the ownership timeline it
 * reads liveness from has applied the same event.
 */
export class ConsumptionAnalysis implements EventFollower {
  readonly reads = CONSUMPTION_EVENTS;
  readonly breaks: OffsetBreak[] = [];
  readonly redeliveries: Redelivery[] = [];
  readonly unowned: { t: Micros; index: number; actor: string; partition: string }[] = [];
  recordsConsumed = 0;
  readonly #liveness: OwnershipTimeline;
  // State lives in objects found per (actor, topic, partition): no key strings built per record batch.
  readonly #partitions = new PartitionTable<PartitionState>((topic, partition) => ({
    tp: tpKey(topic, partition),
    consumedUpTo: NOTHING_CONSUMED,
    consumedBy: "",
    consumedAt: 0,
    consumedIndex: -1,
  }));
  readonly #pairsByActor = new Map<string, PartitionTable<PairState>>();
  /** actor -> the partitions it owns now */
  readonly #owned = new Map<string, Set<PairState>>();
  #tenureIds = 0;

  constructor(liveness: OwnershipTimeline) {
    this.#liveness = liveness;
  }

  get report(): ConsumptionReport {
    return { breaks: this.breaks, redeliveries: this.redeliveries, unowned: this.unowned, recordsConsumed: this.recordsConsumed };
  }

  accept(event: HistoryEvent, index: number): void {
    if (event.ev === "life") {
      if (event.what === "crash" || event.what === "stop") {
        this.#endTenures(event.actor, new Set());
        this.#owned.delete(event.actor);
      }
      return;
    }
    if (event.ev !== "obs") return;
    const actor = event.actor;
    const o = knownObservation(event);
    switch (o.type) {
      case "member.records": {
        // One actor, one moment: its pairs and its liveness are the same for every range of the poll.
        const pairs = this.#pairsOf(actor);
        const live = this.#liveness.isLive(actor);
        for (const range of o.ranges) this.#consumed(event.t, index, actor, pairs, live, range);
        return;
      }
      case "member.owned": {
        const next = new Set<PairState>();
        for (const { topic, partition } of topicPartitionsOf(o.owned)) next.add(this.#pairOf(actor, topic, partition));
        this.#endTenures(actor, next);
        for (const pair of next) pair.tenure ??= { id: this.#tenureIds++, next: null, catchUp: null };
        this.#owned.set(actor, next);
        return;
      }
      case "fetch.reset":
        this.#pairOf(actor, o.topic, o.partition).resetPending = true;
        return;
      case "member.commit": {
        const pairs = this.#pairsOf(actor);
        for (const { topic, partitions } of o.topics) {
          for (const partition of partitions) pairs.get(topic, partition).lastCommit = o.result;
        }
        return;
      }
    }
  }

  /** One partition's records of a poll. */
  #consumed(t: Micros, index: number, actor: string, pairs: PartitionTable<PairState>, live: boolean, records: RecordRange): void {
    this.recordsConsumed += records.count;
    const pair = pairs.get(records.topic, records.partition);
    const partition = pair.partition;
    const tp = partition.tp;
    const tenure = pair.tenure;
    if (tenure === undefined) {
      this.unowned.push({ t, index, actor, partition: tp });
      return;
    }
    const wasReset = pair.resetPending;
    pair.resetPending = false;
    if (tenure.next !== null && records.firstOffset !== tenure.next) {
      this.breaks.push({
        t,
        index,
        actor,
        partition: tp,
        kind: records.firstOffset > tenure.next ? "skip" : "rewind",
        expected: tenure.next,
        got: records.firstOffset,
        cause: wasReset ? "reset" : null,
      });
    }
    const before = partition.consumedUpTo;
    if (before !== NOTHING_CONSUMED && records.firstOffset <= before) {
      const count = Math.min(records.lastOffset, before) - records.firstOffset + 1;
      let cause: Redelivery["cause"] = null;
      if (wasReset) {
        cause = "reset";
        // The records after it in this tenure catch up through the same re-read.
        tenure.catchUp = cause;
      } else if (!live) cause = "zombie";
      else if (tenure.next === null) {
        // A new tenure starts from the last committed offset: it re-reads what the previous owner did not commit.
        const previous = this.#pairOf(partition.consumedBy, records.topic, records.partition).lastCommit;
        cause = previous !== undefined && previous !== "NONE" ? "failed commit" : "rebalance";
        tenure.catchUp = cause;
      } else if (records.firstOffset >= tenure.next) {
        // The tenure's catch-up goes on, also past offsets it skips: a read_committed consumer skips transaction
        // markers and aborted records between two ranges. (Whether a skip passes over a committed record is
        // contiguous-offsets' to judge; a rewind stays unexplained.)
        cause = tenure.catchUp;
      }
      const earlier = { actor: partition.consumedBy, consumedUpTo: before, t: partition.consumedAt, index: partition.consumedIndex };
      this.redeliveries.push({ t, index, actor, partition: tp, count, cause, before: earlier });
    }
    // A fenced zombie's records are duplicates themselves: they do not move what the group has consumed.
    if (live && (before === NOTHING_CONSUMED || records.lastOffset > before)) {
      partition.consumedUpTo = records.lastOffset;
      partition.consumedBy = actor;
      partition.consumedAt = t;
      partition.consumedIndex = index;
    }
    tenure.next = records.lastOffset + 1;
  }

  #pairOf(actor: string, topic: string, partition: number): PairState {
    return this.#pairsOf(actor).get(topic, partition);
  }

  #pairsOf(actor: string): PartitionTable<PairState> {
    let pairs = this.#pairsByActor.get(actor);
    if (pairs === undefined) {
      pairs = new PartitionTable((t, p) => ({
        partition: this.#partitions.get(t, p),
        tenure: undefined,
        resetPending: false,
        lastCommit: undefined,
      }));
      this.#pairsByActor.set(actor, pairs);
    }
    return pairs;
  }

  #endTenures(actor: string, keep: Set<PairState>): void {
    for (const pair of this.#owned.get(actor) ?? []) {
      if (keep.has(pair)) continue;
      pair.tenure = undefined;
      // A reset of a partition given up before its records came explains nothing in a later tenure.
      pair.resetPending = false;
    }
  }
}

/** The consumption analysis of a history pass, which its checkers share. */
export const sharedConsumption: SharedAnalysis<ConsumptionAnalysis> = (pass) => new ConsumptionAnalysis(pass.shared(sharedOwnership));

function followConsumption(events: readonly HistoryEvent[]): ConsumptionReport {
  const liveness = new OwnershipTimeline();
  const analysis = new ConsumptionAnalysis(liveness);
  events.forEach((event, index) => {
    liveness.apply(event);
    analysis.accept(event, index);
  });
  return analysis.report;
}

/** analyseConsumption, computed once per history: several checkers of a run read it. */
export const analyseConsumption: (events: readonly HistoryEvent[]) => ConsumptionReport = memoByHistory(followConsumption);
