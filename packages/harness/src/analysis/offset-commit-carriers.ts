import { type ActorId, getOrCreate, type Micros } from "@kcsim/protocol";
import type { ConnectionRecord, HistoryEvent, SendRecord } from "../history/history-event.js";
import { ClientCloses } from "./client-closes.js";
import type { EventFollower, SharedAnalysis } from "./history-pass.js";
import { observationOf } from "./observations.js";
import { type OwnershipTimeline, sharedOwnership } from "./ownership-timeline.js";
import { type PendingRequest, PendingRequests } from "./pending-requests.js";

/** The requests whose carriers this analysis follows. */
export type CommitApi = "OffsetCommit" | "TxnOffsetCommit";

/** A coordinator's commits and OffsetCommit answers of one instant, in order. */
interface CoordinatorInstant {
  readonly commits: number[];
  /** The request each answer answered (null: none known). */
  readonly answers: (PendingCommit | null)[];
}

const newCoordinatorInstant = (): CoordinatorInstant => ({ commits: [], answers: [] });

/** A commit request on its way to the coordinator, or being served there. */
type PendingCommit = PendingRequest<CommitApi>;

/** The request that carried a commit the coordinator wrote, and what became of its connection. */
export interface OffsetCommitCarrier {
  readonly api: CommitApi;
  readonly client: ActorId;
  /** The request's send event and its history index. */
  readonly send: SendRecord;
  readonly sendIndex: number;
  /** The client's close of the connection the request rode, when it closed it before the request arrived. */
  readonly closedBefore: { readonly close: ConnectionRecord; readonly index: number } | null;
}

const newMap = <K, V>(): Map<K, V> => new Map();

const offsetKey = (groupId: string, topic: string, partition: number, memberId: string, offset: number) =>
  `${groupId}\u0000${topic}\u0000${partition}\u0000${memberId}\u0000${offset}`;

/**
 * Which request carried a commit, for the story of a commit that broke a
 * rule. Each answer answers the oldest unanswered request of its API on its
 * connection (PendingRequests). A coordinator releases the observation of a
 * write and then its answer in the same instant, and the writes of one
 * flush in the same order both times (observations first, then answers).
 * So once an instant is over (settled at the first commit or answer of a
 * later one), when a coordinator's plain gc.offset-commits of that instant
 * are as many as its OffsetCommit answers, the k-th commit was carried by
 * the request the k-th answer answered. With another count
 * (an answer that reports no commit: a request without partitions, a
 * NOT_COORDINATOR) the analysis names none rather than guess.
 *
 * A transactional commit becomes the group's when the producer's COMMIT
 * marker lands, long after its TxnOffsetCommit was answered. One
 * TxnOffsetCommit is reported as one gc.txn-offset per partition, so its
 * carrier is taken when it was accepted (pending) as the one request of
 * the member's process (any process's, when no client has shown the member
 * id in a member.state or member.owned) that has arrived and is unanswered, if there is just
 * one; it is the carrier of the later commit of the same partition, member
 * and offset if only one producer's accepted offset matches.
 *
 * Connection mode only: a datagram network has no connections to pair
 * requests and answers on.
 */
export class OffsetCommitCarriers implements EventFollower {
  /** Each connection's commit requests, that have arrived or will, unanswered. */
  readonly #pending = new PendingRequests<CommitApi>(["OffsetCommit", "TxnOffsetCommit"]);
  readonly reads = [...this.#pending.reads, "conn", "life", "gc.txn-offset", "gc.offset-commit"];
  /** The client's close of each connection it closed. */
  readonly #closes = new ClientCloses();
  /** Which process each member id is (the shared ownership timeline, which has seen each event first). */
  readonly #timeline: OwnershipTimeline;
  /** Accepted transactional offsets not yet materialised or dropped: by partition, member and offset, then by producer. */
  readonly #transactional = new Map<string, Map<number, OffsetCommitCarrier | null>>();
  /** The instant whose commits and answers are being gathered (settled at the first such event of a later one). */
  #openT = Number.NaN;
  /** Each coordinator's plain gc.offset-commits (history indexes) and OffsetCommit answers of the instant, in order. */
  readonly #instant = new Map<ActorId, CoordinatorInstant>();
  /** The coordinators with a commit or an answer in the instant. */
  readonly #touched: CoordinatorInstant[] = [];
  /** Whether the instant has a commit. */
  #instantHasCommits = false;
  /** Transactional gc.offset-commits of the instant whose carrier is known, by history index. */
  #materialisedNow: Map<number, OffsetCommitCarrier> | null = null;
  /** The commits of the last instant settled with commits that have a known carrier, and the requests answered for them. */
  readonly #settledCommits: number[] = [];
  readonly #settledRequests: PendingCommit[] = [];
  #settledMaterialised: Map<number, OffsetCommitCarrier> | null = null;

  constructor(timeline: OwnershipTimeline) {
    this.#timeline = timeline;
  }

  accept(event: HistoryEvent, index: number): void {
    switch (event.ev) {
      case "send": {
        const answered = this.#pending.accept(event, index);
        if (answered?.api === "OffsetCommit") {
          this.#gatherAt(event.t);
          this.#coordinatorInstant(event.from).answers.push(answered.request);
        }
        return;
      }
      case "conn":
        this.#closes.accept(event, index);
        return;
      case "life":
        if (event.what === "crash" || event.what === "stop") this.#pending.serverDown(event.actor);
        return;
      case "obs":
        this.#observation(event, index);
        return;
      default:
        return;
    }
  }

  #observation(event: HistoryEvent & { ev: "obs" }, index: number): void {
    const offset = observationOf(event, "gc.txn-offset");
    if (offset !== undefined) {
      const key = offsetKey(offset.groupId, offset.topic, offset.partition, offset.memberId, offset.offset);
      if (offset.outcome === "pending") {
        const producers = getOrCreate(this.#transactional, key, newMap<number, OffsetCommitCarrier | null>);
        producers.set(offset.producerId, this.#onlyCandidate(event.actor, offset.memberId, event.t));
      } else if (offset.outcome === "aborted" || offset.outcome === "superseded") {
        const producers = this.#transactional.get(key);
        producers?.delete(offset.producerId);
        if (producers?.size === 0) this.#transactional.delete(key);
      }
      return;
    }
    const commit = observationOf(event, "gc.offset-commit");
    if (commit === undefined) return;
    this.#gatherAt(event.t);
    if (!commit.transactional) {
      this.#coordinatorInstant(event.actor).commits.push(index);
      this.#instantHasCommits = true;
      return;
    }
    // A materialisation is one partition (see gc.offset-commit).
    const topic = commit.topics[0];
    const key =
      topic === undefined ? "" : offsetKey(commit.groupId, topic.topic, topic.partitions[0] ?? -1, commit.memberId, topic.offsets[0] ?? -1);
    const producers = this.#transactional.get(key);
    const only = producers?.size === 1 ? [...producers.values()][0] : undefined;
    if (only === undefined) return;
    // The one accepted offset it can be is now the group's: no longer pending.
    this.#transactional.delete(key);
    if (only === null) return;
    this.#materialisedNow ??= new Map();
    this.#materialisedNow.set(index, only);
    this.#instantHasCommits = true;
  }

  /** A commit or an answer at `t`: an instant gathered before is over, and is settled first. */
  #gatherAt(t: Micros): void {
    if (t === this.#openT) return;
    this.settleInstant();
    this.#openT = t;
  }

  /**
   * Settles the instant whose commits and answers were gathered last: pairs each coordinator's plain commits
   * of it with its answers. Done at the first commit or answer of a later instant (not at every instant: most
   * have none), so a follower that reads commits after this analysis finds the instants before its event
   * settled; its `finish` calls it for the run's last one. An instant without commits leaves the last settled
   * carriers as they are.
   */
  settleInstant(): void {
    if (this.#instantHasCommits) {
      this.#settledCommits.length = 0;
      this.#settledRequests.length = 0;
      for (const { commits, answers } of this.#touched) {
        if (answers.length !== commits.length) continue;
        for (let k = 0; k < commits.length; k++) {
          const answered = answers[k];
          if (answered === null || answered === undefined) continue;
          this.#settledCommits.push(commits[k] as number);
          this.#settledRequests.push(answered);
        }
      }
      this.#settledMaterialised = this.#materialisedNow;
      this.#materialisedNow = null;
      this.#instantHasCommits = false;
    }
    for (const coordinator of this.#touched) {
      coordinator.commits.length = 0;
      coordinator.answers.length = 0;
    }
    this.#touched.length = 0;
  }

  /** The request that carried the commit at history index `index`, of the last instant settled with commits, if known. */
  carrierAt(index: number): OffsetCommitCarrier | null {
    const k = this.#settledCommits.indexOf(index);
    if (k >= 0) return this.#carrier(this.#settledRequests[k] as PendingCommit);
    return this.#settledMaterialised?.get(index) ?? null;
  }

  #coordinatorInstant(coordinator: ActorId): CoordinatorInstant {
    const instant = getOrCreate(this.#instant, coordinator, newCoordinatorInstant);
    if (instant.commits.length === 0 && instant.answers.length === 0) this.#touched.push(instant);
    return instant;
  }

  #carrier(pending: PendingCommit): OffsetCommitCarrier {
    return {
      api: pending.api,
      client: pending.send.from,
      send: pending.send,
      sendIndex: pending.index,
      closedBefore: this.#closes.closedBefore(pending.send),
    };
  }

  /**
   * The TxnOffsetCommit that `coordinator` is writing for `memberId` at `t`, if exactly one request of that
   * member's process (of any process, when the member id was never seen) can be it; null otherwise.
   */
  #onlyCandidate(coordinator: ActorId, memberId: string, t: Micros): OffsetCommitCarrier | null {
    const client = this.#timeline.actorOfMemberId(memberId);
    let found: PendingCommit | null = null;
    for (const pending of this.#pending.unanswered("TxnOffsetCommit", client)) {
      if (pending.send.to !== coordinator || (pending.send.at[0] as Micros) > t) continue;
      if (found !== null) return null;
      found = pending;
    }
    return found === null ? null : this.#carrier(found);
  }
}

export const sharedOffsetCommitCarriers: SharedAnalysis<OffsetCommitCarriers> = (pass) =>
  new OffsetCommitCarriers(pass.shared(sharedOwnership));
