import type { Context, Micros } from "@kcsim/protocol";
import TinyQueue from "tinyqueue";
import { runIn, type VirtualEnvironment, VirtualTimer } from "./virtual-runtime.js";

/** The kernel timer an environment keeps armed for its earliest virtual timer. */
export const JS_TIMER = "js-timers";

/** Virtual time 0 as a wall clock: 2024-01-01T00:00:00Z (Date.now() inside an actor is this plus the virtual time). */
export const VIRTUAL_EPOCH_MS = 1_704_067_200_000;

/** Node's bounds for a timer delay (lib/internal/timers.js): anything outside 1..2^31-1 ms becomes 1 ms. */
const TIMEOUT_MAX = 2 ** 31 - 1;

interface Scheduled {
  readonly seq: number;
  due: Micros;
  readonly kind: "timeout" | "interval" | "immediate";
  readonly callback: (...args: unknown[]) => void;
  readonly args: unknown[];
  readonly delayUs: Micros;
  readonly handle: VirtualTimer;
  cancelled: boolean;
}

const byDue = (a: Scheduled, b: Scheduled) => a.due - b.due || a.seq - b.seq;

/**
 * The virtual environment of one actor incarnation that runs async code:
 * `Date.now()` is the virtual epoch plus ctx.now(), `Math.random()` is the
 * actor's own seeded stream, and timers are kept here, ordered by (due,
 * creation), with one kernel timer (JS_TIMER) armed for the earliest. Each
 * kernel timer event runs one virtual timer callback, so the host drains
 * the microtasks it queues before the next one runs, as Node drains them
 * between two timer callbacks. A crash of the actor loses the kernel timer
 * and this object with it: nothing an old incarnation scheduled ever runs.
 */
export class ActorEnvironment implements VirtualEnvironment {
  readonly #ctx: Context;
  readonly #queue = new TinyQueue<Scheduled>([], byDue);
  readonly #byHandle = new Map<VirtualTimer, Scheduled>();
  #seq = 0;
  #armedFor: Micros | null = null;

  constructor(ctx: Context) {
    this.#ctx = ctx;
  }

  /** Runs `fn` inside this environment (its continuations too). */
  run<T>(fn: () => T): T {
    return runIn(this, fn);
  }

  nowMs(): number {
    return VIRTUAL_EPOCH_MS + Math.floor(this.#ctx.now() / 1000);
  }

  random(): number {
    return this.#ctx.random();
  }

  /** Virtual timers waiting to run. */
  get pending(): number {
    return this.#byHandle.size;
  }

  setTimer(
    kind: "timeout" | "interval" | "immediate",
    callback: (...args: unknown[]) => void,
    delayMs: number,
    args: unknown[],
  ): VirtualTimer {
    if (typeof callback !== "function")
      throw new TypeError(`The "callback" argument must be of type function. Received ${typeof callback}`);
    const ms = kind === "immediate" ? 0 : delayMs >= 1 && delayMs <= TIMEOUT_MAX ? delayMs : 1;
    const delayUs = Math.round(ms * 1000);
    const seq = ++this.#seq;
    const handle: VirtualTimer = new VirtualTimer(this, seq, () => {
      const entry = this.#byHandle.get(handle);
      if (entry === undefined) return;
      entry.cancelled = true;
      this.#schedule({ ...entry, seq: ++this.#seq, due: this.#ctx.now() + entry.delayUs, cancelled: false });
    });
    this.#schedule({ seq, due: this.#ctx.now() + delayUs, kind, callback, args, delayUs, handle, cancelled: false });
    return handle;
  }

  clearTimer(handle: unknown): boolean {
    if (!(handle instanceof VirtualTimer)) return false;
    const entry = this.#byHandle.get(handle);
    if (entry === undefined) return false;
    entry.cancelled = true;
    this.#byHandle.delete(handle);
    return true;
  }

  /** The kernel timer fired: runs the earliest virtual timer that is due, and arms the kernel timer for the next. */
  fire(): void {
    this.#armedFor = null;
    const now = this.#ctx.now();
    const next = this.#next();
    if (next !== undefined && next.due <= now) {
      this.#queue.pop();
      if (next.kind === "interval") this.#schedule({ ...next, seq: ++this.#seq, due: now + next.delayUs });
      else this.#byHandle.delete(next.handle);
      this.run(() => next.callback(...next.args));
    }
    this.#arm();
  }

  #schedule(entry: Scheduled): void {
    this.#queue.push(entry);
    this.#byHandle.set(entry.handle, entry);
    this.#arm();
  }

  #next(): Scheduled | undefined {
    for (let top = this.#queue.peek(); top !== undefined; top = this.#queue.peek()) {
      if (!top.cancelled && this.#byHandle.get(top.handle) === top) return top;
      this.#queue.pop();
    }
    return undefined;
  }

  /** Keeps JS_TIMER armed for the earliest virtual timer (re-arming replaces it). */
  #arm(): void {
    const next = this.#next();
    if (next === undefined) {
      if (this.#armedFor !== null) this.#ctx.cancelTimer(JS_TIMER);
      this.#armedFor = null;
      return;
    }
    if (this.#armedFor === next.due && this.#ctx.hasTimer(JS_TIMER)) return;
    this.#armedFor = next.due;
    this.#ctx.setTimer(JS_TIMER, Math.max(0, next.due - this.#ctx.now()));
  }
}
