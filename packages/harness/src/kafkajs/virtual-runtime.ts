import { AsyncLocalStorage, createHook } from "node:async_hooks";

/**
 * What an actor running third-party async code (KafkaJS) reads from the
 * environment instead of the real one: its own clock, timers and random
 * stream. One per actor incarnation (see ActorEnvironment).
 */
export interface VirtualEnvironment {
  /** Milliseconds since the Unix epoch, virtual. */
  nowMs(): number;
  random(): number;
  setTimer(kind: "timeout" | "interval" | "immediate", callback: (...args: unknown[]) => void, delayMs: number, args: unknown[]): object;
  clearTimer(handle: unknown): boolean;
}

/** The real functions, captured when this module loads (before any shim is installed). */
export const REAL = {
  setTimeout: globalThis.setTimeout,
  clearTimeout: globalThis.clearTimeout,
  setInterval: globalThis.setInterval,
  clearInterval: globalThis.clearInterval,
  setImmediate: globalThis.setImmediate,
  clearImmediate: globalThis.clearImmediate,
  Date: globalThis.Date,
  random: Math.random,
} as const;

const storage = new AsyncLocalStorage<VirtualEnvironment>();

/** Runs `fn` with `env` as the environment of everything it does, its promise continuations included. */
export function runIn<T>(env: VirtualEnvironment, fn: () => T): T {
  return storage.run(env, fn);
}

/** The environment of the code running now, if it is an actor's. */
export function currentEnvironment(): VirtualEnvironment | undefined {
  return storage.getStore();
}

/**
 * `Date` as code inside an actor sees it: `Date.now()` and `new Date()` are
 * the actor's virtual time; everything else is the real Date (same
 * prototype, so `instanceof Date` holds).
 */
function virtualDate(): DateConstructor {
  const Real = REAL.Date;
  function VirtualDate(this: unknown, ...args: unknown[]): unknown {
    const env = storage.getStore();
    if (new.target === undefined) return env === undefined ? Real() : new Real(env.nowMs()).toString();
    const given = args.length === 0 && env !== undefined ? [env.nowMs()] : args;
    return Reflect.construct(Real, given, new.target);
  }
  Object.setPrototypeOf(VirtualDate, Real);
  VirtualDate.prototype = Real.prototype;
  Object.defineProperty(VirtualDate, "now", {
    value: () => storage.getStore()?.nowMs() ?? Real.now(),
    writable: true,
    configurable: true,
  });
  return VirtualDate as unknown as DateConstructor;
}

type TimerKind = "timeout" | "interval" | "immediate";

function setter(
  kind: TimerKind,
  real: (...args: never[]) => unknown,
): (callback: (...args: unknown[]) => void, delay?: number, ...args: unknown[]) => unknown {
  return (callback, delay, ...args) => {
    const env = storage.getStore();
    if (env === undefined) return (real as (...a: unknown[]) => unknown)(callback, delay, ...args);
    return env.setTimer(
      kind,
      callback,
      kind === "immediate" ? 0 : Number(delay ?? 0),
      kind === "immediate" ? (delay === undefined ? args : [delay, ...args]) : args,
    );
  };
}

function clearer(real: (handle: never) => void): (handle: unknown) => void {
  return (handle) => {
    // A virtual timer is cleared by the environment that made it (whatever code clears it); anything else is real.
    if (handle instanceof VirtualTimer) handle.env.clearTimer(handle);
    else (real as (h: unknown) => void)(handle);
  };
}

/**
 * A virtual timer's handle, shaped like Node's Timeout (ref/unref/hasRef/
 * refresh, and a number when coerced), so code that keeps or clears it
 * works unchanged.
 */
export class VirtualTimer {
  readonly env: VirtualEnvironment;
  readonly id: number;
  #refreshed: (() => void) | null;

  constructor(env: VirtualEnvironment, id: number, refresh: () => void) {
    this.env = env;
    this.id = id;
    this.#refreshed = refresh;
  }

  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
  hasRef(): boolean {
    return true;
  }
  refresh(): this {
    this.#refreshed?.();
    return this;
  }
  close(): this {
    this.env.clearTimer(this);
    return this;
  }
  [Symbol.toPrimitive](): number {
    return this.id;
  }
}

let installed = 0;

/**
 * Installs the dispatching globals (setTimeout and friends, Date,
 * Math.random) for as long as some run needs them: code running inside an
 * actor (runIn) gets its virtual environment, all other code (the test
 * runner, the harness itself) the real functions. Counted: the last
 * release restores the originals.
 */
export function acquireVirtualRuntime(): () => void {
  if (installed++ === 0) {
    const g = globalThis as unknown as Record<string, unknown>;
    g.setTimeout = setter("timeout", REAL.setTimeout);
    g.setInterval = setter("interval", REAL.setInterval);
    g.setImmediate = setter("immediate", REAL.setImmediate);
    g.clearTimeout = clearer(REAL.clearTimeout);
    g.clearInterval = clearer(REAL.clearInterval);
    g.clearImmediate = clearer(REAL.clearImmediate);
    g.Date = virtualDate();
    Math.random = () => storage.getStore()?.random() ?? REAL.random();
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--installed > 0) return;
    const g = globalThis as unknown as Record<string, unknown>;
    g.setTimeout = REAL.setTimeout;
    g.setInterval = REAL.setInterval;
    g.setImmediate = REAL.setImmediate;
    g.clearTimeout = REAL.clearTimeout;
    g.clearInterval = REAL.clearInterval;
    g.clearImmediate = REAL.clearImmediate;
    g.Date = REAL.Date;
    Math.random = REAL.random;
  };
}

/**
 * One turn of the real event loop: every promise continuation, nextTick and
 * microtask queued so far has run when it resolves (Node drains them all
 * before the check phase). The inline host awaits it after each event an
 * async actor handles.
 */
export function drainMicrotasks(): Promise<void> {
  return new Promise((resolve) => REAL.setImmediate(resolve));
}

/**
 * Whether code inside an actor's environment queued async work since the
 * last `take()`: a promise created or resolved, a nextTick or queueMicrotask
 * callback (every way a continuation gets queued goes through one of these
 * async hooks). An event that queued none has nothing to drain: the host
 * skips the event-loop turn (KafkaJS re-arms a 1 ms timer per connection
 * that mostly does nothing).
 */
export class AsyncWorkProbe {
  #queued = false;
  // Only work queued by code inside an actor's environment counts (the host's own awaits are outside every environment).
  readonly #hook = createHook({
    init: () => {
      if (storage.getStore() !== undefined) this.#queued = true;
    },
    promiseResolve: () => {
      if (storage.getStore() !== undefined) this.#queued = true;
    },
  });

  enable(): this {
    this.#hook.enable();
    return this;
  }

  disable(): void {
    this.#hook.disable();
  }

  /** Whether work was queued since the last call, and resets. */
  take(): boolean {
    const queued = this.#queued;
    this.#queued = false;
    return queued;
  }
}
