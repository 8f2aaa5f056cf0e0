import { type ActorId, encode, type Message, type Micros, type Observation } from "@kcsim/protocol";
import TinyQueue from "tinyqueue";
import { History, type HistoryOptions } from "../history/history.js";
import type { ConnectionRecord, HistoryHeader, SendRecord } from "../history/history-event.js";
import { corruptFrame, type RouteDecision, Router } from "../router/router.js";
import type { CellSink, LifecycleEvent } from "./actor-cell.js";
import type { ConnectionEvent } from "./connection-endpoint.js";
import { compareKeys, type DeliveryEvent, INJECT_ORIGIN, NEMESIS_ORIGIN, type Payload, type SimEvent, type TimerEvent } from "./event.js";
import type { SimulationSpec } from "./simulation-spec.js";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export const KCSIM_VERSION = "0.1.0";
/** Bumped when the wire format (messages, shared structures) changes. */
export const PROTOCOL_VERSION = "2";

/**
 * The main-thread half of every host: the global event queue, the router
 * and the history. It is the CellSink of the inline host; the lockstep host
 * replays its workers' effects into the same methods in the total order.
 */
export class SimulationCore implements CellSink {
  readonly spec: SimulationSpec;
  readonly router: Router;
  readonly history: History;
  readonly queue = new TinyQueue<SimEvent>([], compareKeys);
  /** Sees every routing decision as it is made (the realtime host records them). */
  onRoute:
    | ((from: ActorId, to: ActorId, seq: number, now: Micros, msgType: string, bytes: number, decision: RouteDecision) => void)
    | null = null;
  #injected = 0;
  eventsProcessed = 0;
  now: Micros = 0;

  constructor(spec: SimulationSpec, historyOptions: HistoryOptions = {}) {
    this.spec = spec;
    this.router = new Router(spec.plan, spec.seed);
    const header: HistoryHeader = {
      kcsim: "history",
      format: 3,
      seed: spec.seed,
      scenario: spec.scenario,
      versions: { kcsim: KCSIM_VERSION, protocol: PROTOCOL_VERSION },
    };
    this.history = new History(header, historyOptions);
    spec.actors.forEach((actor, index) => {
      this.queue.push({
        kind: "control",
        due: actor.startAtUs,
        origin: "!start",
        seq: index,
        sub: 0,
        to: actor.id,
        control: { action: "start" },
      });
    });
    spec.nemesis.forEach((step, index) => {
      this.queue.push({
        kind: "control",
        due: step.atUs,
        origin: NEMESIS_ORIGIN,
        seq: index,
        sub: 0,
        to: step.actor,
        control: step.control,
      });
    });
  }

  /** The next event due no later than `until`, or undefined. */
  popDue(until: Micros): SimEvent | undefined {
    for (;;) {
      const next = this.queue.peek();
      if (next === undefined || next.due > until) return undefined;
      this.now = next.due;
      this.eventsProcessed++;
      const event = this.queue.pop() as SimEvent;
      if (event.kind === "deliver" && event.conn !== 0 && this.#lostWithBreak(event)) return { ...event, lostWithBreak: true };
      return event;
    }
  }

  /** Whether a delivery was in flight on a connection that broke before it arrived (the break notices themselves excepted). */
  #lostWithBreak(event: DeliveryEvent): boolean {
    if (event.sub > 0 && event.msgType === "SimDisconnect") return false; // the router's notice of the break
    const client = event.conn > 0 ? event.from : event.to;
    return this.router.lostWithBreak(client, Math.abs(event.conn), event.due);
  }

  /** Puts a raw frame on the wire to `to` at `at` (tests: malformed frames). */
  injectFrame(at: Micros, from: ActorId, to: ActorId, frame: Uint8Array): void {
    this.queue.push({
      kind: "deliver",
      due: at,
      origin: INJECT_ORIGIN,
      seq: this.#injected++,
      sub: 0,
      to,
      from,
      msgType: "?",
      payload: frame,
      conn: 0,
    });
  }

  /** A delivery to an actor the run does not have. */
  undeliverable(event: SimEvent): void {
    if (event.kind === "deliver") this.lost(event.to, event.due, event.from, event.msgType, "no such actor");
  }

  send(from: ActorId, to: ActorId, seq: number, now: Micros, msgType: string, payload: Payload, bytes: number, conn: number): void {
    const client = conn >= 0 ? from : to;
    const gen = Math.abs(conn);
    const decision =
      conn === 0
        ? this.router.route(now, from, to, msgType, bytes)
        : this.router.routeOnConnection(now, from, to, msgType, bytes, client, gen);
    this.onRoute?.(from, to, seq, now, msgType, bytes, decision);
    // Optional fields are added in their fixed order (the line's key order) without spreading temporaries.
    const record: Mutable<SendRecord> = { t: now, ev: "send", from, to, type: msgType, bytes, fate: decision.fate, at: decision.at };
    if (decision.fault !== null) record.fault = decision.fault;
    if (decision.corrupt !== null) record.corrupt = decision.corrupt;
    if (decision.reordered) record.reordered = true;
    if (conn !== 0) record.conn = conn;
    if (decision.held) record.held = true;
    this.history.record(record);
    const delivered = decision.corrupt !== null && payload instanceof Uint8Array ? corruptFrame(payload, decision.corrupt) : payload;
    for (let sub = 0; sub < decision.at.length; sub++) {
      const event: DeliveryEvent = {
        kind: "deliver",
        due: decision.at[sub] as Micros,
        origin: from,
        seq,
        sub,
        to,
        from,
        msgType,
        payload: delivered,
        conn,
      };
      this.queue.push(event);
    }
    if (decision.breakAt !== null) this.#noticeBreak(now, from, seq, client, conn > 0 ? to : from, gen, decision.fault, decision.breakAt);
  }

  /**
   * A message broke its connection: each end gets a SimDisconnect ("broken")
   * from the other when it notices. The notices are keyed after the message
   * that broke it (sub-indexes 1 and 2), so every host orders them alike.
   */
  #noticeBreak(
    now: Micros,
    origin: ActorId,
    seq: number,
    client: ActorId,
    server: ActorId,
    gen: number,
    fault: string | null,
    at: readonly [Micros, Micros],
  ): void {
    const record: ConnectionRecord = {
      t: now,
      ev: "conn",
      actor: client,
      peer: server,
      gen,
      what: "break",
      connection: "",
      reason: fault,
      at,
    };
    this.history.record(record);
    const notice: Message = { type: "SimDisconnect", reason: "broken", connection: "" };
    const payload: Payload = this.spec.useCodec ? encode(notice) : notice;
    const base = { kind: "deliver", origin, seq, msgType: "SimDisconnect", payload } as const;
    this.queue.push({ ...base, due: at[0], sub: 1, to: client, from: server, conn: -gen });
    this.queue.push({ ...base, due: at[1], sub: 2, to: server, from: client, conn: gen });
  }

  connection(actor: ActorId, now: Micros, event: ConnectionEvent): void {
    const record: ConnectionRecord = {
      t: now,
      ev: "conn",
      actor,
      peer: event.server,
      gen: event.gen,
      what: event.what,
      connection: event.connection,
      reason: event.reason,
    };
    this.history.record(record);
  }

  observe(actor: ActorId, now: Micros, observation: Observation): void {
    this.history.record({ t: now, ev: "obs", actor, o: observation });
  }

  appended(_actor: ActorId, _record: Uint8Array): void {
    // The inline host's durable logs are the cells' own; the lockstep host keeps its mirror elsewhere.
  }

  lifecycle(actor: ActorId, now: Micros, what: LifecycleEvent, detail: string | null): void {
    this.history.record({ t: now, ev: "life", actor, what, detail });
  }

  actorError(actor: ActorId, now: Micros, during: string, message: string, stack: string): void {
    this.history.record({ t: now, ev: "error", actor, during, message, stack });
  }

  rejected(actor: ActorId, now: Micros, from: ActorId, reason: string, detail: string): void {
    this.history.record({ t: now, ev: "reject", actor, from, reason, detail });
  }

  lost(actor: ActorId, now: Micros, from: ActorId, msgType: string, why: string): void {
    this.history.record({ t: now, ev: "lost", actor, from, type: msgType, why });
  }

  scheduleTimer(event: TimerEvent): void {
    this.queue.push(event);
  }
}
