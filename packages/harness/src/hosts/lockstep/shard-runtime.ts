import type { ActorId, Micros } from "@kcsim/protocol";
import type { ActorRegistry } from "../../kernel/actor-registry.js";
import {
  type ArmedTimer,
  controlEvent,
  type DeliveryEvent,
  deliveryEvent,
  type Payload,
  precedes,
  type SimEvent,
} from "../../kernel/event.js";
import { ShardCells, type ShardCellsOptions } from "./shard-cells.js";
import type { CarryReport, DeliveryTuple, EffectGroup, EventTuple, ShardActorInit, ShardSettings } from "./shard-protocol.js";

/** The outcome of one window: each handled event's effects in the order handled, the next armed timer, the carries asked for. */
export interface WindowOutcome {
  readonly groups: EffectGroup[];
  readonly nextDue: Micros | null;
  readonly carries: CarryReport[];
  /** Timer events the shard ran (they never pass through the main thread's queue). */
  readonly timersRun: number;
  /** The virtual time the shard has run through: `limit`, or further when it ran on. */
  readonly reached: Micros;
}

/** A window that only this shard has work in, and how far it may run on past its limit with its own timers (see runWindow). */
export interface RunOn {
  /** No event of any other thread, nor of the main queue, is due at or before this (at or below the limit: no run-on). */
  readonly reach: Micros;
  /** No message arrives sooner than this after it was sent. */
  readonly lookahead: Micros;
}

/** A window's event tuple as the SimEvent a cell handles. */
export function eventOf(tuple: EventTuple): SimEvent {
  if (tuple[0] === 0) {
    const [, due, origin, rank, seq, sub, to, from, msgType, payload, conn, lost] = tuple;
    return deliveryEvent(due, origin, rank, seq, sub, to, from, msgType, payload as Payload, conn, -1, lost === 1);
  }
  const [, due, origin, rank, seq, sub, to, control] = tuple;
  return controlEvent(due, origin, rank, seq, sub, to, control);
}

/** A delivery as the tuple a worker is sent (its payload already a frame: workers take bytes). */
export function deliveryTupleOf(event: DeliveryEvent): DeliveryTuple {
  return [
    0,
    event.due,
    event.origin,
    event.rank,
    event.seq,
    event.sub,
    event.to,
    event.from,
    event.msgType,
    event.payload as Uint8Array,
    event.conn,
    event.lostWithBreak === true ? 1 : 0,
  ];
}

/** A queued event as the tuple a window carries (timers never travel: they live in their shard). */
export function tupleOf(event: SimEvent): EventTuple {
  if (event.kind === "deliver") return deliveryTupleOf(event);
  if (event.kind === "control") return [1, event.due, event.origin, event.rank, event.seq, event.sub, event.to, event.control];
  throw new Error(`timer ${event.name} of ${event.to} cannot leave its shard`);
}

/**
 * The worker half of the lockstep host, free of worker_threads so it is
 * tested in one thread (the main thread also uses one for the stand-ins of
 * actors whose worker was terminated). It owns a shard of cells and their
 * timers, runs a window's events merged with its own timers in key order,
 * and returns each event's effects tagged with the event's key.
 */
export class ShardRuntime extends ShardCells {
  /** The earliest send of the window being run (what bounds how far it may run on). */
  #firstSend: Micros = Number.POSITIVE_INFINITY;

  constructor(settings: ShardSettings, actors: readonly ShardActorInit[], registry: ActorRegistry, options: ShardCellsOptions = {}) {
    super(settings, registry, options);
    for (const actor of actors) this.adopt(actor);
  }

  /** Builds the cell of an actor (fresh, or rebuilt from its carry and durable log). */
  adopt(actor: ShardActorInit): void {
    this.addCell(actor);
  }

  /** Removes an actor's cell (it moves to another thread). Its timers must be gone (a crashed cell has none). */
  release(actor: ActorId): void {
    this.cells.delete(actor);
  }

  /** The earliest armed timer's due time. */
  nextDue(): Micros | null {
    return this.timers.peek()?.due ?? null;
  }

  /**
   * Runs the window: the incoming events (already in key order) merged with this shard's timers due by `limit`.
   * `runOn` says the shard is the only thread with work in this window. It then goes on with its own timers
   * past `limit`, up to `runOn.reach`, for as long as nothing it sent can have arrived anywhere yet (one
   * lookahead after its first send of the window): no other thread has an event before `reach`, so these
   * timers run exactly where the next windows would have run them, minus the round trips. Its groups are
   * then the window's only sequence, so those without effects are left out (there is nothing to merge).
   */
  runWindow(limit: Micros, incoming: readonly SimEvent[], carryOf: readonly ActorId[] = [], runOn: RunOn | null = null): WindowOutcome {
    const groups: EffectGroup[] = [];
    const timers = this.timers;
    let i = 0;
    let timersRun = 0;
    let bound = limit;
    this.#firstSend = Number.POSITIVE_INFINITY;
    for (;;) {
      const timer = timers.peek();
      const next = incoming[i];
      // Past the incoming events, the bound follows the first send (it only ever comes closer).
      if (runOn !== null && next === undefined) bound = Math.max(limit, Math.min(runOn.reach, this.#firstSend + runOn.lookahead - 1));
      const timerDue = timer !== undefined && timer.due <= bound;
      let event: SimEvent;
      if (next !== undefined && (!timerDue || precedes(next, timer))) {
        event = next;
        i++;
      } else if (timerDue) {
        event = timers.pop() as ArmedTimer;
        timersRun++;
      } else {
        break;
      }
      const cell = this.cells.get(event.to);
      if (cell === undefined) continue;
      // The key is read first: a fired timer's entry is the cell's to re-use for the next timer it arms.
      const { due, rank, seq, sub } = event;
      this.now = due;
      cell.handle(event);
      // Every handled event, effects or not: the main thread merges the shards' sequences by their
      // heads, and an event without effects may still have armed a timer that sorts before it.
      // A shard running alone (runOn) has the window's only sequence: nothing to merge.
      if (runOn === null || this.effects.length > 0) {
        groups.push([due, rank, seq, sub, this.effects]);
        this.effects = [];
      }
    }
    const carries: CarryReport[] = [];
    for (const id of carryOf) {
      const cell = this.cells.get(id);
      if (cell !== undefined) carries.push([id, cell.carry(), cell.armedTimers]);
    }
    return { groups, nextDue: this.nextDue(), carries, timersRun, reached: bound };
  }

  override send(
    from: ActorId,
    to: ActorId,
    seq: number,
    now: Micros,
    msgType: string,
    payload: Payload,
    bytes: number,
    conn: number,
  ): void {
    if (now < this.#firstSend) this.#firstSend = now;
    super.send(from, to, seq, now, msgType, payload, bytes, conn);
  }
}
