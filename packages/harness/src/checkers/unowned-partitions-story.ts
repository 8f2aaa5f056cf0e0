import { getOrCreate, type Micros, type PartitionsByTopic, topicPartitionsOf, tpKey } from "@kcsim/protocol";
import type { LostAssignmentAnswer, LostAssignmentAnswers } from "../analysis/lost-assignment-answers.js";
import { observationOf } from "../analysis/observations.js";
import type { OwnershipTimeline } from "../analysis/ownership-timeline.js";
import type { HistoryEvent } from "../history/history-event.js";
import { formatSeconds } from "../report/time-format.js";
import { CrashedStaticClaims } from "./crashed-static-claims.js";
import { listedPartitions } from "./listed-partitions.js";
import { lostRequestStory } from "./lost-request-story.js";

/** What the coordinator last said of one group: its state, its members' assignments, its last online conversion. */
interface CoordinatorView {
  /** The coordinator that last spoke of it: its crash loses what it said, until it loads the group again. */
  coordinator: string;
  group: { readonly protocol: string; readonly epoch: number; readonly state: string; readonly index: number } | null;
  /** Each member's last assignment as the coordinator said it (made into partition keys only when a story is told). */
  readonly assigned: Map<string, { readonly partitions: PartitionsByTopic; readonly index: number }>;
  conversion: {
    readonly t: Micros;
    readonly index: number;
    /** A downgrade's consumer group whose target assignment lagged its group epoch: the target the classic group took was stale. */
    readonly staleTarget: { readonly assignmentEpoch: number; readonly groupEpoch: number } | null;
  } | null;
  /** The group's last record as a consumer group (KIP-848): its epochs, which a downgrade starts from. */
  lastConsumerGroup: { readonly groupEpoch: number; readonly assignmentEpoch: number } | null;
}

/** How the coordinator's record of an assignment missed its client: its answer went to a connection the client had closed. */
function lostAnswerStory(lost: LostAssignmentAnswer): string {
  return `; the coordinator made that assignment at ${formatSeconds(lost.answeredAt)}, answering ${lostRequestStory(lost)}, so its answer went to a closed connection`;
}

/** What a member's application is doing, as far as the group's convergence goes. */
export interface MemberCondition {
  /** The error that stopped its consumer for good, if one did. */
  fatal(actor: string): string | undefined;
  /** Whether it was told to close. */
  closed(actor: string): boolean;
}

/**
 * Follows what the coordinator says of each group (gc.group, gc.member,
 * gc.member-removed), so that a group that never converged can be told as
 * a story: which partitions have no live owner at the run's end, whom the
 * coordinator has them assigned to, and what those members' clients hold.
 * "Assigned to no member" and "assigned to a member whose client does not
 * own them" are different bugs; the events it cites (the group's last
 * state, the assignments, the online conversion that made the group what
 * it is) file them apart in a hunt. When the coordinator made a member's
 * assignment answering a request that its client had given up (it rode a
 * connection the client closed before it arrived), the story says so, and
 * cites the request and the close: the client never heard of it. Partitions
 * assigned to no member that a crashed static member still claims are told
 * as that (CrashedStaticClaims).
 */
export class UnownedPartitionsStory {
  readonly #groups = new Map<string, CoordinatorView>();
  readonly #lostAnswers: LostAssignmentAnswers;
  readonly #crashedClaims: CrashedStaticClaims;

  /** The events it reads, besides the ownership events and gc.group its caller reads. */
  static readonly reads: readonly string[] = CrashedStaticClaims.reads;

  constructor(lostAnswers: LostAssignmentAnswers, timeline: OwnershipTimeline) {
    this.#lostAnswers = lostAnswers;
    this.#crashedClaims = new CrashedStaticClaims(timeline);
  }

  accept(event: HistoryEvent, index: number): void {
    this.#crashedClaims.accept(event, index);
    if (event.ev === "life" && event.what === "crash") {
      for (const view of this.#groups.values()) {
        if (view.coordinator !== event.actor) continue;
        view.group = null;
        view.lastConsumerGroup = null;
        view.assigned.clear();
      }
      return;
    }
    if (event.ev !== "obs") return;
    const group = observationOf(event, "gc.group");
    if (group !== undefined) {
      const view = this.#view(group.groupId, event.actor);
      view.group = { protocol: group.protocol, epoch: group.groupEpoch, state: group.state, index };
      if (group.protocol === "consumer") view.lastConsumerGroup = { groupEpoch: group.groupEpoch, assignmentEpoch: group.assignmentEpoch };
      return;
    }
    const member = observationOf(event, "gc.member");
    if (member !== undefined) {
      this.#view(member.groupId, event.actor).assigned.set(member.memberId, { partitions: member.assigned, index });
      return;
    }
    const removed = observationOf(event, "gc.member-removed");
    if (removed !== undefined) {
      const view = this.#view(removed.groupId, event.actor);
      view.assigned.delete(removed.memberId);
      if (removed.reason === "group-converted") {
        // A downgrade (the group's record already says classic) builds the classic group from the consumer group's
        // target assignment (ClassicGroup.fromConsumerGroup), whatever its epoch.
        const last = view.group?.protocol === "classic" ? view.lastConsumerGroup : null;
        const staleTarget = last !== null && last.assignmentEpoch < last.groupEpoch ? last : null;
        view.conversion = { t: event.t, index, staleTarget };
      }
    }
  }

  /** The story of a group's partitions without a live owner at the run's end, or null when every one has a live owner. */
  tell(
    groupId: string,
    partitions: readonly string[],
    timeline: OwnershipTimeline,
    members: MemberCondition,
  ): { readonly text: string; readonly cited: readonly number[] } | null {
    const unowned = partitions.filter((p) => timeline.ownersOf(p).length === 0);
    if (unowned.length === 0) return null;
    this.#lostAnswers.settleInstant();
    const view = this.#groups.get(groupId);
    const cited: number[] = [];
    const parts: string[] = [];
    let where = "the coordinator has no record of the group";
    if (view?.group != null) {
      const { protocol, epoch, state } = view.group;
      const stale = view.conversion?.staleTarget;
      const from =
        stale == null
          ? ""
          : ` from a consumer group whose target assignment (epoch ${stale.assignmentEpoch}) was behind its group epoch ${stale.groupEpoch}`;
      const conversion = view.conversion === null ? "" : `, converted online at ${formatSeconds(view.conversion.t)}${from}`;
      where = `the coordinator's ${protocol} group is ${state} at epoch ${epoch}${conversion}`;
      cited.push(view.group.index);
      if (view.conversion !== null) cited.push(view.conversion.index);
    }
    // Whom the coordinator has each unowned partition assigned to: its members' last assignments.
    const byMember = new Map<string, string[]>();
    const unassigned: string[] = [];
    const holders = new Map<string, string>();
    for (const [memberId, { partitions: assigned }] of view?.assigned ?? [])
      for (const { topic, partition } of topicPartitionsOf(assigned)) {
        const key = tpKey(topic, partition);
        if (!holders.has(key)) holders.set(key, memberId);
      }
    for (const p of unowned) {
      const holder = holders.get(p);
      if (holder === undefined) unassigned.push(p);
      else getOrCreate(byMember, holder, () => []).push(p);
    }
    for (const [memberId, ps] of byMember) {
      const actor = timeline.actorOfMemberId(memberId);
      const assignment = view?.assigned.get(memberId);
      const lost = assignment === undefined ? undefined : this.#lostAnswers.lostAnswerOf(assignment.index);
      if (assignment !== undefined) cited.push(assignment.index);
      if (lost !== undefined) cited.push(lost.requestIndex, lost.closeIndex);
      parts.push(
        `${listedPartitions(ps)} assigned to ${actor ?? memberId}, ${actor === undefined ? "a member id no client showed" : this.#conditionOf(actor, timeline, members)}${lost === undefined ? "" : lostAnswerStory(lost)}`,
      );
    }
    if (view?.group != null)
      for (const story of this.#crashedClaims.tell(groupId, view.group, unassigned)) {
        parts.push(story.text);
        cited.push(...story.cited);
      }
    if (unassigned.length > 0) parts.push(`${listedPartitions(unassigned)} assigned to no member`);
    return {
      text: `at the run's end ${listedPartitions(unowned)} had no live owner, and ${where}: ${parts.join("; ")}`,
      cited: [...new Set(cited)].sort((a, b) => a - b),
    };
  }

  #conditionOf(actor: string, timeline: OwnershipTimeline, members: MemberCondition): string {
    const error = members.fatal(actor);
    if (error !== undefined) return `whose consumer failed (${error})`;
    if (!timeline.isAlive(actor)) return "which is down";
    if (members.closed(actor)) return "which was told to close";
    const owned = `whose client owns ${listedPartitions(timeline.ownedBy(actor))}`;
    return timeline.isLive(actor) ? owned : `${owned} but is no live member (fenced, or left behind by a join phase)`;
  }

  #view(groupId: string, coordinator: string): CoordinatorView {
    const view = getOrCreate(this.#groups, groupId, () => ({
      coordinator,
      group: null,
      assigned: new Map(),
      conversion: null,
      lastConsumerGroup: null,
    }));
    view.coordinator = coordinator;
    return view;
  }
}
