import type { ActorId, ControlCommand, Message, Micros } from "@kcsim/protocol";

/**
 * The total order of the simulation. Every event carries a key
 * (due time, origin, origin's own sequence number, sub-index) that is
 * fixed when the event is created and never depends on which thread ran
 * first or on the order events were inserted. A timer's origin is the actor
 * itself; a message's origin is its sender; a duplicate of a message gets
 * sub-index 1, and the notices of a connection broken by a message get
 * sub-indexes 1 (to the client) and 2 (to the server). Harness-made events use origins starting with "!" (which
 * sorts before every actor id made of letters and digits).
 *
 * Origins are compared as strings, but through `rank`: the origin's place
 * among all the run's origins sorted as strings (see OriginRanks), so the
 * order is the string order while a comparison costs one integer compare.
 */
export interface EventKey {
  readonly due: Micros;
  readonly origin: string;
  /** The origin's rank (OriginRanks): rank order is the origins' string order. */
  readonly rank: number;
  readonly seq: number;
  readonly sub: number;
}

export function compareKeys(a: EventKey, b: EventKey): number {
  if (a.due !== b.due) return a.due - b.due;
  if (a.rank !== b.rank) return a.rank - b.rank;
  if (a.seq !== b.seq) return a.seq - b.seq;
  return a.sub - b.sub;
}

/** Whether `a` comes before `b` in the total order (keys are unique, so never both ways). */
export function precedes(a: EventKey, b: EventKey): boolean {
  if (a.due !== b.due) return a.due < b.due;
  if (a.rank !== b.rank) return a.rank < b.rank;
  if (a.seq !== b.seq) return a.seq < b.seq;
  return a.sub < b.sub;
}

/** Bounds of a key's tie-break parts (see tieBreak): what fits 53 bits exactly. */
const MAX_RANK = 2 ** 19;
const MAX_SEQ = 2 ** 32;
const MAX_SUB = 4;

/**
 * A key's (rank, seq, sub) as one number that orders like them: rank, then
 * seq, then sub, packed into the 53 bits a double holds exactly. The heaps
 * keep it next to the due time in typed arrays, so ordering two queued
 * events reads two numbers instead of four fields of two scattered
 * objects. A key outside the bounds would break the order: it throws.
 */
export function tieBreak(key: EventKey): number {
  const { rank, seq, sub } = key;
  const inBounds = rank >= 0 && rank < MAX_RANK && seq >= 0 && seq < MAX_SEQ && sub >= 0 && sub < MAX_SUB;
  if (!inBounds || !Number.isInteger(rank) || !Number.isInteger(seq) || !Number.isInteger(sub))
    throw new RangeError(`event key out of the queue's bounds: rank ${rank}, seq ${seq}, sub ${sub}`);
  return (rank * MAX_SEQ + seq) * MAX_SUB + sub;
}

/**
 * A frame on the wire (worker hosts, corrupted and injected frames) or the
 * message object itself: deep-frozen on the inline host (see sealMessage),
 * as it is (codec off, benchmarks only).
 */
export type Payload = Uint8Array | Message;

export interface DeliveryEvent extends EventKey {
  readonly kind: "deliver";
  readonly to: ActorId;
  readonly from: ActorId;
  readonly msgType: string;
  readonly payload: Payload;
  /**
   * The connection it rides (the envelope, like TCP/IP headers): 0 for none
   * (datagram mode, injected frames), +gen from the client of connection
   * (client, gen) to its server, -gen from the server back to the client.
   */
  readonly conn: number;
  /**
   * The receiver's origin rank when the sender's kernel knew it (the inline
   * host finds the receiving cell by it), -1 or absent when not. Not part of the key.
   */
  readonly toRank?: number;
  /**
   * True when the core hands the delivery out: its connection broke
   * before it arrived (the bytes were in flight past the break, or its
   * sender had closed it and the kernel gave up retransmitting them), so
   * the receiving cell only records it as lost. Decided in the main thread, in
   * the total order; recorded by the cell, so the line lands where every
   * host puts it.
   */
  readonly lostWithBreak?: boolean;
}

export interface TimerEvent extends EventKey {
  readonly kind: "timer";
  readonly to: ActorId;
  readonly name: string;
}

/**
 * A timer while it is armed: the entry its cell keeps under the timer's
 * name and the queue holds, with its place in that queue (`slot`, -1 when
 * not queued), so cancelling or re-arming it takes it out of the queue at
 * once instead of leaving a stale entry to be popped and skipped.
 */
export interface ArmedTimer extends TimerEvent {
  slot: number;
  /**
   * The queue still orders it by an earlier key than its own (re-armed
   * later while queued: see TimerHeap); false when not queued.
   */
  behind: boolean;
  /**
   * Its cell keeps it under its name while disarmed (fired or cancelled), to
   * arm again in place: the name was armed again after an earlier disarming
   * (see ActorCell's timer table). False for every other event.
   */
  kept: boolean;
}

/** What the harness can do to an actor's process (the nemesis) or tell it. */
export type ControlAction =
  | { readonly action: "start" }
  | { readonly action: "crash" }
  | { readonly action: "restart" }
  | { readonly action: "pause" }
  | { readonly action: "resume" }
  | { readonly action: "clock-step"; readonly deltaUs: Micros }
  | { readonly action: "command"; readonly command: ControlCommand };

export interface ControlEvent extends EventKey {
  readonly kind: "control";
  readonly to: ActorId;
  readonly control: ControlAction;
}

export type SimEvent = DeliveryEvent | TimerEvent | ControlEvent;

/**
 * What every queued event is, whatever its kind: one class, so every event
 * has the same fields in the same order. The kernel's hot functions (the
 * heaps, popDue, a cell's handle) then meet one object shape. With a shape
 * per kind, and more for the rarer deliveries (a break's notices, a
 * delivery lost with its connection, each built by spreading another), V8
 * threw their optimized code away each time a run first met one of the
 * rarer shapes, which in a hunt happens seeds after the start (wrong-map
 * deoptimizations of popDue, tieBreak and the host's loop, then compiled
 * again). The fields of the other kinds hold neutral values.
 */
class QueuedEvent {
  constructor(
    readonly kind: SimEvent["kind"],
    readonly due: Micros,
    readonly origin: string,
    readonly rank: number,
    readonly seq: number,
    readonly sub: number,
    readonly to: ActorId,
    readonly from: ActorId,
    readonly msgType: string,
    readonly payload: Payload | null,
    readonly conn: number,
    readonly toRank: number,
    readonly lostWithBreak: boolean,
    readonly name: string,
    readonly control: ControlAction | null,
    public slot: number,
    public behind: boolean,
    public kept = false,
  ) {}
}

/** A delivery (see DeliveryEvent); toRank -1: the receiver's rank is not known. */
export function deliveryEvent(
  due: Micros,
  origin: string,
  rank: number,
  seq: number,
  sub: number,
  to: ActorId,
  from: ActorId,
  msgType: string,
  payload: Payload,
  conn: number,
  toRank = -1,
  lostWithBreak = false,
): DeliveryEvent {
  return new QueuedEvent(
    "deliver",
    due,
    origin,
    rank,
    seq,
    sub,
    to,
    from,
    msgType,
    payload,
    conn,
    toRank,
    lostWithBreak,
    "",
    null,
    -1,
    false,
  ) as DeliveryEvent;
}

/** The same delivery, lost with its connection (see DeliveryEvent.lostWithBreak). */
export function lostWithBreak(event: DeliveryEvent): DeliveryEvent {
  const { due, origin, rank, seq, sub, to, from, msgType, payload, conn } = event;
  return deliveryEvent(due, origin, rank, seq, sub, to, from, msgType, payload, conn, event.toRank ?? -1, true);
}

/** A timer of `to`'s, not queued (slot -1). */
export function armedTimer(due: Micros, origin: string, rank: number, seq: number, to: ActorId, name: string): ArmedTimer {
  return new QueuedEvent("timer", due, origin, rank, seq, 0, to, "", "", null, 0, -1, false, name, null, -1, false) as ArmedTimer;
}

/** A control event (see ControlEvent). */
export function controlEvent(
  due: Micros,
  origin: string,
  rank: number,
  seq: number,
  sub: number,
  to: ActorId,
  control: ControlAction,
): ControlEvent {
  return new QueuedEvent("control", due, origin, rank, seq, sub, to, "", "", null, 0, -1, false, "", control, -1, false) as ControlEvent;
}

/** Origins of harness-made events. */
export const START_ORIGIN = "!start";
export const NEMESIS_ORIGIN = "!nemesis";
export const INJECT_ORIGIN = "!inject";
/** Events a worker host makes itself (a restart after a worker died). */
export const HOST_ORIGIN = "!host";
/** Every harness origin (OriginRanks ranks them with the actors). */
export const HARNESS_ORIGINS: readonly string[] = [START_ORIGIN, NEMESIS_ORIGIN, INJECT_ORIGIN, HOST_ORIGIN];
