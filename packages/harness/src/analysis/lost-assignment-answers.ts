import { type ActorId, getOrCreate, type Micros } from "@kcsim/protocol";
import type { ConnectionRecord, HistoryEvent, SendRecord } from "../history/history-event.js";
import { ClientCloses } from "./client-closes.js";
import type { EventFollower, SharedAnalysis } from "./history-pass.js";
import { observationOf } from "./observations.js";
import { type OwnershipTimeline, sharedOwnership } from "./ownership-timeline.js";
import { type PendingRequest, PendingRequests } from "./pending-requests.js";

/** The group APIs whose answers hand a member its assignment. */
type AssigningApi = "ConsumerGroupHeartbeat" | "JoinGroup" | "SyncGroup";

/**
 * A member's assignment record that the coordinator answered on a connection its client had closed before the
 * request arrived: a request the kernel's retransmission delivered after the client gave the connection up
 * (Kafka's client closes a connection on a request timeout; the bytes it had sent still reach the broker). The
 * answer goes to a closed socket, so the client never hears of the record.
 */
export interface LostAssignmentAnswer {
  readonly api: AssigningApi;
  readonly client: ActorId;
  /** The request's send event and its history index. */
  readonly request: SendRecord;
  readonly requestIndex: number;
  /** The client's close of the connection, before the request arrived. */
  readonly close: ConnectionRecord;
  readonly closeIndex: number;
  /** When the coordinator answered it. */
  readonly answeredAt: Micros;
}

/**
 * Which gc.member records the coordinator made while answering a request that rode a connection its client had
 * already closed, for the story of a group whose coordinator holds an assignment the client never took. Each
 * answer of an API answers the oldest unanswered request of that API on its connection (PendingRequests). A coordinator releases a record
 * and the answer of the request that made it in the same instant; so a gc.member of a member id at instant t is
 * taken to ride the answer to its client at t when that client got exactly one answer of these APIs from that
 * coordinator then. Only records whose answer rode a connection the client had closed before the request
 * arrived are kept: an answer on a live connection is the ordinary case, and nothing to tell.
 *
 * Known once the record's instant is over: a reader in the same instant does not see it yet.
 *
 * Connection mode only: a datagram network has no connections to pair requests and answers on.
 */
export class LostAssignmentAnswers implements EventFollower {
  /** Each connection's unanswered requests of these APIs. */
  readonly #pending = new PendingRequests<AssigningApi>(["ConsumerGroupHeartbeat", "JoinGroup", "SyncGroup"]);
  readonly reads = [...this.#pending.reads, "conn", "life", "gc.member"];
  /** The client's close of each connection it closed. */
  readonly #closes = new ClientCloses();
  /** Which process each member id is (the shared ownership timeline, which has seen each event first). */
  readonly #timeline: OwnershipTimeline;
  /** The instant going on: its gc.member records (index, coordinator, client) and each (coordinator, client)'s answers. */
  readonly #records: { readonly index: number; readonly coordinator: ActorId; readonly client: ActorId }[] = [];
  readonly #answers = new Map<string, (LostAssignmentAnswer | null)[]>();
  /** gc.member records (by history index) answered on a closed connection. */
  readonly #lost = new Map<number, LostAssignmentAnswer>();

  constructor(timeline: OwnershipTimeline) {
    this.#timeline = timeline;
  }

  accept(event: HistoryEvent, index: number): void {
    switch (event.ev) {
      case "send": {
        const answered = this.#pending.accept(event, index);
        if (answered === undefined) return;
        getOrCreate(this.#answers, `${event.from}\u0000${event.to}`, newAnswers).push(
          answered.request === null ? null : this.#lostAnswer(answered.request, event.t),
        );
        return;
      }
      case "conn":
        this.#closes.accept(event, index);
        return;
      case "life":
        if (event.what === "crash" || event.what === "stop") this.#pending.serverDown(event.actor);
        return;
      case "obs": {
        const member = observationOf(event, "gc.member");
        const client = member === undefined ? undefined : this.#timeline.actorOfMemberId(member.memberId);
        if (client !== undefined) this.#records.push({ index, coordinator: event.actor, client });
        return;
      }
      default:
        return;
    }
  }

  /**
   * How the gc.member record at history index `index` reached its client, when its answer rode a connection the
   * client had closed. Known once the record's instant is over (see settleInstant); undefined before.
   */
  lostAnswerOf(index: number): LostAssignmentAnswer | undefined {
    return this.#lost.get(index);
  }

  /** The instant is over: its records are paired with their answers, before any follower that joined later hears of the next one. */
  instantOver(): void {
    if (this.#records.length > 0 || this.#answers.size > 0) this.#settle();
  }

  /** Settles the run's last instant, for a reader at the run's end (no instantOver follows it). */
  settleInstant(): void {
    this.#settle();
  }

  /** Pairs the instant's records with their answers. */
  #settle(): void {
    for (const { index, coordinator, client } of this.#records) {
      const answers = this.#answers.get(`${coordinator}\u0000${client}`);
      const only = answers?.length === 1 ? answers[0] : null;
      if (only != null) this.#lost.set(index, only);
    }
    this.#records.length = 0;
    this.#answers.clear();
  }

  /** The request as a lost answer when its client had closed its connection before it arrived; null otherwise. */
  #lostAnswer(pending: PendingRequest<AssigningApi>, answeredAt: Micros): LostAssignmentAnswer | null {
    const closed = this.#closes.closedBefore(pending.send);
    if (closed === null) return null;
    return {
      api: pending.api,
      client: pending.send.from,
      request: pending.send,
      requestIndex: pending.index,
      close: closed.close,
      closeIndex: closed.index,
      answeredAt,
    };
  }
}

const newAnswers = (): (LostAssignmentAnswer | null)[] => [];

export const sharedLostAssignmentAnswers: SharedAnalysis<LostAssignmentAnswers> = (pass) =>
  new LostAssignmentAnswers(pass.shared(sharedOwnership));
