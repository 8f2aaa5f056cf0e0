import { getOrCreate, type Micros, topicPartitionsOf, tpKey } from "@kcsim/protocol";
import type { HistoryEvent } from "../history/history-event.js";
import type { EventFollower, SharedAnalysis } from "./history-pass.js";
import { observationOf } from "./observations.js";

/** The observations apply() reads; every other observation leaves the timeline as it is. */
export const OWNERSHIP_OBSERVATIONS: ReadonlySet<string> = new Set([
  "member.owned",
  "member.state",
  "gc.member",
  "gc.member-removed",
  "gc.group",
]);
/** The events that can move ownership: process events and those observations. */
export const OWNERSHIP_EVENTS: readonly string[] = ["life", ...OWNERSHIP_OBSERVATIONS];

/** How many partitions of a watched set have no live owner, kept up to date as the timeline moves. */
export interface UnownedCount {
  readonly count: number;
}

/**
 * Replays a history and keeps, at each step, which member actor owns which
 * partitions from the application's point of view (`member.owned`), whether
 * each actor is alive (process events) and whether the coordinator has
 * fenced it (`gc.member-removed` for its member id, until the coordinator
 * admits that member id again: a later `gc.member` for it).
 * Only owners that are alive and not fenced count ("live owners"): a fenced
 * zombie may still believe it owns a partition, and may even finish a
 * reconciliation it started before it was fenced; only the coordinator
 * admitting it again makes it a live member.
 *
 * A classic group fences by generation as well: when its coordinator
 * completes a join phase (`gc.group` with a higher generation), a member
 * whose client holds an older generation and was not rejoining (not in
 * PREPARING_REBALANCE, so no JoinGroup of it counted) is left behind. Kafka
 * keeps such a member if it is static (GroupMetadataManager
 * `completeClassicGroupJoin` removes only dynamic members that did not
 * rejoin), hands the leader its old subscription (ClassicGroup
 * `currentClassicGroupMembers`), so the leader may give its partitions to
 * others, and refuses every request stamped with its old generation
 * (ILLEGAL_GENERATION: `validateClassicGroupHeartbeat`, ClassicGroup
 * `validateOffsetCommit`, SyncGroup). Its client, cut off from the
 * coordinator, keeps fetching until it hears of it (AbstractCoordinator's
 * heartbeat thread only marks the coordinator unknown). It is a zombie of
 * its old generation until a JoinGroup of it is answered (its client then
 * holds the missed generation or a later one, unless the group was deleted
 * and created anew with fresh epochs) or its client otherwise holds the
 * missed generation or a later one.
 */
export class OwnershipTimeline implements EventFollower {
  readonly reads = OWNERSHIP_EVENTS;
  readonly #owned = new Map<string, Set<string>>();
  readonly #alive = new Set<string>();
  readonly #fenced = new Set<string>();
  readonly #memberIdOf = new Map<string, string>();
  readonly #actorOfMemberId = new Map<string, string>();
  /** Member ids the coordinator holds now (a gc.member since their last removal). */
  readonly #admitted = new Set<string>();
  /** Live owners of each partition key. */
  readonly #owners = new Map<string, Set<string>>();
  /** The unowned counts watching each partition key (see watchUnowned). */
  readonly #watchers = new Map<string, { count: number }[]>();
  /** Each classic group's generation (its last gc.group). */
  readonly #generations = new Map<string, number>();
  /** What each classic client holds: its group, generation and state (member.state). */
  readonly #classicClients = new Map<string, { groupId: string; generation: number; state: string }>();
  /** Classic members a join phase left behind, with the generation they missed. */
  readonly #leftBehind = new Map<string, number>();
  /** Partitions that just got a second live owner at the last apply(). */
  conflicts: { partition: string; owners: string[] }[] = [];

  /** Applies one history event; returns true if live ownership changed. */
  apply(event: HistoryEvent): boolean {
    // Most events leave this empty: keep the array instead of allocating one per event.
    if (this.conflicts.length > 0) this.conflicts = [];
    if (event.ev === "obs" && !OWNERSHIP_OBSERVATIONS.has(event.o.type)) return false;
    if (event.ev === "life") {
      if (event.what === "start" || event.what === "restart") {
        this.#alive.add(event.actor);
        this.#fenced.delete(event.actor);
        this.#leftBehind.delete(event.actor);
        this.#classicClients.delete(event.actor);
        // A new process: whatever member id the old one had is not its id any more.
        this.#memberIdOf.delete(event.actor);
        return false;
      }
      if (event.what === "crash" || event.what === "stop") {
        const had = this.#liveSet(event.actor);
        this.#alive.delete(event.actor);
        this.#owned.delete(event.actor);
        this.#forget(event.actor, had);
        return had.size > 0;
      }
      return false;
    }
    const owned = observationOf(event, "member.owned");
    if (owned !== undefined) {
      this.#identify(event.ev === "obs" ? event.actor : "", owned.memberId);
      const actor = event.ev === "obs" ? event.actor : "";
      const wasLive = this.isLive(actor);
      const previous = this.#owned.get(actor);
      const next = new Set<string>();
      for (const { topic, partition } of topicPartitionsOf(owned.owned)) next.add(tpKey(topic, partition));
      this.#owned.set(actor, next);
      this.#clientGeneration(actor, owned.memberEpoch, undefined);
      if (wasLive && this.isLive(actor)) this.#replace(actor, previous ?? new Set(), next);
      else {
        if (wasLive && previous !== undefined) this.#forget(actor, previous);
        this.#remember(actor);
      }
      return true;
    }
    const state = observationOf(event, "member.state");
    if (state !== undefined && event.ev === "obs") {
      let rejoined = false;
      if (state.protocol === "classic") {
        const client = this.#classicClients.get(event.actor);
        if (client === undefined || client.groupId !== state.groupId) {
          this.#classicClients.set(event.actor, { groupId: state.groupId, generation: state.memberEpoch, state: state.to });
          // A generation missed in another group says nothing of this one.
          rejoined = this.#leftBehind.delete(event.actor);
        }
        rejoined = this.#clientGeneration(event.actor, state.memberEpoch, state.to) || rejoined;
        // A JoinGroup answered: the coordinator holds it at the answered generation. Usually that is the one it
        // missed or a later one, but a group deleted when empty and created again by a member of the other
        // protocol numbers its epochs afresh (maybeDeleteEmptyClassicGroup), so the answer counts, not the number.
        if (state.to === "COMPLETING_REBALANCE") rejoined = this.#leftBehind.delete(event.actor) || rejoined;
      } else if (this.#classicClients.delete(event.actor)) {
        // Now a consumer-protocol member: its epochs are its own, no generation of a classic group fences it.
        rejoined = this.#leftBehind.delete(event.actor);
      }
      if (rejoined) this.#remember(event.actor);
      return this.#identify(event.actor, state.memberId) || rejoined;
    }
    const group = observationOf(event, "gc.group");
    if (group !== undefined) {
      if (group.protocol === "classic") return this.#generationMoved(group.groupId, group.groupEpoch);
      // A consumer group's epochs are no generations: a downgrade back to classic starts afresh.
      this.#generations.delete(group.groupId);
      return false;
    }
    const readmitted = observationOf(event, "gc.member");
    if (readmitted !== undefined) {
      this.#admitted.add(readmitted.memberId);
      const actor = this.#actorOfMemberId.get(readmitted.memberId);
      if (actor === undefined || !this.#fenced.has(actor)) return false;
      this.#fenced.delete(actor);
      this.#remember(actor);
      return true;
    }
    const removed = observationOf(event, "gc.member-removed");
    if (removed !== undefined) {
      const actor = this.#actorOfMemberId.get(removed.memberId);
      // Only a removal of the id the actor holds now fences it (not an id a previous process of it had).
      this.#admitted.delete(removed.memberId);
      if (actor === undefined || this.#fenced.has(actor) || this.#memberIdOf.get(actor) !== removed.memberId) return false;
      // An online upgrade or downgrade rebuilds the member objects; the members themselves carry on.
      if (removed.reason === "group-converted") return false;
      const had = this.#liveSet(actor);
      this.#fenced.add(actor);
      this.#forget(actor, had);
      return had.size > 0;
    }
    return false;
  }

  /** As a follower of a history pass (the pass hands it only the events that can move ownership). */
  accept(event: HistoryEvent): void {
    this.apply(event);
  }

  /** Live owners of a partition key. */
  ownersOf(partition: string): readonly string[] {
    return [...(this.#owners.get(partition) ?? [])];
  }

  /** How many of these partitions have no live owner. */
  unownedCount(partitions: readonly string[]): number {
    let count = 0;
    for (const p of partitions) if ((this.#owners.get(p)?.size ?? 0) === 0) count++;
    return count;
  }

  /**
   * A count of these partitions without a live owner that the timeline keeps
   * current itself: O(1) to read after every event, where unownedCount() is
   * O(partitions) (a join storm of 1,000 members over 10,000 partitions moves
   * ownership thousands of times).
   */
  watchUnowned(partitions: readonly string[]): UnownedCount {
    const watch = { count: 0 };
    for (const p of new Set(partitions)) {
      getOrCreate(this.#watchers, p, () => []).push(watch);
      if ((this.#owners.get(p)?.size ?? 0) === 0) watch.count++;
    }
    return watch;
  }

  /** The partitions an actor believes it owns (live or not). */
  ownedBy(actor: string): ReadonlySet<string> {
    return this.#owned.get(actor) ?? new Set();
  }

  /** The member id an actor holds now, as its client last showed it. */
  memberIdOf(actor: string): string | undefined {
    return this.#memberIdOf.get(actor);
  }

  /** The actor that last showed this member id. */
  actorOfMemberId(memberId: string): string | undefined {
    return this.#actorOfMemberId.get(memberId);
  }

  isLive(actor: string): boolean {
    return this.#alive.has(actor) && !this.#fenced.has(actor) && !this.#leftBehind.has(actor);
  }

  isAlive(actor: string): boolean {
    return this.#alive.has(actor);
  }

  /**
   * Learns which member id an actor holds now. An empty id means it holds
   * none (a classic member reset to rejoin). A fenced actor that reveals an
   * id the coordinator has already admitted since is live again (the
   * coordinator's answer can reach the history before the client's).
   */
  #identify(actor: string, memberId: string): boolean {
    if (this.#memberIdOf.get(actor) === memberId) return false;
    if (memberId === "") {
      this.#memberIdOf.delete(actor);
      return false;
    }
    this.#memberIdOf.set(actor, memberId);
    this.#actorOfMemberId.set(memberId, actor);
    if (this.#fenced.has(actor) && this.#admitted.has(memberId)) {
      this.#fenced.delete(actor);
      this.#remember(actor);
      return true;
    }
    return false;
  }

  /**
   * A classic group's generation is now `generation`. A higher one completed
   * a join phase: every client of the group holding an older generation that
   * was not rejoining is left behind. A lower one (a new coordinator loaded
   * an older generation) takes back those whose generation is current again.
   */
  #generationMoved(groupId: string, generation: number): boolean {
    const previous = this.#generations.get(groupId);
    this.#generations.set(groupId, generation);
    if (previous === undefined || previous === generation) return false;
    let changed = false;
    for (const [actor, client] of this.#classicClients) {
      if (client.groupId !== groupId) continue;
      if (generation > previous) {
        if (client.generation >= generation || client.state === "PREPARING_REBALANCE" || this.#leftBehind.has(actor)) continue;
        const had = this.#liveSet(actor);
        this.#leftBehind.set(actor, generation);
        this.#forget(actor, had);
        changed ||= had.size > 0;
      } else if (this.#leftBehind.has(actor) && client.generation >= generation) {
        this.#leftBehind.delete(actor);
        this.#remember(actor);
        changed = true;
      }
    }
    return changed;
  }

  /**
   * A classic client's generation (and state, from member.state) moved:
   * true if that ends its being left behind (it holds the generation it
   * missed, or a later one); the caller then remembers what it owns.
   */
  #clientGeneration(actor: string, generation: number, state: string | undefined): boolean {
    const client = this.#classicClients.get(actor);
    if (client === undefined) return false;
    client.generation = generation;
    if (state !== undefined) client.state = state;
    const missed = this.#leftBehind.get(actor);
    if (missed === undefined || generation < missed) return false;
    this.#leftBehind.delete(actor);
    return true;
  }

  #liveSet(actor: string): Set<string> {
    return this.isLive(actor) ? new Set(this.#owned.get(actor) ?? []) : new Set();
  }

  /**
   * A live actor that stays live now owns `next` instead of `previous`: what
   * forgetting all of `previous` and then remembering all of `next` does,
   * touching only the partitions that moved (a member of a join storm holds
   * thousands and moves a few). A partition in both keeps its owners, the
   * actor now last among them (as removing and adding it leaves it), and is
   * reported again if another live actor owns it too.
   */
  #replace(actor: string, previous: ReadonlySet<string>, next: ReadonlySet<string>): void {
    for (const p of previous) if (!next.has(p)) this.#forgetOne(actor, p);
    for (const p of next) {
      if (!previous.has(p)) {
        this.#rememberOne(actor, p);
        continue;
      }
      const owners = this.#owners.get(p);
      if (owners === undefined || !owners.has(actor)) {
        this.#rememberOne(actor, p);
        continue;
      }
      if (owners.size === 1) continue;
      owners.delete(actor);
      owners.add(actor);
      this.conflicts.push({ partition: p, owners: [...owners] });
    }
  }

  #forget(actor: string, partitions: ReadonlySet<string>): void {
    for (const p of partitions) this.#forgetOne(actor, p);
  }

  #forgetOne(actor: string, p: string): void {
    const owners = this.#owners.get(p);
    if (owners === undefined || !owners.delete(actor) || owners.size > 0) return;
    for (const watch of this.#watchers.get(p) ?? []) watch.count++;
  }

  #remember(actor: string): void {
    if (!this.isLive(actor)) return;
    for (const p of this.#owned.get(actor) ?? []) this.#rememberOne(actor, p);
  }

  #rememberOne(actor: string, p: string): void {
    const owners = getOrCreate(this.#owners, p, () => new Set<string>());
    const before = owners.size;
    owners.add(actor);
    if (before === 0 && owners.size === 1) for (const watch of this.#watchers.get(p) ?? []) watch.count--;
    if (owners.size > 1) this.conflicts.push({ partition: p, owners: [...owners] });
  }
}

/** The one ownership timeline of a history pass, which its checkers and metrics share. */
export const sharedOwnership: SharedAnalysis<OwnershipTimeline> = () => new OwnershipTimeline();

/** The time a history event happened. */
export const timeOf = (event: HistoryEvent): Micros => event.t;
