import { getOrCreate, type Micros, tpKey } from "@kcsim/protocol";
import type { HistoryEvent } from "../history/history-event.js";
import { analyseConsumption } from "./consumption.js";
import { memoByHistory } from "./history-memo.js";
import { observationOf } from "./observations.js";
import { OwnershipTimeline } from "./ownership-timeline.js";
import { withRewindsAsResets } from "./rewinds-as-resets.js";

/** One hand-over of records to an application (`member.records`). */
interface Delivery {
  readonly actor: string;
  readonly first: number;
  readonly last: number;
  readonly t: Micros;
  readonly index: number;
  /** Handed to a fenced member (removed by its coordinator and not admitted again) that did not know it yet. */
  readonly zombie: boolean;
}

/**
 * Why a record was processed more than once, so that its effect (an output
 * record, a sink row) exists more than once:
 * - `crash before commit`: the application that first processed it crashed
 *   before committing its offset; whoever took the partition started again
 *   from the last committed offset;
 * - `fenced member (<reason>)`: the coordinator removed the first
 *   processor (session or rebalance timeout, ...) before it committed; the
 *   partition's new owner started from the last committed offset;
 * - `rolled-back batch`: the batch was rolled back (aborted transaction,
 *   fenced producer, failed send) and sought back to its first offset;
 * - `zombie`: a fenced member that did not know it yet processed the
 *   record, before or after the partition's new owner did (a zombie's
 *   offsets never count as consumed, so the new owner reads them again);
 * - the causes of the consumption analysis: `rebalance`, `failed commit`,
 *   `zombie`, `reset`.
 */
export type DuplicateCause = string;

/**
 * Attributes duplicate effects of records to the re-delivery that caused
 * them, from the history: every delivery of each offset, the consumption
 * analysis' causes of re-deliveries (rewinds of rolled-back batches
 * counting as explained), process crashes and the coordinators' member
 * removals.
 */
export class DuplicateCauses {
  readonly #deliveries = new Map<string, Delivery[]>();
  /** `<original index>/<tp>` of each re-delivery -> its cause. */
  readonly #redeliveryCause = new Map<string, DuplicateCause | null>();
  readonly #crashes = new Map<string, Micros[]>();
  readonly #removals = new Map<string, { t: Micros; reason: string }[]>();

  constructor(events: readonly HistoryEvent[]) {
    const augmented = withRewindsAsResets(events);
    const report = analyseConsumption(augmented.events);
    // Which explanation each delivery had pending: a real reset, or the rewind of a rolled-back batch.
    const pending = new Map<string, "reset" | "rewind">();
    /** `<original index>/<tp>` (a poll's records of one partition) -> what explained them. */
    const explainedBy = new Map<string, "reset" | "rewind">();
    augmented.events.forEach((event, i) => {
      const original = augmented.originalIndex[i] ?? i;
      const reset = observationOf(event, "fetch.reset");
      if (reset !== undefined && event.ev === "obs") {
        pending.set(`${event.actor}/${tpKey(reset.topic, reset.partition)}`, events[original] === event ? "reset" : "rewind");
        return;
      }
      const records = observationOf(event, "member.records");
      if (records === undefined || event.ev !== "obs") return;
      for (const range of records.ranges) {
        const tp = tpKey(range.topic, range.partition);
        const key = `${event.actor}/${tp}`;
        const explanation = pending.get(key);
        if (explanation !== undefined) {
          explainedBy.set(`${original}/${tp}`, explanation);
          pending.delete(key);
        }
      }
    });
    for (const redelivery of report.redeliveries) {
      const original = augmented.originalIndex[redelivery.index] ?? redelivery.index;
      const cause =
        redelivery.cause === "reset" && explainedBy.get(`${original}/${redelivery.partition}`) === "rewind"
          ? "rolled-back batch"
          : redelivery.cause;
      this.#redeliveryCause.set(`${original}/${redelivery.partition}`, cause);
    }

    const actorOfMember = new Map<string, string>();
    for (const event of events) {
      if (event.ev === "obs" && event.o.type.startsWith("member.") && typeof event.o.memberId === "string") {
        actorOfMember.set(event.o.memberId, event.actor);
      }
    }
    const liveness = new OwnershipTimeline();
    events.forEach((event, index) => {
      liveness.apply(event);
      if (event.ev === "life" && event.what === "crash") {
        getOrCreate(this.#crashes, event.actor, () => []).push(event.t);
        return;
      }
      const removed = observationOf(event, "gc.member-removed");
      if (removed !== undefined) {
        const actor = actorOfMember.get(removed.memberId);
        if (actor !== undefined) getOrCreate(this.#removals, actor, () => []).push({ t: event.t, reason: removed.reason });
        return;
      }
      const records = observationOf(event, "member.records");
      if (records !== undefined && event.ev === "obs") {
        for (const range of records.ranges)
          getOrCreate(this.#deliveries, tpKey(range.topic, range.partition), () => []).push({
            actor: event.actor,
            first: range.firstOffset,
            last: range.lastOffset,
            t: event.t,
            index,
            zombie: !liveness.isLive(event.actor),
          });
      }
    });
  }

  /**
   * Why applications among `actors` processed the record at `offset` of
   * `tp` more than once: the cause of its first re-delivery. Null when it
   * was not re-delivered (a duplicate effect without a second delivery has
   * no cause: a bug) or nothing explains the re-delivery.
   */
  causeOf(tp: string, offset: number, actors: ReadonlySet<string>): DuplicateCause | null {
    const [first, second] = this.#deliveriesOf(tp, offset, actors);
    if (first === undefined || second === undefined) return null;
    const cause = this.#redeliveryCause.get(`${second.index}/${tp}`) ?? null;
    if (cause === "rolled-back batch" || cause === "reset" || cause === "zombie") return cause;
    // The first processing was a zombie's, ahead of the new owner: the owner's own reading is no re-delivery.
    if (first.zombie) return "zombie";
    const between = (t: Micros) => first.t < t && t <= second.t;
    if ((this.#crashes.get(first.actor) ?? []).some(between)) return "crash before commit";
    const removal = (this.#removals.get(first.actor) ?? []).find(({ t }) => between(t));
    if (removal !== undefined) return `fenced member (${removal.reason})`;
    return cause;
  }

  #deliveriesOf(tp: string, offset: number, actors: ReadonlySet<string>): Delivery[] {
    return (this.#deliveries.get(tp) ?? []).filter((d) => actors.has(d.actor) && d.first <= offset && offset <= d.last);
  }
}

/** The DuplicateCauses of a history, built once: result accounting and the sink checkers both ask. */
export const duplicateCausesOf: (events: readonly HistoryEvent[]) => DuplicateCauses = memoByHistory(
  (events) => new DuplicateCauses(events),
);
