import { type Micros, parseTpKey, topicPartitionsOf, tpKey } from "@kcsim/protocol";
import { observationOf } from "../analysis/observations.js";
import { OWNERSHIP_OBSERVATIONS, OwnershipTimeline } from "../analysis/ownership-timeline.js";
import type { HistoryEvent } from "../history/history-event.js";
import type { OwnershipInterval, OwnershipRow, TimeSpan } from "./report-data.js";

interface OpenInterval {
  readonly fromUs: Micros;
  readonly live: boolean;
  readonly firstEpoch: number;
  lastEpoch: number;
}

interface OwnerState {
  readonly actor: string;
  readonly groupId: string;
  epoch: number;
  /** Open intervals by partition key (`topic-partition`). */
  readonly open: Map<string, OpenInterval>;
}

/** A group's partitions that must have a row even if nobody ever owned them. */
export interface GroupPartitions {
  readonly groupId: string;
  /** `topic-partition` keys. */
  readonly partitions: readonly string[];
}

const rowKey = (groupId: string, partition: string) => `${groupId}\u0000${partition}`;

/**
 * Turns member.owned observations into ownership intervals: one per
 * (member, partition, live or zombie) span, so the Gantt chart draws a bar
 * per tenure, not a shape per event. "Live" follows OwnershipTimeline (the
 * checkers' definition): alive and not fenced by the coordinator (nor,
 * in a classic group, left behind at an older generation); a
 * fenced member that still believes it owns a partition gets a zombie
 * interval. A crash ends every interval of the crashed member.
 */
export class OwnershipIntervals {
  readonly #timeline = new OwnershipTimeline();
  readonly #owners = new Map<string, OwnerState>();
  readonly #closed = new Map<string, OwnershipInterval[]>();
  /** Every row seen, with its group and partition. */
  readonly #rows = new Map<string, { groupId: string; partition: string }>();

  accept(event: HistoryEvent): void {
    if (event.ev !== "life" && !(event.ev === "obs" && OWNERSHIP_OBSERVATIONS.has(event.o.type))) return;
    this.#timeline.apply(event);
    const owned = observationOf(event, "member.owned");
    if (owned !== undefined && event.ev === "obs") {
      const owner = this.#owners.get(event.actor) ?? {
        actor: event.actor,
        groupId: owned.groupId,
        epoch: owned.memberEpoch,
        open: new Map(),
      };
      owner.epoch = owned.memberEpoch;
      this.#owners.set(event.actor, owner);
      for (const { topic, partition } of topicPartitionsOf(owned.owned)) this.#noteRow(owned.groupId, tpKey(topic, partition));
    }
    const assignment = observationOf(event, "gc.member");
    if (assignment !== undefined) {
      for (const byTopic of [assignment.assigned, assignment.pendingRevocation])
        for (const { topic, partition } of topicPartitionsOf(byTopic)) this.#noteRow(assignment.groupId, tpKey(topic, partition));
    }
    for (const owner of this.#owners.values()) this.#sync(owner, event.t);
    if (owned !== undefined && event.ev === "obs") {
      for (const open of this.#owners.get(event.actor)?.open.values() ?? []) open.lastEpoch = owned.memberEpoch;
    }
  }

  /** Closes what is still open at `endUs` and returns one row per partition: the groups' own partitions first, in their order. */
  finish(endUs: Micros, groups: readonly GroupPartitions[]): OwnershipRow[] {
    for (const owner of this.#owners.values()) {
      for (const [partition, open] of owner.open) this.#close(owner, partition, open, endUs);
      owner.open.clear();
    }
    const order: string[] = [];
    for (const group of groups) order.push(group.groupId);
    for (const { groupId } of this.#rows.values()) if (!order.includes(groupId)) order.push(groupId);
    for (const group of groups) for (const partition of group.partitions) this.#noteRow(group.groupId, partition);
    const rows = [...this.#rows].map(([key, { groupId, partition }]) => {
      const { topic, partition: number } = parseTpKey(partition);
      const intervals = (this.#closed.get(key) ?? []).sort((a, b) => a.fromUs - b.fromUs || (a.actor < b.actor ? -1 : 1));
      return { groupId, topic, partition: number, intervals, conflicts: liveConflicts(intervals) };
    });
    return rows.sort(
      (a, b) =>
        order.indexOf(a.groupId) - order.indexOf(b.groupId) ||
        (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : 0) ||
        a.partition - b.partition,
    );
  }

  #noteRow(groupId: string, partition: string): void {
    const key = rowKey(groupId, partition);
    if (!this.#rows.has(key)) this.#rows.set(key, { groupId, partition });
  }

  /** Brings an owner's open intervals in line with what the timeline says it owns now, and whether it is live. */
  #sync(owner: OwnerState, now: Micros): void {
    const live = this.#timeline.isLive(owner.actor);
    const owned = this.#timeline.ownedBy(owner.actor);
    for (const [partition, open] of owner.open) {
      if (owned.has(partition) && open.live === live) continue;
      this.#close(owner, partition, open, now);
      owner.open.delete(partition);
    }
    for (const partition of owned) {
      if (owner.open.has(partition)) continue;
      owner.open.set(
        partition,
        this.#reopen(owner, partition, live, now) ?? {
          fromUs: now,
          live,
          firstEpoch: owner.epoch,
          lastEpoch: owner.epoch,
        },
      );
    }
  }

  /** An interval of the same owner and kind that ended at this very instant continues instead of starting anew. */
  #reopen(owner: OwnerState, partition: string, live: boolean, now: Micros): OpenInterval | undefined {
    const closed = this.#closed.get(rowKey(owner.groupId, partition));
    const last = closed?.[closed.length - 1];
    if (closed === undefined || last === undefined || last.actor !== owner.actor || last.live !== live || last.toUs !== now)
      return undefined;
    closed.pop();
    return { fromUs: last.fromUs, live, firstEpoch: last.firstEpoch, lastEpoch: last.lastEpoch };
  }

  #close(owner: OwnerState, partition: string, open: OpenInterval, now: Micros): void {
    if (now <= open.fromUs) return;
    const key = rowKey(owner.groupId, partition);
    const list = this.#closed.get(key) ?? [];
    list.push({
      actor: owner.actor,
      fromUs: open.fromUs,
      toUs: now,
      live: open.live,
      firstEpoch: open.firstEpoch,
      lastEpoch: open.lastEpoch,
    });
    this.#closed.set(key, list);
  }
}

/** Spans where two or more live intervals overlap. */
export function liveConflicts(intervals: readonly OwnershipInterval[]): TimeSpan[] {
  const edges: [Micros, number][] = [];
  for (const i of intervals) {
    if (!i.live) continue;
    edges.push([i.fromUs, 1], [i.toUs, -1]);
  }
  // Ends before starts at the same instant: a hand-over is not a conflict.
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const spans: TimeSpan[] = [];
  let count = 0;
  let since: Micros = 0;
  for (const [t, delta] of edges) {
    if (count < 2 && count + delta >= 2) since = t;
    if (count >= 2 && count + delta < 2 && t > since) spans.push({ fromUs: since, toUs: t });
    count += delta;
  }
  return spans;
}
