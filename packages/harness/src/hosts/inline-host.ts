import type { ActorId, ActorLogger, Micros } from "@kcsim/protocol";
import { ASYNC_ACTOR_KINDS } from "../actors/registry.js";
import type { HistoryOptions } from "../history/history.js";
import { AsyncWorkProbe, acquireVirtualRuntime, drainMicrotasks } from "../kafkajs/virtual-runtime.js";
import { ActorCell, type CellSink } from "../kernel/actor-cell.js";
import { type ActorRegistry, factoryFor } from "../kernel/actor-registry.js";
import { MemoryDurableLog } from "../kernel/durable-log.js";
import type { SimEvent } from "../kernel/event.js";
import { type RunResult, withEventArray } from "../kernel/run-result.js";
import { silentLogger } from "../kernel/silent-logger.js";
import { SimulationCore } from "../kernel/simulation-core.js";
import type { SimulationSpec } from "../kernel/simulation-spec.js";
import { HeapGuard } from "../run/heap-guard.js";

export interface InlineHostOptions {
  readonly history?: HistoryOptions;
  readonly loggerFor?: (actor: ActorId) => ActorLogger;
  /** What the cells report to (default: the core itself); a wrapper sees every effect first (the report's re-run does). */
  readonly sink?: (core: SimulationCore) => CellSink;
  /**
   * Nothing the caller does with the run reads a message's size (a run judged without its history by
   * kcsim's own checkers, which read none). Its messages are then sealed but not sized, unless something in
   * the run reads sizes: its history, a bandwidth fault, a wrapping sink.
   */
  readonly unsizedMessages?: boolean;
}

/**
 * Whether anything reads a message's size: the caller (unless it says otherwise), the history (each send's
 * bytes), a bandwidth fault, a wrapping sink. A hunt's passing seed, judged without its history, needs none,
 * and its messages go sealed but unsized (the router's byte counts stay 0); the same seed recorded sizes them.
 */
function sizesRead(spec: SimulationSpec, options: InlineHostOptions): boolean {
  return (
    options.unsizedMessages !== true ||
    options.history?.recorded !== false ||
    options.sink !== undefined ||
    spec.plan.messageFaults.some((f) => f.bandwidth !== undefined)
  );
}

/**
 * The inline host: every actor in this thread, virtual time, one global
 * event queue popped in the total order. The reference every other host
 * is compared against. Messages are handed over as sealed objects
 * (deep-frozen, sized as their frames would be, unless nothing reads the
 * sizes): nothing crosses a thread, so nothing is encoded, except a frame
 * a fault corrupts.
 */
export class InlineHost {
  readonly core: SimulationCore;
  readonly #cells = new Map<ActorId, ActorCell>();
  /** The cells by origin rank: a timer's rank is its cell's, so a timer finds its cell without a lookup by name. */
  readonly #cellsByRank: ActorCell[] = [];
  readonly #logs = new Map<ActorId, MemoryDurableLog>();
  /** Actors that run async client code (ASYNC_ACTOR_KINDS): their events need runAsync. */
  readonly #asyncActors: ReadonlySet<ActorId>;

  constructor(spec: SimulationSpec, registry: ActorRegistry, options: InlineHostOptions = {}) {
    this.core = new SimulationCore(spec, options.history, "objects");
    this.#asyncActors = new Set(spec.actors.filter((a) => ASYNC_ACTOR_KINDS.has(a.kind)).map((a) => a.id));
    const sink = options.sink?.(this.core) ?? this.core;
    const messages = !spec.useCodec ? "raw" : sizesRead(spec, options) ? "sealed" : "unsized";
    for (const actor of spec.actors) {
      if (this.#cells.has(actor.id)) throw new Error(`duplicate actor id '${actor.id}'`);
      const storage = new MemoryDurableLog();
      this.#logs.set(actor.id, storage);
      const cell = new ActorCell(
        {
          id: actor.id,
          kind: actor.kind,
          config: actor.config,
          factory: factoryFor(registry, actor.kind),
          seed: spec.seed,
          rank: this.core.ranks.rank(actor.id),
          rankOf: (other) => this.core.ranks.find(other),
          messages,
          network: spec.plan.network.mode,
          storage,
          restartPolicy: spec.restartPolicy,
          logger: options.loggerFor?.(actor.id) ?? silentLogger,
        },
        sink,
      );
      this.#cells.set(actor.id, cell);
      this.#cellsByRank[this.core.ranks.rank(actor.id)] = cell;
    }
  }

  /** The cell an event is for: by rank when the event carries it (a timer's is its cell's, a delivery's its toRank), else by id. */
  #cellOf(event: SimEvent): ActorCell | undefined {
    if (event.kind === "timer") return this.#cellsByRank[event.rank];
    if (event.kind === "deliver") {
      const toRank = event.toRank ?? -1;
      if (toRank >= 0) return this.#cellsByRank[toRank];
    }
    return this.#cells.get(event.to);
  }

  /** Whether some actor runs async client code, so the run needs runAsync / runUntilAsync. */
  get needsAsync(): boolean {
    return this.#asyncActors.size > 0;
  }

  /** Runs until the queue is empty or the next event is past `until` (default: the spec's duration). */
  runUntil(until: Micros = this.core.spec.durationUs): void {
    if (this.needsAsync)
      throw new Error(`actors ${[...this.#asyncActors].join(", ")} run async client code: run this spec with runAsync()`);
    const core = this.core;
    // The loop never yields, so nothing else could notice the heap filling up before V8 aborts.
    const heap = new HeapGuard(`in the inline run of ${core.spec.scenario}`);
    for (let event = core.popDue(until); event !== undefined; event = core.popDue(until)) {
      heap.tick();
      const cell = this.#cellOf(event);
      if (cell === undefined) core.undeliverable(event);
      else cell.handle(event);
    }
    core.now = Math.max(core.now, until);
  }

  /**
   * runUntil for specs with async actors (and any other): after each event
   * an async actor handled, one turn of the real event loop runs every
   * promise continuation it queued, while virtual time stands still, before
   * the next event is taken. Between events only the actor that handled the
   * last one has code to run (its continuations), so the order is the
   * same every time: see docs/kafkajs-in-virtual-time.md. The dispatching
   * globals (virtual timers, Date, Math.random inside actors) are installed
   * for the duration of the call.
   */
  async runUntilAsync(until: Micros = this.core.spec.durationUs): Promise<void> {
    const release = acquireVirtualRuntime();
    const probe = new AsyncWorkProbe().enable();
    try {
      const core = this.core;
      const asyncActors = this.#asyncActors;
      const heap = new HeapGuard(`in the inline run of ${core.spec.scenario}`);
      for (let event = core.popDue(until); event !== undefined; event = core.popDue(until)) {
        heap.tick();
        const cell = this.#cells.get(event.to);
        if (cell === undefined) core.undeliverable(event);
        else {
          probe.take();
          cell.handle(event);
          // One turn drains the microtask queue to empty, including what it queues meanwhile.
          if (asyncActors.has(event.to) && probe.take()) await drainMicrotasks();
        }
      }
      core.now = Math.max(core.now, until);
    } finally {
      probe.disable();
      release();
    }
  }

  /** Runs the whole spec and seals the history. */
  run(): RunResult {
    const started = performance.now();
    this.runUntil();
    return this.result(performance.now() - started);
  }

  /** run() for any spec, async actors included. */
  async runAsync(): Promise<RunResult> {
    const started = performance.now();
    if (this.needsAsync) await this.runUntilAsync();
    else this.runUntil();
    return this.result(performance.now() - started);
  }

  durableLog(actor: ActorId): MemoryDurableLog | undefined {
    return this.#logs.get(actor);
  }

  cell(actor: ActorId): ActorCell | undefined {
    return this.#cells.get(actor);
  }

  result(wallMs: number): RunResult {
    const core = this.core;
    const actors: Record<ActorId, { state: string; snapshot: ReturnType<ActorCell["snapshot"]> }> = {};
    for (const [id, cell] of this.#cells) actors[id] = { state: cell.state, snapshot: cell.snapshot() };
    return withEventArray({
      host: "inline",
      scenario: core.spec.scenario,
      seed: core.spec.seed,
      historyHash: core.history.finish(),
      log: core.history.log,
      eventsProcessed: core.eventsProcessed,
      virtualEndUs: core.now,
      wallMs,
      router: core.router.stats,
      choices: core.router.fired,
      actors,
    });
  }
}
