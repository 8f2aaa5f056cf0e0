import type { Micros } from "@kcsim/protocol";
import { observationOf } from "../analysis/observations.js";
import type { OwnershipTimeline } from "../analysis/ownership-timeline.js";
import type { HistoryEvent } from "../history/history-event.js";
import { formatSeconds } from "../report/time-format.js";
import { listedPartitions } from "./listed-partitions.js";
import { keysOf } from "./partition-keys.js";

/** A client's last JoinGroup that reached its coordinator: when, and what the client owned then. */
interface ClaimingJoin {
  readonly t: Micros;
  readonly index: number;
  /** The coordinator it reached. */
  readonly to: string;
  /** The timeline's owned set of the client when it sent it (never changed by the timeline, only replaced). */
  readonly owned: ReadonlySet<string>;
}

/** A classic member's record by the coordinator after its client crashed: one per generation. */
interface KeptRecord {
  readonly t: Micros;
  readonly index: number;
  readonly generation: number;
  readonly assigned: ReadonlySet<string>;
}

/** A member whose client crashed after a JoinGroup that named partitions it owned, and what the coordinator did with it. */
interface CrashedClaim {
  readonly actor: string;
  readonly join: ClaimingJoin;
  readonly crash: { readonly t: Micros; readonly index: number };
  groupId: string | null;
  /** Whether the coordinator's records of it carry a group instance id (a static member). */
  isStatic: boolean;
  readonly kept: KeptRecord[];
  /** The coordinator replaced the member id under its instance id (a new process of it joined). */
  replaced: { readonly t: Micros; readonly index: number } | null;
}

/** The group's last record as the story's caller holds it: its state and where it is in the history. */
export interface GroupRecord {
  readonly protocol: string;
  readonly state: string;
  readonly index: number;
}

/**
 * Partitions a classic group assigns to no member because a crashed static member still claims them (swarm seed
 * 137241). A member's JoinGroup names the partitions its client owns (the subscription's OwnedPartitions; an eager
 * client has revoked them all before it sends one, a cooperative one keeps them). When that client crashes, Kafka
 * keeps a static member that has not rejoined, with the subscription it last sent (`completeClassicGroupJoin`
 * removes only the dynamic ones), and the cooperative protocol leaves a partition that moves away from the member
 * claiming it out of the assignment until that member revokes it and rejoins (`ConsumerCoordinator.onJoinComplete`,
 * KIP-429): a dead member never does. A new process of the member that joins under its instance id while the group
 * is STABLE gets the member's current assignment with no rebalance
 * (`GroupMetadataManager.updateStaticMemberThenRebalanceOrCompleteJoin`), so nothing reassigns them.
 *
 * It reads what the ownership timeline has just applied (which member id is whose, what each client owns), so it
 * must see each event after the timeline.
 */
export class CrashedStaticClaims {
  /** Each live client's last JoinGroup that reached its coordinator. */
  readonly #joins = new Map<string, ClaimingJoin>();
  /** By member id: the claims of crashed clients. */
  readonly #claims = new Map<string, CrashedClaim>();
  readonly #timeline: OwnershipTimeline;

  constructor(timeline: OwnershipTimeline) {
    this.#timeline = timeline;
  }

  /** The events it reads, besides the ownership events its caller reads. */
  static readonly reads: readonly string[] = ["send JoinGroupRequest"];

  accept(event: HistoryEvent, index: number): void {
    switch (event.ev) {
      case "send":
        if (event.type === "JoinGroupRequest" && event.at.length > 0)
          this.#joins.set(event.from, { t: event.t, index, to: event.to, owned: this.#timeline.ownedBy(event.from) });
        return;
      case "life": {
        if (event.what === "start" || event.what === "restart") {
          this.#joins.delete(event.actor);
          return;
        }
        if (event.what !== "crash" && event.what !== "stop") return;
        this.#coordinatorDown(event.actor);
        if (event.what !== "crash") return;
        const join = this.#joins.get(event.actor);
        this.#joins.delete(event.actor);
        // The timeline keeps the member id a crashed process held until a new process of it starts.
        const memberId = this.#timeline.memberIdOf(event.actor);
        if (join === undefined || join.owned.size === 0 || memberId === undefined) return;
        this.#claims.set(memberId, {
          actor: event.actor,
          join,
          crash: { t: event.t, index },
          groupId: null,
          isStatic: false,
          kept: [],
          replaced: null,
        });
        return;
      }
      case "obs": {
        const member = observationOf(event, "gc.member");
        if (member !== undefined) {
          const claim = this.#claims.get(member.memberId);
          if (claim === undefined) return;
          claim.groupId = member.groupId;
          claim.isStatic = member.instanceId !== null;
          const assigned = new Set(keysOf(member.assigned));
          const record = { t: event.t, index, generation: member.memberEpoch, assigned };
          if (claim.kept.at(-1)?.generation === member.memberEpoch) claim.kept[claim.kept.length - 1] = record;
          else claim.kept.push(record);
          return;
        }
        const removed = observationOf(event, "gc.member-removed");
        if (removed === undefined) return;
        const claim = this.#claims.get(removed.memberId);
        if (claim === undefined) return;
        // Replaced under its instance id, the member keeps its assignment; removed any other way, its claim is gone.
        if (removed.reason === "static-replaced" && claim.replaced === null) claim.replaced = { t: event.t, index };
        else if (removed.reason !== "static-replaced") this.#claims.delete(removed.memberId);
        return;
      }
      default:
        return;
    }
  }

  /**
   * A coordinator that goes down loses the subscriptions it took but had not yet written with a generation: a
   * JoinGroup is kept in the log only with the generation it joins (the group's record at its SyncGroup), so a
   * coordinator that loads the group takes the member's subscription of its last generation, not of a later join.
   */
  #coordinatorDown(actor: string): void {
    for (const [client, join] of this.#joins) if (join.to === actor) this.#joins.delete(client);
    for (const [memberId, claim] of this.#claims) if (claim.join.to === actor && claim.kept.length === 0) this.#claims.delete(memberId);
  }

  /**
   * The stories of those of `unassigned` (partitions a classic group assigns to no member) that a crashed static
   * member's last JoinGroup claimed, with the events each cites; the partitions told are taken out of `unassigned`.
   */
  tell(groupId: string, group: GroupRecord, unassigned: string[]): { readonly text: string; readonly cited: readonly number[] }[] {
    if (group.protocol !== "classic") return [];
    const stories: { text: string; cited: number[] }[] = [];
    for (const claim of this.#claims.values()) {
      if (claim.groupId !== groupId || !claim.isStatic || claim.kept.length === 0) continue;
      const claimed = unassigned.filter((p) => claim.join.owned.has(p) && claim.kept.every((record) => !record.assigned.has(p)));
      if (claimed.length === 0) continue;
      for (const p of claimed) unassigned.splice(unassigned.indexOf(p), 1);
      const { actor, join, crash, kept, replaced } = claim;
      const them = claimed.length === 1 ? "it" : "them";
      const generations = `${kept.length === 1 ? "generation" : "generations"} ${listed(kept.map((r) => String(r.generation)))} (${listed(kept.map((r) => formatSeconds(r.t)))})`;
      let text =
        `${listedPartitions(claimed)} assigned to no member: ${actor}'s client named ${them} among the partitions it owned in the JoinGroup it sent at ${formatSeconds(join.t)} and crashed at ${formatSeconds(crash.t)}; ` +
        `the coordinator kept ${actor}, a static member, with that subscription in ${generations}, as Kafka keeps a static member that has not rejoined (completeClassicGroupJoin removes only dynamic ones), ` +
        `and a cooperative assignment leaves out a partition moving away from the member that claims it until that member revokes it and rejoins (ConsumerCoordinator.onJoinComplete)`;
      const cited = [join.index, crash.index, ...kept.map((r) => r.index)];
      // Replaced after the group's last record: the rejoin left the group as it was, STABLE.
      if (replaced !== null && group.state === "STABLE" && group.index < replaced.index) {
        text += `; ${actor}'s new process joined at ${formatSeconds(replaced.t)} under its instance id, which Kafka answers in a STABLE group with the member's current assignment and no rebalance (GroupMetadataManager.updateStaticMemberThenRebalanceOrCompleteJoin)`;
        cited.push(replaced.index);
      }
      stories.push({ text, cited });
    }
    return stories;
  }
}

/** "4", "4 and 5", "4, 5 and 6". */
function listed(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}
