import { setImmediate as nextTurn } from "node:timers/promises";
import type { ActorId, Micros } from "@kcsim/protocol";
import { DEFAULT_REGISTRY } from "../../actors/registry.js";
import type { HistoryOptions } from "../../history/history.js";
import type { ActorRegistry } from "../../kernel/actor-registry.js";
import { entryPoint } from "../../kernel/built-module.js";
import type { CellCarry } from "../../kernel/cell-carry.js";
import { HOST_ORIGIN, type SimEvent } from "../../kernel/event.js";
import { type RunResult, withEventArray } from "../../kernel/run-result.js";
import { SimulationCore } from "../../kernel/simulation-core.js";
import type { SimulationSpec } from "../../kernel/simulation-spec.js";
import { type LogSpec, SILENT_LOGS } from "../worker/actor-logs.js";
import { ActorMirror } from "../worker/actor-mirror.js";
import { applyEffect } from "../worker/apply-effect.js";
import { boundedAll } from "../worker/bounded-all.js";
import { loadRegistry } from "../worker/load-registry.js";
import { shardActorInit } from "../worker/shard-actor-init.js";
import { type ActorsPerWorker, planShards } from "../worker/shard-plan.js";
import { describeExit, type WorkerExit, WorkerHandle } from "../worker/worker-handle.js";
import { mergeByHeads } from "./effect-merge.js";
import {
  type ActorReport,
  type EffectGroup,
  type EventTuple,
  type LockstepShardControl,
  type LockstepTransport,
  type ShardActorInit,
  shardSettingsOf,
  type WindowReply,
} from "./shard-protocol.js";
import { ShardRuntime, tupleOf } from "./shard-runtime.js";
import { createChannelBuffer, WindowChannelMain } from "./shared-window-channel.js";
import { decodeReply, encodeWindow } from "./window-codec.js";

export interface LockstepHostOptions {
  readonly history?: HistoryOptions;
  /** Actors per worker thread (default 1: each actor isolated in its own worker), or "auto" (LOCKSTEP_MAIN_THREAD_CORES). */
  readonly actorsPerWorker?: ActorsPerWorker;
  readonly transport?: LockstepTransport;
  readonly logs?: LogSpec;
  /** A built module exporting the actor `registry` (tests, benchmarks); default: the default registry. */
  readonly registryModule?: string | null;
  /** Whether ctx.burnCpu burns real CPU in the workers (default true). */
  readonly burnCpu?: boolean;
  /** A shard that takes longer than this over one window is killed as hung (an actor in an endless loop). Default 60 s. */
  readonly windowTimeoutMs?: number;
  /** Each worker's heap cap in MB (default 1024): an actor that exceeds it kills only its worker. */
  readonly workerHeapMb?: number;
}

/** A worker that has not loaded its modules and built its actors by then is not coming. */
const START_TIMEOUT_MS = 120_000;
/** A window no shard should take longer than: past it, the shard's worker counts as hung and is killed. */
const WINDOW_TIMEOUT_MS = 60_000;
/**
 * "auto" leaves a core to the main thread: it routes, records and hands out every window, on the critical
 * path between the shards' turns, and a lockstep window rarely keeps more than one shard busy (1.13 on
 * average in the 100-member group bench with two). On 2 cores, one worker ran that bench in 2954 windows,
 * one round trip each, where two took 3622 windows and 4268 round trips (a shard alone in its window runs
 * on; bench "lockstep"), and the second isolate compiles the same code again on the same two cores.
 */
export const LOCKSTEP_MAIN_THREAD_CORES = 1;
/** How long the main thread blocks on a shard before it lets the event loop look for dead workers. */
const LIVENESS_POLL_MS = 50;

/** One worker thread hosting a shard of actors. */
class Shard {
  readonly handle: WorkerHandle<LockstepShardControl>;
  readonly actors: readonly ActorId[];
  nextDue: Micros | null = null;
  /** This window's events for the shard, in key order, and the actors whose carry the host wants back. */
  readonly batch: EventTuple[] = [];
  readonly carryOf: ActorId[] = [];
  channel: WindowChannelMain | null = null;
  serving: Promise<void> | null = null;
  #reply: { resolve: (bytes: Uint8Array | null) => void } | null = null;

  constructor(handle: WorkerHandle<LockstepShardControl>, actors: readonly ActorId[]) {
    this.handle = handle;
    this.actors = actors;
  }

  get solo(): boolean {
    return this.actors.length === 1;
  }

  /** Port transport: the next reply on the data port, or null if the worker exits first. */
  listen(): void {
    this.handle.data.on("message", (bytes: Uint8Array) => {
      const pending = this.#reply;
      this.#reply = null;
      pending?.resolve(bytes);
    });
    void this.handle.exited.then(() => {
      const pending = this.#reply;
      this.#reply = null;
      pending?.resolve(null);
    });
  }

  /** Port transport: whether the shard answered the current window. */
  get answered(): boolean {
    return this.#reply === null;
  }

  requestOverPort(bytes: Uint8Array<ArrayBuffer>): Promise<Uint8Array | null> {
    return new Promise((resolve) => {
      if (!this.handle.alive) {
        resolve(null);
        return;
      }
      this.#reply = { resolve };
      this.handle.data.postMessage(bytes, [bytes.buffer]);
    });
  }
}

/**
 * The lockstep host: each actor (or shard of actors) in its own worker
 * thread, the main thread owning virtual time, the router and the history.
 *
 * Virtual time advances in windows. A window starts at the earliest pending
 * event (the main queue's head or a shard's earliest timer) and spans one
 * lookahead: no message sent inside it can arrive inside it, so every shard
 * with work runs its part of the window at the same time, in parallel. The
 * shards' effects come back tagged with the keys of the events that made
 * them and are applied here in the total order, so the router draws its
 * random numbers and the history gets its lines exactly as in the inline
 * host: the histories are byte-identical for the same spec and seed.
 *
 * Process faults are real: a nemesis crash of an actor that has a worker of
 * its own terminates that worker after the window (the actor keeps a
 * stand-in cell in the main thread, which records what reaches it while it
 * is down), and its restart starts a new worker rebuilt from the durable log
 * the main thread mirrors. A worker that dies on its own is reported in the
 * history and the run goes on without it (the restart policy applies).
 */
export class LockstepHost {
  readonly core: SimulationCore;
  readonly #options: LockstepHostOptions;
  readonly #lookahead: Micros;
  readonly #shards: Shard[] = [];
  readonly #shardOf = new Map<ActorId, Shard>();
  readonly #mirrors = new Map<ActorId, ActorMirror>();
  readonly #exits: Promise<WorkerExit>[] = [];
  readonly #shardOfHandle = new Map<WorkerHandle<LockstepShardControl>, Shard>();
  readonly #handles = new Set<WorkerHandle<LockstepShardControl>>();
  /** Shards whose worker died on its own, waiting to be buried by the loop. */
  readonly #died: { shard: Shard; exit: WorkerExit }[] = [];
  #standIns: ShardRuntime | null = null;
  /** A started worker without actors, ready for the next restart (crash faults make restarts likely). */
  #spare: Promise<WorkerHandle<LockstepShardControl>> | null = null;
  #workers = 0;
  #hostEvents = 0;
  #timersRun = 0;
  #windows = 0;

  constructor(spec: SimulationSpec, options: LockstepHostOptions = {}) {
    this.core = new SimulationCore(spec, options.history);
    this.#options = options;
    this.#lookahead = this.core.router.safeLookaheadUs;
    for (const actor of spec.actors) {
      if (this.#mirrors.has(actor.id)) throw new Error(`duplicate actor id '${actor.id}'`);
      this.#mirrors.set(actor.id, new ActorMirror(actor.id));
    }
  }

  /** Windows run so far (benchmarks). */
  get windows(): number {
    return this.#windows;
  }

  /** Worker threads hosting actors now (benchmarks: what "auto" chose). */
  get workerCount(): number {
    return this.#shards.length;
  }

  /** The worker currently hosting an actor (tests kill it from outside), or undefined while it is down. */
  workerOf(actor: ActorId): WorkerHandle<LockstepShardControl> | undefined {
    return this.#shardOf.get(actor)?.handle;
  }

  /** Runs the whole spec (or what is left of it, after start() and runUntil()), seals the history and closes. */
  async run(): Promise<RunResult> {
    const started = performance.now();
    try {
      await this.start();
      await this.runUntil(this.core.spec.durationUs);
      const actors = await this.snapshot();
      return this.#result(performance.now() - started, actors);
    } finally {
      await this.close();
    }
  }

  /** Starts every worker and builds the actors' cells (run() does this; a second call does nothing). */
  async start(): Promise<void> {
    if (this.#standIns !== null) return;
    const spec = this.core.spec;
    const registry = await this.#registry();
    this.#standIns = new ShardRuntime(shardSettingsOf(spec), [], registry);
    const groups = planShards(
      spec.actors.map((a) => a.id),
      this.#options.actorsPerWorker ?? 1,
      LOCKSTEP_MAIN_THREAD_CORES,
    );
    await boundedAll(groups, (ids) => this.#spawn(ids.map((id) => this.#init(id))));
    if (spec.nemesis.some((step) => step.control.action === "crash")) this.#keepSpare();
  }

  /** Runs windows until the next event is past `until`. */
  async runUntil(until: Micros): Promise<void> {
    try {
      await this.#runWindows(until);
    } finally {
      this.core.history.release();
    }
  }

  async #runWindows(until: Micros): Promise<void> {
    const core = this.core;
    const lookahead = this.#lookahead;
    const standIns = this.#standIns;
    if (standIns === null) throw new Error("lockstep host: start() first");
    const busy: Shard[] = [];
    for (;;) {
      if (this.#died.length > 0) this.#buryDead();
      let start = core.nextDue() ?? Number.POSITIVE_INFINITY;
      for (const shard of this.#shards) if (shard.nextDue !== null && shard.nextDue < start) start = shard.nextDue;
      if (start > until) break;
      // Nothing sent inside [start, start + lookahead) can arrive inside it: the window runs in parallel.
      const limit = Math.min(start + lookahead - 1, until);
      this.#windows++;
      const local: EffectGroup[] = [];
      for (let event = core.popDue(limit); event !== undefined; event = core.popDue(limit)) {
        let shard = this.#shardOf.get(event.to);
        if (shard === undefined && standIns.cell(event.to) !== undefined && this.#needsWorker(standIns, event)) {
          shard = await this.#respawn(standIns, event.to);
        }
        if (shard !== undefined) {
          shard.batch.push(tupleOf(event));
          if (shard.solo && event.kind === "control" && event.control.action === "crash") shard.carryOf.push(event.to);
        } else {
          // A stand-in (its worker was terminated), or no such actor: handled here at once, in key order.
          this.#runLocal(standIns, event, local);
        }
      }
      busy.length = 0;
      for (const shard of this.#shards) if (shard.batch.length > 0 || (shard.nextDue !== null && shard.nextDue <= limit)) busy.push(shard);
      // A shard alone in its window gets a reach (and runs on past the limit when the reach is beyond it).
      const reach = busy.length === 1 && local.length === 0 ? this.#reachOf(busy[0] as Shard, until) : null;
      const replies = await this.#exchange(busy, limit, reach);
      // The window's history lines are encoded once the next window is out (#exchange releases them).
      core.history.hold();
      const sequences: (readonly EffectGroup[])[] = [local];
      let reached = limit;
      for (const reply of replies) {
        if (reply === null) continue;
        sequences.push(reply[0]);
        this.#timersRun += reply[3];
        if (reply[4] > reached) reached = reply[4];
      }
      for (const group of mergeByHeads(sequences)) for (const effect of group[4]) applyEffect(core, this.#mirrors, effect);
      for (let i = 0; i < busy.length; i++) {
        const shard = busy[i] as Shard;
        const reply = replies[i];
        if (reply === null || reply === undefined) continue;
        shard.nextDue = reply[1];
        for (const [id, carry, armed] of reply[2]) {
          const mirror = this.#mirrors.get(id);
          if (mirror !== undefined) mirror.carry = carry;
          // The nemesis crashed an actor that has a worker of its own: the process goes away for real.
          if (carry.state === "crashed" && armed === 0) this.#retire(shard, standIns);
        }
      }
      core.now = reached;
    }
    core.now = Math.max(core.now, until);
  }

  /** Each actor's process state and snapshot (the workers return to their event loop for it). */
  async snapshot(): Promise<Record<ActorId, ActorReport>> {
    const out: Record<ActorId, ActorReport> = {};
    await Promise.all(
      this.#shards.map(async (shard) => {
        await this.#stopServing(shard);
        try {
          Object.assign(out, await shard.handle.call((control) => control.snapshot()));
        } catch {
          for (const id of shard.actors) out[id] = { state: "dead", snapshot: null };
        }
      }),
    );
    if (this.#standIns !== null) Object.assign(out, this.#standIns.snapshot());
    const ordered: Record<ActorId, ActorReport> = {};
    for (const actor of this.core.spec.actors) ordered[actor.id] = out[actor.id] ?? { state: "dead", snapshot: null };
    return ordered;
  }

  /** Flushes every worker's logs and terminates every worker. */
  async close(): Promise<void> {
    const spare = this.#spare;
    this.#spare = null;
    void spare?.catch(() => {});
    await Promise.all(
      this.#shards.map(async (shard) => {
        await this.#stopServing(shard);
        await shard.handle.call((control) => control.flushLogs(), 2_000).catch(() => {});
        await shard.handle.terminate();
      }),
    );
    this.#shards.length = 0;
    // Every worker ever started, whatever it was doing (a spare still booting).
    await Promise.all([...this.#handles].map((handle) => handle.terminate()));
    await Promise.all(this.#exits);
  }

  async #registry(): Promise<ActorRegistry> {
    const module = this.#options.registryModule ?? null;
    return module === null ? DEFAULT_REGISTRY : loadRegistry(module);
  }

  #init(id: ActorId, carry?: CellCarry): ShardActorInit {
    return shardActorInit(this.core, this.#mirrors, id, carry);
  }

  /** A new worker thread; its exit is watched from the start (a shard registers itself in #shardOfHandle). */
  #spawnWorker(): WorkerHandle<LockstepShardControl> {
    const onExit = (dead: WorkerHandle<LockstepShardControl>, exit: WorkerExit) => {
      const shard = this.#shardOfHandle.get(dead);
      if (!exit.expected && shard !== undefined) this.#died.push({ shard, exit });
    };
    const handle = new WorkerHandle<LockstepShardControl>(
      entryPoint("lockstep-worker"),
      `lockstep-${this.#workers++}`,
      {},
      onExit,
      this.#options.workerHeapMb,
    );
    this.#handles.add(handle);
    this.#exits.push(handle.exited);
    return handle;
  }

  #keepSpare(): void {
    if (this.#spare !== null) return;
    const handle = this.#spawnWorker();
    this.#spare = handle.call((control) => control.ping(), START_TIMEOUT_MS).then(() => handle);
    this.#spare.catch(() => {});
  }

  async #spawn(actors: readonly ShardActorInit[]): Promise<Shard> {
    const spec = this.core.spec;
    const logs = this.#options.logs ?? SILENT_LOGS;
    let handle: WorkerHandle<LockstepShardControl>;
    const spare = this.#spare;
    if (spare !== null) {
      this.#spare = null;
      handle = await spare.catch(() => this.#spawnWorker());
      this.#keepSpare();
    } else {
      handle = this.#spawnWorker();
    }
    const shard = new Shard(
      handle,
      actors.map((a) => a.id),
    );
    this.#shardOfHandle.set(handle, shard);
    this.#shards.push(shard);
    for (const actor of actors) this.#shardOf.set(actor.id, shard);
    shard.nextDue = await handle.call(
      (control) =>
        control.init({
          ...shardSettingsOf(spec),
          actors,
          registryModule: this.#options.registryModule ?? null,
          logLevel: logs.level,
          logDir: logs.dir,
          burnCpu: this.#options.burnCpu ?? true,
        }),
      START_TIMEOUT_MS,
    );
    if ((this.#options.transport ?? "shared") === "shared") {
      const buffer = createChannelBuffer();
      shard.channel = new WindowChannelMain(buffer, handle.data);
      // The call returns only when the serve loop is stopped; a dead worker rejects it.
      shard.serving = handle.call((control) => control.serve(buffer), 2 ** 31 - 1).catch(() => {});
    } else {
      shard.listen();
      await handle.call((control) => control.listen());
    }
    return shard;
  }

  /**
   * How far the one busy shard of a window may run on with its own timers: up to (not including) the next
   * event anyone else has (the main queue, another shard's timer), and no further than `until`. A window
   * that asks for a carry (a crash) stops at its limit.
   */
  #reachOf(shard: Shard, until: Micros): Micros {
    if (shard.carryOf.length > 0) return 0;
    let next = this.core.nextDue() ?? Number.POSITIVE_INFINITY;
    for (const other of this.#shards) if (other !== shard && other.nextDue !== null && other.nextDue < next) next = other.nextDue;
    return Math.min(next - 1, until);
  }

  /** Hands each busy shard its window and collects the replies (null for a shard that died meanwhile). */
  async #exchange(busy: readonly Shard[], limit: Micros, reach: Micros | null): Promise<(WindowReply | null)[]> {
    const requests = busy.map((shard) => {
      const bytes = encodeWindow(
        reach !== null ? [limit, shard.batch, shard.carryOf, reach, this.#lookahead] : [limit, shard.batch, shard.carryOf],
      );
      shard.batch.length = 0;
      shard.carryOf.length = 0;
      return bytes;
    });
    if ((this.#options.transport ?? "shared") === "port") {
      const watchdog = setTimeout(() => {
        for (const shard of busy) if (!shard.answered) this.#killHung(shard);
      }, this.#options.windowTimeoutMs ?? WINDOW_TIMEOUT_MS);
      try {
        const pending = busy.map((shard, i) => shard.requestOverPort(requests[i] as Uint8Array<ArrayBuffer>));
        this.core.history.release(); // the previous window's lines, while the shards run this one
        const replies = await Promise.all(pending);
        return replies.map((bytes) => (bytes === null ? null : decodeReply(bytes)));
      } finally {
        clearTimeout(watchdog);
      }
    }
    for (let i = 0; i < busy.length; i++) busy[i]?.channel?.post(requests[i] as Uint8Array);
    this.core.history.release(); // the previous window's lines, while the shards run this one
    const replies: (WindowReply | null)[] = [];
    const deadline = performance.now() + (this.#options.windowTimeoutMs ?? WINDOW_TIMEOUT_MS);
    for (const shard of busy) {
      const channel = shard.channel as WindowChannelMain;
      let alive = true;
      while (!channel.wait(LIVENESS_POLL_MS)) {
        if (performance.now() > deadline) this.#killHung(shard);
        await nextTurn(); // lets the worker's exit event (if any) arrive
        if (!shard.handle.alive) {
          alive = false;
          break;
        }
      }
      replies.push(alive ? decodeReply(channel.read()) : null);
    }
    return replies;
  }

  #killHung(shard: Shard): void {
    const seconds = Math.round((this.#options.windowTimeoutMs ?? WINDOW_TIMEOUT_MS) / 1000);
    shard.handle.kill(`worker stopped answering (no reply to a window within ${seconds} s)`);
  }

  /**
   * An event of an actor without a worker (a stand-in, or no such actor), run in this thread right
   * away: stand-ins have no timers, so running it now is running it in key order.
   */
  #runLocal(standIns: ShardRuntime, event: SimEvent, groups: EffectGroup[]): void {
    if (standIns.cell(event.to) !== undefined) {
      const outcome = standIns.runWindow(event.due, [event]);
      for (const group of outcome.groups) groups.push(group);
      this.#timersRun += outcome.timersRun;
    } else if (event.kind === "deliver") {
      groups.push([
        event.due,
        event.rank,
        event.seq,
        event.sub,
        [["lost", event.to, event.due, event.from, event.msgType, "no such actor"]],
      ]);
    }
  }

  /** Whether an event for a down actor must boot it (in a new worker) rather than reach its stand-in. */
  #needsWorker(standIns: ShardRuntime, event: SimEvent): boolean {
    if (event.kind !== "control") return false;
    const state = standIns.cell(event.to)?.state;
    return (event.control.action === "start" && state === "unstarted") || (event.control.action === "restart" && state !== "unstarted");
  }

  /** Moves a down actor from its stand-in into a new worker of its own. */
  async #respawn(standIns: ShardRuntime, id: ActorId): Promise<Shard> {
    const carry = standIns.cell(id)?.carry();
    standIns.release(id);
    // The crash's exact carry is spent; if this worker dies later, the mirror's own estimate is fresher.
    const mirror = this.#mirrors.get(id);
    if (mirror !== undefined) mirror.carry = null;
    return this.#spawn([this.#init(id, carry)]);
  }

  /** Terminates a solo shard whose actor the nemesis crashed; the actor lives on as a stand-in. */
  #retire(shard: Shard, standIns: ShardRuntime): void {
    const id = shard.actors[0] as ActorId;
    const carry = this.#mirrors.get(id)?.carry;
    if (carry === null || carry === undefined) return;
    this.#forget(shard);
    standIns.adopt(this.#init(id, carry));
    void shard.handle.terminate();
    this.#keepSpare(); // the restart will want a worker
  }

  #forget(shard: Shard): void {
    const index = this.#shards.indexOf(shard);
    if (index >= 0) this.#shards.splice(index, 1);
    for (const id of shard.actors) if (this.#shardOf.get(id) === shard) this.#shardOf.delete(id);
  }

  /** Workers that died on their own: report it, keep their actors as stand-ins, apply the restart policy. */
  #buryDead(): void {
    const standIns = this.#standIns as ShardRuntime;
    const core = this.core;
    for (const { shard, exit } of this.#died.splice(0)) {
      if (!this.#shards.includes(shard)) continue;
      this.#forget(shard);
      const why = describeExit(exit);
      for (const id of shard.actors) {
        const mirror = this.#mirrors.get(id) as ActorMirror;
        const carry = mirror.carryAfterDeath(core.spec.seed);
        const wasUp = carry.state === "running";
        standIns.adopt(this.#init(id, carry));
        if (!wasUp) continue;
        core.lifecycle(id, core.now, "crash", why);
        mirror.lifecycle("crash", why);
        const policy = core.spec.restartPolicy;
        if (policy.mode === "restart")
          core.queue.push(core.controlEvent(core.now + policy.delayUs, HOST_ORIGIN, this.#hostEvents++, id, { action: "restart" }));
      }
      process.emitWarning(`kcsim lockstep: ${shard.handle.name} (${shard.actors.join(", ")}): ${why}; the run goes on without it`);
      if (core.spec.restartPolicy.mode === "restart") this.#keepSpare();
    }
  }

  async #stopServing(shard: Shard): Promise<void> {
    if (shard.channel === null || shard.serving === null) return;
    shard.channel.stop();
    await shard.serving;
    shard.serving = null;
  }

  #result(wallMs: number, actors: Record<ActorId, ActorReport>): RunResult {
    const core = this.core;
    return withEventArray({
      host: "lockstep",
      scenario: core.spec.scenario,
      seed: core.spec.seed,
      historyHash: core.history.finish(),
      log: core.history.log,
      eventsProcessed: core.eventsProcessed + this.#timersRun,
      virtualEndUs: core.now,
      wallMs,
      router: core.router.stats,
      choices: core.router.fired,
      actors,
    });
  }
}
