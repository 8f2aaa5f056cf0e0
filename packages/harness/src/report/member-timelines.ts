import { type Micros, topicPartitionsOf } from "@kcsim/protocol";
import { observationOf } from "../analysis/observations.js";
import type { HistoryEvent } from "../history/history-event.js";
import type { MemberDirectory } from "./member-directory.js";
import type { MemberTimeline, ProcessTimeline, ServerSegment, StateSegment } from "./report-data.js";

interface OpenState {
  readonly fromUs: Micros;
  readonly state: string;
  readonly memberEpoch: number;
}

interface OpenServerState extends OpenState {
  readonly assigned: number;
  readonly pendingRevocation: number;
}

const countOf = (byTopic: Parameters<typeof topicPartitionsOf>[0]) => [...topicPartitionsOf(byTopic)].length;

/** A member actor and its group, as the spec lists them (or as the history shows them). */
export interface MemberOfGroup {
  readonly actor: string;
  readonly groupId: string;
}

/**
 * Each member's two views of itself over time: its client state machine
 * (member.state, with the member epoch it held) and what the coordinator
 * held for its member ids (gc.member: server-side state and member epoch,
 * until gc.member-removed). A crash ends the client state (the process that
 * had it is gone); the coordinator's view lives on until it removes the id.
 */
export class MemberTimelines {
  readonly #states = new Map<string, StateSegment[]>();
  readonly #openState = new Map<string, OpenState>();
  readonly #protocol = new Map<string, string>();
  /** Server-side segments by member id (mapped to actors at the end). */
  readonly #server = new Map<string, ServerSegment[]>();
  readonly #openServer = new Map<string, OpenServerState>();

  accept(event: HistoryEvent): void {
    if (event.ev === "life" && (event.what === "crash" || event.what === "stop")) {
      this.#closeState(event.actor, event.t);
      return;
    }
    const state = observationOf(event, "member.state");
    if (state !== undefined && event.ev === "obs") {
      this.#closeState(event.actor, event.t);
      this.#openState.set(event.actor, { fromUs: event.t, state: state.to, memberEpoch: state.memberEpoch });
      this.#protocol.set(event.actor, state.protocol);
      return;
    }
    const member = observationOf(event, "gc.member");
    if (member !== undefined) {
      this.#closeServer(member.memberId, event.t);
      this.#openServer.set(member.memberId, {
        fromUs: event.t,
        state: member.state,
        memberEpoch: member.memberEpoch,
        assigned: countOf(member.assigned),
        pendingRevocation: countOf(member.pendingRevocation),
      });
      return;
    }
    const removed = observationOf(event, "gc.member-removed");
    if (removed !== undefined) this.#closeServer(removed.memberId, event.t);
  }

  /** One timeline per member, in the given order, then any other member actor the history shows. */
  finish(
    endUs: Micros,
    members: readonly MemberOfGroup[],
    directory: MemberDirectory,
    processes: ReadonlyMap<string, ProcessTimeline>,
  ): MemberTimeline[] {
    for (const actor of [...this.#openState.keys()]) this.#closeState(actor, endUs);
    for (const memberId of [...this.#openServer.keys()]) this.#closeServer(memberId, endUs);
    const serverByActor = new Map<string, ServerSegment[]>();
    for (const [memberId, segments] of this.#server) {
      const actor = directory.actorOf(memberId);
      if (actor === null) continue;
      serverByActor.set(actor, [...(serverByActor.get(actor) ?? []), ...segments]);
    }
    const all = [...members];
    const known = new Set(members.map((m) => m.actor));
    const others = directory.actors().filter((actor) => !known.has(actor));
    others.sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
    for (const actor of others) all.push({ actor, groupId: directory.groupOf(actor) ?? "" });
    return all.map(({ actor, groupId }) => ({
      actor,
      groupId,
      protocol: this.#protocol.get(actor) ?? null,
      states: this.#states.get(actor) ?? [],
      serverStates: (serverByActor.get(actor) ?? []).sort((a, b) => a.fromUs - b.fromUs),
      process: processes.get(actor) ?? { actor, bands: [], marks: [] },
    }));
  }

  #closeState(actor: string, t: Micros): void {
    const open = this.#openState.get(actor);
    if (open === undefined) return;
    this.#openState.delete(actor);
    if (t <= open.fromUs) return;
    const list = this.#states.get(actor) ?? [];
    list.push({ ...open, toUs: t });
    this.#states.set(actor, list);
  }

  #closeServer(memberId: string, t: Micros): void {
    const open = this.#openServer.get(memberId);
    if (open === undefined) return;
    this.#openServer.delete(memberId);
    if (t <= open.fromUs) return;
    const list = this.#server.get(memberId) ?? [];
    list.push({ ...open, memberId, toUs: t });
    this.#server.set(memberId, list);
  }
}
