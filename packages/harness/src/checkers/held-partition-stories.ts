import type { Micros, PartitionsByTopic } from "@kcsim/protocol";
import type { LostAssignmentAnswers } from "../analysis/lost-assignment-answers.js";
import { observationOf } from "../analysis/observations.js";
import type { OwnershipTimeline } from "../analysis/ownership-timeline.js";
import type { HistoryEvent } from "../history/history-event.js";
import { formatSeconds } from "../report/time-format.js";
import { listedPartitions as listed } from "./listed-partitions.js";
import { lostRequestStory } from "./lost-request-story.js";
import { keysOf } from "./partition-keys.js";

/** Why a member's client still holds partitions its coordinator believes it does not: the story and the events it cites. */
export interface HeldPartitionStory {
  readonly text: string;
  readonly cited: readonly number[];
}

/** The online upgrade or downgrade that took a member as holding less than its client owned. */
interface Conversion {
  readonly t: Micros;
  /** The protocol the group was converted to: an upgrade makes a consumer group, a downgrade a classic one. */
  readonly to: string;
  readonly index: number;
  readonly assigned: readonly string[];
  /** What its client owned and the converted member was not given; pruned as the client gives partitions up. */
  readonly held: Set<string>;
}

/** The coordinator removed a member id while its client owned partitions, and may admit that id again. */
interface Removal {
  readonly memberId: string;
  readonly t: Micros;
  readonly index: number;
  readonly reason: string;
  /** What its client owned at the removal; pruned as the client gives partitions up. */
  readonly held: Set<string>;
  readmitted: { readonly t: Micros; readonly index: number } | null;
  /** Whether it was admitted again into a consumer group by a classic client's JoinGroup. */
  byClassicJoin: boolean;
}

/** A KIP-848 client took partitions that its coordinator's newer record of the member had left out. */
interface StaleClaim {
  readonly t: Micros;
  readonly index: number;
  /** When the reconciliation that took them began (the client's move into RECONCILING). */
  readonly since: { readonly t: Micros; readonly index: number };
  /** The coordinator's record of the member, made after that, without them. */
  readonly record: { readonly t: Micros; readonly index: number; readonly epoch: number };
  /** What it took that the record left out; pruned as the client gives partitions up. */
  readonly held: Set<string>;
}

/** When a classic client took a partition it still owns: the time, history index and generation of that member.owned. */
interface ClassicTake {
  readonly t: Micros;
  readonly index: number;
  readonly generation: number;
}

/** A classic client's rejoin in progress: when it began, the generation it held then, and its JoinGroup answer once it came. */
interface ClassicRejoin {
  readonly memberId: string;
  readonly since: { readonly t: Micros; readonly index: number };
  readonly heldGeneration: number;
  joined: { readonly t: Micros; readonly index: number; readonly generation: number } | null;
}

/** The coordinator's last record of a member id: its partitions (assigned or pending revocation), made into keys on first use. */
interface MemberRecord {
  readonly t: Micros;
  readonly index: number;
  readonly epoch: number;
  readonly assigned: PartitionsByTopic;
  readonly pendingRevocation: PartitionsByTopic;
  keys: Set<string> | null;
}

/** A record's partitions (assigned or pending revocation) as keys, made on first use and kept. */
function recordKeys(record: MemberRecord): ReadonlySet<string> {
  record.keys ??= new Set([...keysOf(record.assigned), ...keysOf(record.pendingRevocation)]);
  return record.keys;
}

function prune(held: Set<string>, owned: ReadonlySet<string>): void {
  for (const p of held) if (!owned.has(p)) held.delete(p);
}

/**
 * Tells, for a partition with two live owners, the ways the swarms have
 * seen a coordinator and a client disagree on what the client holds, so a hunt
 * groups each into a finding of its own and its verdict says why:
 *
 * - an online upgrade took a member as holding the classic group's stored
 *   assignment (`ConsumerGroup.fromClassicGroup`), or a downgrade as holding
 *   its target (`ClassicGroup.fromConsumerGroup`), while its client still
 *   owned partitions outside it: a cooperative member keeps what it owns
 *   until a SyncGroup answer tells it otherwise, and a member of a consumer
 *   group until it has revoked them;
 * - the coordinator removed a member id whose client still owned
 *   partitions (a timeout while it was cut off) and later admitted that id
 *   again, as a new member holding nothing; when it did so answering a
 *   request that rode a connection the client had closed (a retransmitted
 *   rejoin), the story names that request and the close; when a classic
 *   client's JoinGroup did so in a consumer group (converted online), it
 *   says that a classic group would have refused it;
 * - a KIP-848 client completed a reconciliation that began before the
 *   coordinator's newer record of the member, which had left partitions
 *   out, and took them anyway (seed 195770's stale reconciliation);
 * - a classic client that missed a generation (a static member kept by the
 *   coordinator while its client was cut off or frozen) joined a later one
 *   still owning a partition that the missed generation had taken from it:
 *   a cooperative client keeps what it owns through the rejoin and gives
 *   up what it lost only at its SyncGroup answer (seed 4967's window).
 *
 * It reads what the ownership timeline has just applied (which member id is
 * whose, what each client owns), so it must see each event after the
 * timeline.
 */
export class HeldPartitionStories {
  readonly #conversions = new Map<string, Conversion>();
  readonly #removals = new Map<string, Removal>();
  /** Member ids whose member object an online conversion removed at this time, waiting for the converted one. */
  readonly #converting = new Map<string, Micros>();
  /** Each group's protocol as its coordinator last said it. */
  readonly #protocols = new Map<string, string>();
  /** Each client's protocol as its last member.state said it. */
  readonly #clientProtocols = new Map<string, string>();
  /** Each KIP-848 client's reconciliation in progress: when it moved into RECONCILING. */
  readonly #reconciling = new Map<string, { readonly t: Micros; readonly index: number }>();
  /** The coordinator's last record of each member id. */
  readonly #records = new Map<string, MemberRecord>();
  /** What each KIP-848 client owned after its last member.owned, and its stale claims. */
  readonly #owned = new Map<string, ReadonlySet<string>>();
  readonly #staleClaims = new Map<string, StaleClaim>();
  /** What each classic client owns, by partition: when it took each one. */
  readonly #classicTakes = new Map<string, Map<string, ClassicTake>>();
  /** Each classic client's rejoin in progress. */
  readonly #classicRejoins = new Map<string, ClassicRejoin>();
  readonly #lostAnswers: LostAssignmentAnswers;

  constructor(lostAnswers: LostAssignmentAnswers) {
    this.#lostAnswers = lostAnswers;
  }

  accept(event: HistoryEvent, index: number, timeline: OwnershipTimeline): void {
    if (event.ev === "life") {
      if (event.what === "start" || event.what === "restart") {
        this.#conversions.delete(event.actor);
        this.#removals.delete(event.actor);
        this.#staleClaims.delete(event.actor);
        this.#reconciling.delete(event.actor);
        this.#owned.delete(event.actor);
        this.#classicTakes.delete(event.actor);
        this.#classicRejoins.delete(event.actor);
      }
      return;
    }
    const group = observationOf(event, "gc.group");
    if (group !== undefined) {
      this.#protocols.set(group.groupId, group.protocol);
      return;
    }
    const removed = observationOf(event, "gc.member-removed");
    if (removed !== undefined) {
      if (removed.reason === "group-converted") {
        this.#converting.set(removed.memberId, event.t);
        return;
      }
      const actor = timeline.actorOfMemberId(removed.memberId);
      if (actor === undefined || timeline.memberIdOf(actor) !== removed.memberId) return;
      const held = new Set(timeline.ownedBy(actor));
      if (held.size > 0)
        this.#removals.set(actor, {
          memberId: removed.memberId,
          t: event.t,
          index,
          reason: removed.reason,
          held,
          readmitted: null,
          byClassicJoin: false,
        });
      return;
    }
    const member = observationOf(event, "gc.member");
    if (member !== undefined) {
      this.#records.set(member.memberId, {
        t: event.t,
        index,
        epoch: member.memberEpoch,
        assigned: member.assigned,
        pendingRevocation: member.pendingRevocation,
        keys: null,
      });
      const actor = timeline.actorOfMemberId(member.memberId);
      if (actor === undefined) return;
      if (this.#converting.get(member.memberId) === event.t) {
        this.#converting.delete(member.memberId);
        const assigned = keysOf(member.assigned);
        const given = new Set(assigned);
        const held = new Set([...timeline.ownedBy(actor)].filter((p) => !given.has(p)));
        const to = this.#protocols.get(member.groupId) ?? "consumer";
        if (held.size > 0) this.#conversions.set(actor, { t: event.t, to, index, assigned, held });
        return;
      }
      const removal = this.#removals.get(actor);
      if (removal !== undefined && removal.memberId === member.memberId && removal.readmitted === null) {
        removal.readmitted = { t: event.t, index };
        removal.byClassicJoin = this.#protocols.get(member.groupId) === "consumer" && this.#clientProtocols.get(actor) === "classic";
      }
      return;
    }
    const state = observationOf(event, "member.state");
    if (state !== undefined && event.ev === "obs") {
      this.#clientProtocols.set(event.actor, state.protocol);
      if (state.to === "RECONCILING" && state.from !== "RECONCILING") this.#reconciling.set(event.actor, { t: event.t, index });
      else if (state.to !== "RECONCILING") this.#reconciling.delete(event.actor);
      if (state.protocol !== "classic") this.#classicRejoins.delete(event.actor);
      else if (state.to === "PREPARING_REBALANCE") {
        if (state.from !== "PREPARING_REBALANCE")
          this.#classicRejoins.set(event.actor, {
            memberId: state.memberId,
            since: { t: event.t, index },
            heldGeneration: state.memberEpoch,
            joined: null,
          });
      } else if (state.to === "COMPLETING_REBALANCE") {
        const rejoin = this.#classicRejoins.get(event.actor);
        if (rejoin !== undefined && rejoin.memberId === state.memberId)
          rejoin.joined = { t: event.t, index, generation: state.memberEpoch };
        // A JoinGroup answer that gave the client a new member id: not a rejoin of the member it was.
        else this.#classicRejoins.delete(event.actor);
      } else this.#classicRejoins.delete(event.actor);
      return;
    }
    const owned = observationOf(event, "member.owned");
    if (owned !== undefined && event.ev === "obs") {
      const now = timeline.ownedBy(event.actor);
      if (this.#clientProtocols.get(event.actor) === "consumer") {
        if (owned.cause === "assigned") this.#noteStaleClaim(event.actor, owned.memberId, now, event.t, index);
        // The timeline replaces a client's set at each member.owned and never changes one: keep it, not a copy.
        this.#owned.set(event.actor, now);
      } else if (this.#clientProtocols.get(event.actor) === "classic")
        this.#noteClassicTakes(event.actor, now, owned.memberEpoch, event.t, index);
      const claim = this.#staleClaims.get(event.actor);
      if (claim !== undefined) prune(claim.held, now);
      const conversion = this.#conversions.get(event.actor);
      if (conversion !== undefined) prune(conversion.held, now);
      const removal = this.#removals.get(event.actor);
      if (removal !== undefined) prune(removal.held, now);
    }
  }

  /**
   * A KIP-848 client's reconciliation has just given it partitions: those that the coordinator's record of the
   * member, made after the reconciliation began, leaves out are a stale claim (Kafka's consumer does not abort a
   * reconciliation when a newer target arrives: AbstractMembershipManager.maybeAbortReconciliation).
   */
  #noteStaleClaim(actor: string, memberId: string, now: ReadonlySet<string>, t: Micros, index: number): void {
    const since = this.#reconciling.get(actor);
    const record = this.#records.get(memberId);
    if (since === undefined || record === undefined || record.t <= since.t) return;
    const before = this.#owned.get(actor);
    const keys = recordKeys(record);
    const held = new Set<string>();
    for (const p of now) if (!before?.has(p) && !keys.has(p)) held.add(p);
    if (held.size === 0) return;
    this.#staleClaims.set(actor, { t, index, since, record: { t: record.t, index: record.index, epoch: record.epoch }, held });
  }

  /** A classic client now owns `now`: the partitions new to it were taken at this member.owned, the others earlier. */
  #noteClassicTakes(actor: string, now: ReadonlySet<string>, generation: number, t: Micros, index: number): void {
    let takes = this.#classicTakes.get(actor);
    if (takes === undefined) {
      takes = new Map();
      this.#classicTakes.set(actor, takes);
    }
    for (const p of takes.keys()) if (!now.has(p)) takes.delete(p);
    for (const p of now) if (!takes.has(p)) takes.set(p, { t, index, generation });
  }

  /**
   * A classic client rejoining (its JoinGroup unanswered, or answered and its SyncGroup not) that still owns
   * `partition`, taken in a generation before the coordinator's record of the member that left it out, a record of a
   * generation its client never held: a cooperative client keeping, through a rejoin, a partition that a generation
   * it missed gave away (seed 4967's window; 148214's, where the rejoin was lost with a coordinator's failover).
   */
  #lateRejoinStory(owner: string, partition: string): HeldPartitionStory | null {
    const rejoin = this.#classicRejoins.get(owner);
    const take = this.#classicTakes.get(owner)?.get(partition);
    if (rejoin === undefined || take === undefined || take.generation > rejoin.heldGeneration) return null;
    const record = this.#records.get(rejoin.memberId);
    const joined = rejoin.joined;
    if (record === undefined || record.t < take.t || record.epoch <= rejoin.heldGeneration) return null;
    if (joined !== null && record.epoch >= joined.generation) return null;
    if (recordKeys(record).has(partition)) return null;
    const where =
      joined === null
        ? `${owner}'s client, rejoining since ${formatSeconds(rejoin.since.t)} from generation ${rejoin.heldGeneration} with no JoinGroup answer yet, still owned ${partition}`
        : `${owner}'s client joined generation ${joined.generation} at ${formatSeconds(joined.t)} still owning ${partition}`;
    return {
      text: `${where}, which it took at ${formatSeconds(take.t)} (generation ${take.generation}) and the coordinator's record of ${owner} at ${formatSeconds(record.t)} (generation ${record.epoch}, which its client missed) had left out: a cooperative client keeps what it owns while it rejoins (ConsumerCoordinator.onJoinPrepare) and gives up what it lost only at its SyncGroup answer (onJoinComplete)`,
      cited: [take.index, ...(joined === null ? [rejoin.since.index] : []), record.index, ...(joined === null ? [] : [joined.index])].sort(
        (a, b) => a - b,
      ),
    };
  }

  /** Why one of these owners still holds the partition, if it is one of those stories. */
  storyOf(partition: string, owners: readonly string[]): HeldPartitionStory | null {
    for (const owner of owners) {
      const conversion = this.#conversions.get(owner);
      if (conversion?.held.has(partition))
        return {
          text:
            conversion.to === "classic"
              ? `the online downgrade at ${formatSeconds(conversion.t)} took ${owner} as holding ${listed(conversion.assigned)} (its target assignment) while its client still owned ${listed(conversion.held)}`
              : `the online upgrade at ${formatSeconds(conversion.t)} took ${owner} as holding ${listed(conversion.assigned)} (the classic group's stored assignment) while its client still owned ${listed(conversion.held)}`,
          cited: [conversion.index],
        };
    }
    for (const owner of owners) {
      const removal = this.#removals.get(owner);
      if (removal?.readmitted != null && removal.held.has(partition)) {
        // Why a removed id comes back: a consumer group creates a classic member for any member id it is sent.
        const why = removal.byClassicJoin
          ? "; a consumer group makes a member of a classic JoinGroup's member id it no longer has (GroupMetadataManager.classicGroupJoinToConsumerGroup), where a classic group answers UNKNOWN_MEMBER_ID"
          : "";
        const text = `the coordinator removed ${owner}'s member id at ${formatSeconds(removal.t)} (${removal.reason}) and admitted it again at ${formatSeconds(removal.readmitted.t)}, while its client still owned ${listed(removal.held)}${why}`;
        const lost = this.#lostAnswers.lostAnswerOf(removal.readmitted.index);
        if (lost === undefined) return { text, cited: [removal.index, removal.readmitted.index] };
        return {
          text: `${text}; it admitted it answering ${lostRequestStory(lost)}`,
          cited: [removal.index, lost.requestIndex, lost.closeIndex, removal.readmitted.index],
        };
      }
    }
    for (const owner of owners) {
      const claim = this.#staleClaims.get(owner);
      if (claim?.held.has(partition))
        return {
          text: `${owner}'s client took ${listed(claim.held)} at ${formatSeconds(claim.t)}, completing a reconciliation it began at ${formatSeconds(claim.since.t)}, after the coordinator's record of ${owner} at ${formatSeconds(claim.record.t)} (epoch ${claim.record.epoch}) had left ${claim.held.size === 1 ? "it" : "them"} out: Kafka's consumer does not abort a reconciliation for a newer target (AbstractMembershipManager.maybeAbortReconciliation)`,
          cited: [claim.since.index, claim.record.index, claim.index],
        };
    }
    for (const owner of owners) {
      const story = this.#lateRejoinStory(owner, partition);
      if (story !== null) return story;
    }
    return null;
  }
}
