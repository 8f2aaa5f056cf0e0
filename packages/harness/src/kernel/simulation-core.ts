import { type ActorId, encode, type Message, type Micros, type Observation } from "@kcsim/protocol";
import { History, type HistoryOptions } from "../history/history.js";
import type { ConnectionRecord, HistoryHeader, SendRecord } from "../history/history-event.js";
import { corruptFrame, type RouteDecision, Router } from "../router/router.js";
import type { CellSink, LifecycleEvent } from "./actor-cell.js";
import type { ConnectionEvent } from "./connection-endpoint.js";
import {
  type ArmedTimer,
  type ControlAction,
  type ControlEvent,
  controlEvent,
  type DeliveryEvent,
  deliveryEvent,
  INJECT_ORIGIN,
  lostWithBreak,
  NEMESIS_ORIGIN,
  type Payload,
  precedes,
  type SimEvent,
  START_ORIGIN,
} from "./event.js";
import { EventHeap } from "./event-heap.js";
import { OriginRanks } from "./origin-ranks.js";
import type { SimulationSpec } from "./simulation-spec.js";
import { TimerHeap } from "./timer-heap.js";

export const KCSIM_VERSION = "0.1.0";
/** Bumped when the wire format (messages, shared structures) changes. */
export const PROTOCOL_VERSION = "2";

/**
 * How the payloads this core makes travel: as frames (worker hosts: every
 * payload crosses a thread) or as message objects (the inline host).
 */
export type CoreWire = "frames" | "objects";

/** The notice of a broken connection, as a message object (immutable: every notice shares it). */
const BROKEN_NOTICE: Message = Object.freeze({ type: "SimDisconnect", reason: "broken", connection: "" });

/** The history's line for a send and its routing decision. */
function sendRecord(
  now: Micros,
  from: ActorId,
  to: ActorId,
  type: string,
  bytes: number,
  conn: number,
  decision: RouteDecision,
): SendRecord {
  // Every optional field is there, undefined when absent, in the line's key order: one object shape for every
  // send, whatever its faults, so the history pass and the checkers are not thrown away by V8 the first time a
  // faulted send reaches them. A JSON line and the binary stream leave undefined fields out, so neither changes.
  return {
    t: now,
    ev: "send",
    from,
    to,
    type,
    bytes,
    fate: decision.fate,
    at: decision.at,
    fault: decision.fault ?? undefined,
    corrupt: decision.corrupt ?? undefined,
    reordered: decision.reordered ? true : undefined,
    conn: conn !== 0 ? conn : undefined,
    held: decision.held ? true : undefined,
  };
}

/**
 * The main-thread half of every host: the global event queue, the router
 * and the history. It is the CellSink of the inline host; the lockstep host
 * replays its workers' effects into the same methods in the total order.
 *
 * The queue is two heaps in one total order: messages and control events,
 * and the armed timers (the inline host's; worker hosts keep timers in
 * their shards), from which a cancelled or re-armed timer is taken out at
 * once, so every popped event is one that happens.
 */
export class SimulationCore implements CellSink {
  readonly spec: SimulationSpec;
  readonly router: Router;
  readonly history: History;
  readonly ranks: OriginRanks;
  /** Deliveries and control events. */
  readonly queue = new EventHeap<SimEvent>();
  /** Timers armed by cells whose sink this core is. */
  readonly timers = new TimerHeap();
  readonly #wire: CoreWire;
  /** Sees every routing decision as it is made (the realtime host records them). */
  onRoute:
    | ((from: ActorId, to: ActorId, seq: number, now: Micros, msgType: string, bytes: number, decision: RouteDecision) => void)
    | null = null;
  #injected = 0;
  eventsProcessed = 0;
  now: Micros = 0;

  constructor(spec: SimulationSpec, historyOptions: HistoryOptions = {}, wire: CoreWire = "frames") {
    this.spec = spec;
    this.#wire = wire;
    this.ranks = OriginRanks.of(spec);
    this.router = new Router(spec.plan, spec.seed);
    const header: HistoryHeader = {
      kcsim: "history",
      format: 8,
      seed: spec.seed,
      scenario: spec.scenario,
      versions: { kcsim: KCSIM_VERSION, protocol: PROTOCOL_VERSION },
    };
    this.history = new History(header, historyOptions);
    spec.actors.forEach((actor, index) => {
      this.queue.push(this.controlEvent(actor.startAtUs, START_ORIGIN, index, actor.id, { action: "start" }));
    });
    spec.nemesis.forEach((step, index) => {
      this.queue.push(this.controlEvent(step.atUs, NEMESIS_ORIGIN, index, step.actor, step.control));
    });
  }

  /** A control event keyed (due, origin, seq, 0). */
  controlEvent(due: Micros, origin: string, seq: number, to: ActorId, control: ControlAction): ControlEvent {
    return controlEvent(due, origin, this.ranks.rank(origin), seq, 0, to, control);
  }

  /** The due time of the earliest queued event, or undefined. */
  nextDue(): Micros | undefined {
    const message = this.queue.peek();
    const timer = this.timers.peek();
    if (timer === undefined) return message?.due;
    return message === undefined || timer.due < message.due ? timer.due : message.due;
  }

  /** The next event due no later than `until`, or undefined. */
  popDue(until: Micros): SimEvent | undefined {
    const message = this.queue.peek();
    const timer = this.timers.peek();
    if (timer !== undefined && (message === undefined || precedes(timer, message))) {
      if (timer.due > until) return undefined;
      this.now = timer.due;
      this.eventsProcessed++;
      this.timers.pop();
      return timer;
    }
    if (message === undefined || message.due > until) return undefined;
    this.now = message.due;
    this.eventsProcessed++;
    this.queue.pop();
    if (message.kind === "deliver" && message.conn !== 0 && this.#lostWithBreak(message)) return lostWithBreak(message);
    return message;
  }

  /**
   * Whether a delivery was in flight on a connection that broke before it arrived (the break notices themselves
   * excepted), or on one whose sender had closed it and whose kernel gave up retransmitting it.
   */
  #lostWithBreak(event: DeliveryEvent): boolean {
    if (event.sub > 0 && event.msgType === "SimDisconnect") return false; // the router's notice of the break
    const client = event.conn > 0 ? event.from : event.to;
    return this.router.lostWithBreak(client, Math.abs(event.conn), event.due) || this.router.lostAsOrphan(client, event.conn, event.due);
  }

  /** Puts a raw frame on the wire to `to` at `at` (tests: malformed frames). */
  injectFrame(at: Micros, from: ActorId, to: ActorId, frame: Uint8Array): void {
    this.queue.push(deliveryEvent(at, INJECT_ORIGIN, this.ranks.rank(INJECT_ORIGIN), this.#injected++, 0, to, from, "?", frame, 0));
  }

  /** A delivery to an actor the run does not have. */
  undeliverable(event: SimEvent): void {
    if (event.kind === "deliver") this.lost(event.to, event.due, event.from, event.msgType, "no such actor");
  }

  send(
    from: ActorId,
    to: ActorId,
    seq: number,
    now: Micros,
    msgType: string,
    payload: Payload,
    bytes: number,
    conn: number,
    fromRank?: number,
    toRank = -1,
  ): void {
    const client = conn >= 0 ? from : to;
    const gen = Math.abs(conn);
    const knownRank = fromRank ?? -1;
    const decision =
      conn === 0
        ? this.router.route(now, from, to, msgType, bytes, knownRank)
        : this.router.routeOnConnection(now, from, to, msgType, bytes, client, gen, knownRank);
    this.onRoute?.(from, to, seq, now, msgType, bytes, decision);
    this.history.record(sendRecord(now, from, to, msgType, bytes, conn, decision));
    const delivered = decision.corrupt === null ? payload : this.#corrupted(payload, decision.corrupt);
    const rank = decision.at.length > 0 || decision.breakAt !== null ? (fromRank ?? this.ranks.rank(from)) : 0;
    for (let sub = 0; sub < decision.at.length; sub++) {
      this.queue.push(deliveryEvent(decision.at[sub] as Micros, from, rank, seq, sub, to, from, msgType, delivered, conn, toRank));
    }
    if (decision.breakAt !== null)
      this.#noticeBreak(now, from, rank, seq, client, conn > 0 ? to : from, gen, decision.fault, decision.breakAt);
  }

  /**
   * The frame a corruption fault damaged. A message object is encoded first
   * (the frame it stands for): corrupted bytes are only ever bytes, and the
   * receiver decodes and rejects them as in every host. With the codec off
   * (benchmarks) there is no frame and nothing to damage.
   */
  #corrupted(payload: Payload, mode: "truncate" | "garbage"): Payload {
    if (payload instanceof Uint8Array) return corruptFrame(payload, mode);
    return this.spec.useCodec ? corruptFrame(encode(payload), mode) : payload;
  }

  /**
   * A message broke its connection: each end gets a SimDisconnect ("broken")
   * from the other when it notices. The notices are keyed after the message
   * that broke it (sub-indexes 1 and 2), so every host orders them alike.
   */
  #noticeBreak(
    now: Micros,
    origin: ActorId,
    rank: number,
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
    const payload: Payload = this.#wire === "frames" && this.spec.useCodec ? encode(BROKEN_NOTICE) : BROKEN_NOTICE;
    this.queue.push(deliveryEvent(at[0], origin, rank, seq, 1, client, server, "SimDisconnect", payload, -gen));
    this.queue.push(deliveryEvent(at[1], origin, rank, seq, 2, server, client, "SimDisconnect", payload, gen));
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
      // As a break's record has it (see sendRecord: one shape for all).
      at: undefined,
    };
    this.history.record(record);
  }

  observe(actor: ActorId, now: Micros, observation: Observation): void {
    this.history.record({ t: now, ev: "obs", actor, o: observation });
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

  scheduleTimer(timer: ArmedTimer): void {
    this.timers.push(timer);
  }

  cancelTimer(timer: ArmedTimer): void {
    this.timers.remove(timer);
  }
}
