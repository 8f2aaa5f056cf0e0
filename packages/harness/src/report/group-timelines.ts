import type { Micros } from "@kcsim/protocol";
import { observationOf } from "../analysis/observations.js";
import type { HistoryEvent } from "../history/history-event.js";
import type { GroupSegment, GroupTimeline, OwnershipRow, TargetMark } from "./report-data.js";
import { unownedSteps } from "./unowned-steps.js";

interface OpenGroup {
  readonly fromUs: Micros;
  readonly state: string;
  readonly groupEpoch: number;
  readonly assignmentEpoch: number;
  readonly members: number;
}

/**
 * Each group as its coordinator saw it (gc.group: state, group epoch,
 * assignment epoch, member count) as segments between changes, its new
 * target assignments (gc.target), and, from the ownership rows, how many of
 * its partitions had no live owner over time.
 */
export class GroupTimelines {
  readonly #segments = new Map<string, GroupSegment[]>();
  readonly #open = new Map<string, OpenGroup>();
  readonly #targets = new Map<string, TargetMark[]>();
  readonly #protocol = new Map<string, string>();

  accept(event: HistoryEvent): void {
    const group = observationOf(event, "gc.group");
    if (group !== undefined) {
      this.#close(group.groupId, event.t);
      this.#protocol.set(group.groupId, group.protocol);
      this.#open.set(group.groupId, {
        fromUs: event.t,
        state: group.state,
        groupEpoch: group.groupEpoch,
        assignmentEpoch: group.assignmentEpoch,
        members: group.members,
      });
      return;
    }
    const target = observationOf(event, "gc.target");
    if (target !== undefined) {
      const list = this.#targets.get(target.groupId) ?? [];
      list.push({ tUs: event.t, assignmentEpoch: target.assignmentEpoch, assignor: target.assignor, moved: target.moved });
      this.#targets.set(target.groupId, list);
    }
  }

  /** One timeline per group: the given ones in order, then any other the history shows. */
  finish(endUs: Micros, groupIds: readonly string[], rows: readonly OwnershipRow[]): GroupTimeline[] {
    for (const groupId of [...this.#open.keys()]) this.#close(groupId, endUs);
    const ids = [...groupIds];
    for (const id of [...this.#segments.keys(), ...this.#targets.keys(), ...rows.map((r) => r.groupId)])
      if (!ids.includes(id)) ids.push(id);
    return ids.map((groupId) => {
      const own = rows.filter((r) => r.groupId === groupId);
      return {
        groupId,
        protocol: this.#protocol.get(groupId) ?? null,
        partitions: own.length,
        segments: this.#segments.get(groupId) ?? [],
        targets: this.#targets.get(groupId) ?? [],
        unowned: unownedSteps(own, endUs),
      };
    });
  }

  #close(groupId: string, t: Micros): void {
    const open = this.#open.get(groupId);
    if (open === undefined) return;
    this.#open.delete(groupId);
    if (t <= open.fromUs) return;
    const list = this.#segments.get(groupId) ?? [];
    list.push({ ...open, toUs: t });
    this.#segments.set(groupId, list);
  }
}
