import type { ActorId, Micros } from "@kcsim/protocol";
import type { ActorCell } from "../../kernel/actor-cell.js";
import type { ActorRegistry } from "../../kernel/actor-registry.js";
import type { CellCarry } from "../../kernel/cell-carry.js";
import { controlEvent, deliveryEvent, type Payload } from "../../kernel/event.js";
import { ShardCells, type ShardCellsOptions } from "../lockstep/shard-cells.js";
import type { ControlTuple, DeliveryTuple, ShardActorInit, ShardSettings } from "../lockstep/shard-protocol.js";
import type { DeliveryBatch, EffectBatch, RunRecord } from "./realtime-protocol.js";

/** The realtime clock as a shard sees it (a VirtualClock, or a fake one in tests). */
export interface ShardClock {
  now(): Micros;
  realDelayMs(due: Micros): number;
}

/** Real timers (setTimeout in a worker; fakes in tests: fake timers do not reach workers). */
export interface TimerDriver {
  set(delayMs: number, fire: () => void): unknown;
  clear(handle: unknown): void;
  /**
   * Runs `fn` once the current turn of the event loop is over (setImmediate in a worker). When absent,
   * every entry reports at once; with it, everything handled in one turn (all the delivery batches that
   * queued up while a CPU-bound actor was busy) goes out in one EffectBatch.
   */
  defer?(fn: () => void): void;
}

/** A timer closer than this (real ms) counts as due: real timers cannot wait less than about a millisecond. */
const TIMER_SLACK_MS = 0.05;

/**
 * The worker half of the realtime host, free of worker_threads so it is
 * tested in one thread (the main thread also uses one for the stand-ins of
 * actors whose worker is gone). Cells run on the real clock: each event is
 * handled at virtual time t = max(the clock, the event's due time, the
 * previous t), so t never goes backward and never precedes the time a
 * message was due. Timers are one real timer for the earliest armed one.
 * Every handled event is reported (a RunRecord) with the effects it made,
 * in one EffectBatch per entry (a delivery round, a timer tick, a control
 * call), so the main thread can record the run and replay can re-run it.
 */
export class RealtimeShard extends ShardCells {
  readonly #driver: TimerDriver;
  readonly #emit: (batch: EffectBatch) => void;
  #clock: ShardClock | null = null;
  #armed: { due: Micros; handle: unknown } | null = null;
  #runs: RunRecord[] = [];
  readonly #ran = new Set<ActorCell>();
  #batches = 0;
  #last: Micros = 0;
  #stopped = false;
  #reportPending = false;
  /** Deliveries for an actor not built yet: adopt() and deliveries travel on different ports. */
  readonly #early = new Map<ActorId, DeliveryTuple[]>();
  constructor(
    settings: ShardSettings,
    actors: readonly ShardActorInit[],
    registry: ActorRegistry,
    driver: TimerDriver,
    emit: (batch: EffectBatch) => void,
    options: ShardCellsOptions = {},
  ) {
    super(settings, registry, options);
    this.#driver = driver;
    this.#emit = emit;
    for (const actor of actors) this.adopt(actor);
  }

  /** Starts the clock (the run begins). */
  begin(clock: ShardClock): void {
    this.#clock = clock;
    this.#last = clock.now();
    this.#arm();
  }

  adopt(actor: ShardActorInit): void {
    this.addCell(actor);
    const early = this.#early.get(actor.id);
    if (early !== undefined) {
      this.#early.delete(actor.id);
      this.deliver(early);
    }
  }

  /** Takes an actor's cell away (it moves to a worker); returns what outlives it. */
  release(actor: ActorId): CellCarry | undefined {
    const cell = this.cells.get(actor);
    this.cells.delete(actor);
    return cell?.carry();
  }

  /** A delivery round from the router. */
  deliver(batch: DeliveryBatch): void {
    if (this.#stopped) return;
    for (const tuple of batch) {
      const [, due, origin, rank, seq, sub, to, from, msgType, payload, conn, lost] = tuple;
      const cell = this.cells.get(to);
      if (cell === undefined) {
        const early = this.#early.get(to);
        if (early === undefined) this.#early.set(to, [tuple]);
        else early.push(tuple);
        continue;
      }
      const t = this.#tick(due);
      cell.handle(deliveryEvent(t, origin, rank, seq, sub, to, from, msgType, payload as Payload, conn, -1, lost === 1));
      this.#runs.push([to, t, 0, origin, seq, sub]);
      this.#ran.add(cell);
    }
    this.#flush();
  }

  /** A control event (process fault, command, start) applied now. */
  control(event: ControlTuple): void {
    if (this.#stopped) return;
    const [, due, origin, rank, seq, sub, to, control] = event;
    const cell = this.cells.get(to);
    if (cell === undefined) return;
    const t = this.#tick(due);
    cell.handle(controlEvent(t, origin, rank, seq, sub, to, control));
    this.#runs.push([to, t, 1, [1, t, origin, rank, seq, sub, to, control]]);
    this.#ran.add(cell);
    this.#flush();
  }

  /** Stops timers and deliveries and sends what is pending; returns the number of the last batch sent. */
  stop(): number {
    this.#stopped = true;
    this.#report();
    if (this.#armed !== null) this.#driver.clear(this.#armed.handle);
    this.#armed = null;
    return this.#batches;
  }

  /** The virtual time to handle an event due at `due` now: never before it, never before the previous one. */
  #tick(due: Micros): Micros {
    const clock = this.#clock;
    const now = clock === null ? 0 : clock.now();
    const t = Math.max(this.#last, now, due);
    this.#last = t;
    this.now = t;
    return t;
  }

  #fireTimers(): void {
    this.#armed = null;
    const clock = this.#clock;
    if (this.#stopped || clock === null) return;
    for (let timer = this.timers.peek(); timer !== undefined; timer = this.timers.peek()) {
      if (clock.realDelayMs(timer.due) > TIMER_SLACK_MS) break;
      this.timers.pop();
      const cell = this.cells.get(timer.to) as ActorCell;
      const t = this.#tick(timer.due);
      cell.handle({ ...timer, due: t });
      this.#runs.push([timer.to, t, 2, [2, timer.due, timer.origin, timer.seq, timer.sub, timer.to, timer.name]]);
      this.#ran.add(cell);
    }
    this.#flush();
  }

  /** Keeps one real timer armed for the earliest virtual timer. */
  #arm(): void {
    const clock = this.#clock;
    if (this.#stopped || clock === null) return;
    const next = this.timers.peek();
    const armed = this.#armed;
    if (armed !== null && next !== undefined && armed.due === next.due) return;
    if (armed !== null) this.#driver.clear(armed.handle);
    this.#armed = null;
    if (next === undefined) return;
    // Capped at Node's TIMEOUT_MAX: a timer further away fires early, finds nothing due and re-arms.
    const delayMs = Math.min(Math.max(0, clock.realDelayMs(next.due)), 2 ** 31 - 1);
    this.#armed = { due: next.due, handle: this.#driver.set(delayMs, () => this.#fireTimers()) };
  }

  /** Ends an entry: re-arms the timer and reports, now or (with a deferring driver) at the end of the turn. */
  #flush(): void {
    this.#arm();
    const defer = this.#driver.defer;
    if (defer === undefined || this.#stopped) {
      this.#report();
    } else if (!this.#reportPending) {
      this.#reportPending = true;
      defer(() => {
        this.#reportPending = false;
        this.#report();
      });
    }
  }

  #report(): void {
    if (this.effects.length === 0 && this.#runs.length === 0) return;
    const carries: [ActorId, CellCarry][] = [];
    for (const cell of this.#ran) carries.push([cell.id, cell.carry()]);
    this.#ran.clear();
    const batch: EffectBatch = [++this.#batches, this.effects, this.#runs, carries];
    this.effects = [];
    this.#runs = [];
    this.#emit(batch);
  }
}
