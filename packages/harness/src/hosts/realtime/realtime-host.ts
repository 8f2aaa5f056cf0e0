import { type ActorId, decodeUnchecked, type JsonValue, type Micros } from "@kcsim/protocol";
import { DEFAULT_REGISTRY } from "../../actors/registry.js";
import { History, type HistoryOptions } from "../../history/history.js";
import type { HistoryEvent } from "../../history/history-event.js";
import type { ActorRegistry } from "../../kernel/actor-registry.js";
import { entryPoint } from "../../kernel/built-module.js";
import type { CellCarry } from "../../kernel/cell-carry.js";
import { type ControlAction, HOST_ORIGIN, type Payload, type SimEvent } from "../../kernel/event.js";
import { type RunResult, withEventArray } from "../../kernel/run-result.js";
import { SimulationCore } from "../../kernel/simulation-core.js";
import type { ActorSpec, SimulationSpec } from "../../kernel/simulation-spec.js";
import {
  type ActorReport,
  type ControlTuple,
  type DeliveryTuple,
  type ShardActorInit,
  shardSettingsOf,
} from "../lockstep/shard-protocol.js";
import { deliveryTupleOf } from "../lockstep/shard-runtime.js";
import { type LogSpec, SILENT_LOGS } from "../worker/actor-logs.js";
import { ActorMirror } from "../worker/actor-mirror.js";
import { applyEffect } from "../worker/apply-effect.js";
import { boundedAll } from "../worker/bounded-all.js";
import { loadRegistry } from "../worker/load-registry.js";
import { ownedBytes } from "../worker/owned-bytes.js";
import { shardActorInit } from "../worker/shard-actor-init.js";
import { type ActorsPerWorker, planShards } from "../worker/shard-plan.js";
import { describeExit, type WorkerExit, WorkerHandle } from "../worker/worker-handle.js";
import type { EffectBatch, RealtimeShardControl, RunRecord } from "./realtime-protocol.js";
import { RealtimeShard } from "./realtime-shard.js";
import { frameToText, type Recording, type RecordingEntry, RecordingWriter, type RunEvent } from "./recording.js";
import { VirtualClock, wallMs } from "./virtual-clock.js";

export interface RealtimeHostOptions {
  readonly history?: HistoryOptions;
  /** Real seconds per virtual second (0.01: a 45 s session timeout takes 450 ms). Default 1. */
  readonly timeScale?: number;
  readonly actorsPerWorker?: ActorsPerWorker;
  readonly logs?: LogSpec;
  /** A built module exporting the actor `registry` (tests, benchmarks); default: the default registry. */
  readonly registryModule?: string | null;
  /**
   * Started spare workers kept ready, so a restart does not wait for a worker to boot (~0.1-0.5 s here,
   * which is 10-50 s of virtual time at time scale 0.01). Default: one per crash the nemesis schedules
   * (at least 1, at most 4).
   */
  readonly spareWorkers?: number;
  /** Each worker's heap cap in MB (default 1024): an actor that exceeds it kills only its worker. */
  readonly workerHeapMb?: number;
  /** Stream the recording to this file as the run goes (kept whole if the run is interrupted); absent = kept in memory. */
  readonly recordingFile?: string | null;
  /** Aborting it ends the run at once, cleanly: judged up to then, the recording sealed as interrupted (SIGINT, SIGTERM). */
  readonly signal?: AbortSignal;
  /**
   * Kinds whose actors live in this thread, built by these factories (closures may hold what a worker
   * cannot: kcsim serve's client actors hold the real sockets). Spec actors of these kinds and the ones
   * `addActor` adds never move to a worker; a replay rebuilds them from the recording's registry.
   */
  readonly mainThreadKinds?: ActorRegistry;
}

export interface RealtimeRunResult extends RunResult {
  readonly recording: Recording;
  /** Worker threads started (restarts included) and their start times (spawn to online, ms). */
  readonly workers: { readonly started: number; readonly startMs: readonly number[] };
}

/** Deliveries due this close (real ms) are released now: a real timer cannot wait less than about 1 ms. */
const RELEASE_AHEAD_MS = 1;
/** A worker that has not loaded its modules by then is not coming. */
const START_TIMEOUT_MS = 120_000;
/** Virtual time 0 lies this far (real ms) after the workers are told the epoch, so they all start on time. */
const EPOCH_LEAD_MS = 20;
/** The longest a real timer can wait (Node's TIMEOUT_MAX). */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** How long the end of a run waits for a worker's last effects. */
const DRAIN_TIMEOUT_MS = 5_000;

class RealtimeShardHandle {
  readonly handle: WorkerHandle<RealtimeShardControl>;
  readonly actors: readonly ActorId[];
  readonly batch: DeliveryTuple[] = [];
  received = 0;
  /** Crashed by the nemesis or dead: whatever it still reports is dropped, as if it never left the process. */
  gone = false;
  #drained: { last: number; resolve: () => void } | null = null;

  constructor(handle: WorkerHandle<RealtimeShardControl>, actors: readonly ActorId[]) {
    this.handle = handle;
    this.actors = actors;
  }

  get solo(): boolean {
    return this.actors.length === 1;
  }

  /** Resolves once batch `last` has arrived (or the worker is gone, or the wait times out). */
  drained(last: number): Promise<void> {
    if (this.received >= last || !this.handle.alive) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, DRAIN_TIMEOUT_MS);
      this.#drained = {
        last,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      void this.handle.exited.then(() => this.#drained?.resolve());
    });
  }

  batchArrived(n: number): void {
    this.received = n;
    if (this.#drained !== null && n >= this.#drained.last) {
      this.#drained.resolve();
      this.#drained = null;
    }
  }
}

const deliveryKey = (to: ActorId, origin: string, seq: number, sub: number) => `${to}\u0000${origin}\u0000${seq}\u0000${sub}`;

/**
 * The realtime host: actors run in worker threads on the real clock,
 * optionally scaled (virtual microseconds = real elapsed / timeScale), with
 * real timers in the workers. The router, the same fault plan and the
 * nemesis live in the main thread: a routed message waits on a real timer
 * until its delivery time, then goes to its worker in that round's batch
 * (one buffer per worker). Nothing here is deterministic; instead every
 * routing decision and every event each actor handled is recorded with its
 * virtual time, and `replay` re-runs each actor on that schedule, inline.
 *
 * Process faults: crash terminates the actor's worker (when the actor has
 * one of its own; else the cell crashes in place) and a stand-in cell in
 * this thread takes what reaches it; restart rebuilds it in a fresh worker
 * (a warm spare) from the durable log this thread mirrors; pause, resume,
 * clock steps and commands (pause-app, ...) go over the control plane.
 */
export class RealtimeHost {
  readonly core: SimulationCore;
  readonly #options: RealtimeHostOptions;
  readonly #timeScale: number;
  readonly #shards: RealtimeShardHandle[] = [];
  readonly #shardOf = new Map<ActorId, RealtimeShardHandle>();
  readonly #mirrors = new Map<ActorId, ActorMirror>();
  /** Deliveries handed to a worker, until the worker reports it ran them (the recording needs their frames). */
  readonly #dispatched = new Map<
    string,
    { readonly from: ActorId; readonly type: string; readonly payload: Payload; readonly conn: number; readonly lost: boolean }
  >();
  readonly #exits: Promise<WorkerExit>[] = [];
  readonly #handles = new Set<WorkerHandle<RealtimeShardControl>>();
  readonly #startMs: number[] = [];
  readonly #recording: RecordingWriter;
  #standIns: RealtimeShard | null = null;
  #clock: VirtualClock | null = null;
  readonly #spares: Promise<WorkerHandle<RealtimeShardControl>>[] = [];
  #timer: { due: Micros; cancel: () => void } | null = null;
  #ended: (() => void) | null = null;
  #over = false;
  #begun: () => void = () => {};
  readonly #started = new Promise<void>((resolve) => {
    this.#begun = resolve;
  });
  #workers = 0;
  #hostEvents = 0;
  #runs = 0;
  /** Where interrupt() (SIGINT, SIGTERM) or end() (kcsim serve's open-ended run) stopped the run, in virtual time. */
  #stoppedAt: { readonly t: Micros; readonly interrupted: boolean } | null = null;
  /** Actors of mainThreadKinds: they stay in the stand-ins' shard, in this thread. */
  readonly #mainThread = new Set<ActorId>();
  /** Actors added while running (addActor), after the spec's. */
  readonly #added: ActorSpec[] = [];

  constructor(spec: SimulationSpec, options: RealtimeHostOptions = {}) {
    this.core = new SimulationCore(spec, { keepEvents: true });
    this.#options = options;
    this.#timeScale = options.timeScale ?? 1;
    if (!(this.#timeScale > 0)) throw new RangeError(`timeScale must be a positive number, got ${this.#timeScale}`);
    this.#recording = new RecordingWriter(
      {
        kcsim: "recording",
        format: 1,
        host: "realtime",
        timeScale: this.#timeScale,
        registryModule: options.registryModule ?? null,
        spec,
      },
      options.recordingFile ?? null,
    );
    options.signal?.addEventListener("abort", () => this.interrupt(), { once: true });
    if (options.signal?.aborted) this.interrupt();
    for (const actor of spec.actors) {
      if (this.#mirrors.has(actor.id)) throw new Error(`duplicate actor id '${actor.id}'`);
      this.#mirrors.set(actor.id, new ActorMirror(actor.id));
      if (options.mainThreadKinds?.has(actor.kind)) this.#mainThread.add(actor.id);
    }
    this.core.onRoute = (from, to, seq, now, msgType, bytes, decision) =>
      this.#recording.add({
        r: "route",
        t: now,
        from,
        to,
        seq,
        type: msgType,
        bytes,
        fate: decision.fate,
        at: decision.at,
        ...(decision.fault !== null ? { fault: decision.fault } : {}),
        ...(decision.corrupt !== null ? { corrupt: decision.corrupt } : {}),
        ...(decision.reordered ? { reordered: true as const } : {}),
      });
  }

  /** The worker currently hosting an actor (tests kill it from outside), or undefined while it is down. */
  workerOf(actor: ActorId): WorkerHandle<RealtimeShardControl> | undefined {
    return this.#shardOf.get(actor)?.handle;
  }

  /** The virtual time now (0 before the run begins). */
  now(): Micros {
    return this.#clock?.now() ?? 0;
  }

  async run(): Promise<RealtimeRunResult> {
    const started = performance.now();
    try {
      await this.start();
      if (this.#stoppedAt === null) {
        await new Promise<void>((resolve) => {
          this.#ended = resolve;
          this.#schedule();
        });
      }
      const actors = await this.#stop();
      return this.#result(performance.now() - started, actors);
    } catch (error) {
      this.#recording.abandon();
      throw error;
    } finally {
      await this.close();
    }
  }

  /**
   * Ends the run now, as its end would: the workers stop and report, the
   * run is judged up to this instant, and the recording gets its end line
   * marked interrupted, so it replays. Before the clock starts, the run
   * ends as soon as the workers are up.
   */
  interrupt(): void {
    this.#stopNow(true);
  }

  /** Resolves once the clock has started (run() starts it). */
  whenStarted(): Promise<void> {
    return this.#started;
  }

  /**
   * Ends the run now, whatever the spec's duration (kcsim serve runs until it is stopped): run()
   * stops the workers and resolves with the result, whose virtual end is this moment.
   */
  end(): void {
    if (!this.#over) this.#stopNow(false);
  }

  /** interrupt() and end(): the first one stops the run at this instant; before the clock starts, once the workers are up. */
  #stopNow(interrupted: boolean): void {
    if (this.#stoppedAt !== null) return;
    this.#stoppedAt = { t: this.now(), interrupted };
    if (this.#ended === null) return;
    this.#over = true;
    this.#timer?.cancel();
    this.#timer = null;
    this.#ended();
  }

  /**
   * Adds an actor of a mainThreadKinds kind to the running simulation, in this thread, and starts it
   * now (kcsim serve: a client that connected). The recording's spec lists it, so a replay rebuilds it.
   */
  addActor(actor: ActorSpec): void {
    const standIns = this.#standIns;
    if (standIns === null || this.#over) throw new Error(`the run is not running: cannot add actor '${actor.id}'`);
    if (this.#mirrors.has(actor.id)) throw new Error(`duplicate actor id '${actor.id}'`);
    if (!this.#options.mainThreadKinds?.has(actor.kind))
      throw new Error(`actor '${actor.id}': kind '${actor.kind}' is not a main-thread kind`);
    const added = { ...actor, startAtUs: this.now() };
    this.#added.push(added);
    this.#recording.addActor(added);
    this.#mirrors.set(actor.id, new ActorMirror(actor.id));
    this.#mainThread.add(actor.id);
    this.core.ranks.add(actor.id);
    standIns.adopt(this.#init(actor.id));
    void this.control(actor.id, { action: "start" });
  }

  /** Every actor of the run: the spec's, then those added while it ran. */
  get actors(): readonly ActorSpec[] {
    return [...this.core.spec.actors, ...this.#added];
  }

  /** Starts the workers and the clock (run() does this). */
  async start(): Promise<void> {
    const spec = this.core.spec;
    const loaded = await this.#registry();
    const registry: ActorRegistry =
      this.#options.mainThreadKinds === undefined ? loaded : new Map([...loaded, ...this.#options.mainThreadKinds]);
    this.#standIns = new RealtimeShard(
      shardSettingsOf(spec),
      spec.actors.filter((a) => this.#mainThread.has(a.id)).map((a) => this.#init(a.id)),
      registry,
      { set: (delayMs, fire) => setTimeout(fire, delayMs), clear: (handle) => clearTimeout(handle as NodeJS.Timeout) },
      (batch) => this.#applyBatch(batch),
    );
    const groups = planShards(
      spec.actors.filter((a) => !this.#mainThread.has(a.id)).map((a) => a.id),
      this.#options.actorsPerWorker ?? 1,
    );
    // The spares boot alongside the shards and are ready before the clock starts, so restarts are prompt.
    this.#refillSpares();
    const shards = await boundedAll(groups, (ids) =>
      this.#startShard(
        ids.map((id) => this.#init(id)),
        undefined,
        false,
      ),
    );
    await Promise.all(this.#spares.map((spare) => spare.catch(() => {})));
    // Virtual time 0 is just ahead, the same instant in every thread.
    const epochMs = wallMs() + EPOCH_LEAD_MS;
    this.#clock = new VirtualClock(epochMs, this.#timeScale);
    this.#standIns.begin(this.#clock);
    await Promise.all(shards.map((shard) => shard.handle.call((control) => control.begin(epochMs))));
    this.#begun();
  }

  /** Resolves when the virtual clock reaches `t` (after the run has begun). */
  async at(t: Micros): Promise<void> {
    await this.#started;
    const delay = (this.#clock as VirtualClock).realDelayMs(t);
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
  }

  /** Applies a control action to an actor now, over the control plane (the nemesis uses this too). */
  async control(actor: ActorId, action: ControlAction): Promise<void> {
    await this.#control(this.core.controlEvent(this.now(), HOST_ORIGIN, this.#hostEvents++, actor, action));
  }

  /** An actor's process state and snapshot, asked over the control plane. */
  async snapshotOf(actor: ActorId): Promise<ActorReport | null> {
    const shard = this.#shardOf.get(actor);
    if (shard === undefined) {
      const cell = this.#standIns?.cell(actor);
      return cell === undefined ? null : { state: cell.state, snapshot: cell.snapshot() };
    }
    const all = await shard.handle.call((control) => control.snapshot());
    return all[actor] ?? null;
  }

  /** Terminates every worker (run() does this). */
  async close(): Promise<void> {
    this.#over = true;
    this.#timer?.cancel();
    this.#timer = null;
    for (const spare of this.#spares.splice(0)) void spare.catch(() => {});
    // Every worker ever started, whatever it was doing (a spare still booting, a restart half done).
    await Promise.all([...this.#handles].map((handle) => handle.terminate()));
    this.#shards.length = 0;
    await Promise.all(this.#exits);
  }

  async #registry(): Promise<ActorRegistry> {
    const module = this.#options.registryModule ?? null;
    return module === null ? DEFAULT_REGISTRY : loadRegistry(module);
  }

  #init(id: ActorId, carry?: CellCarry): ShardActorInit {
    return shardActorInit(this.core, this.#mirrors, id, carry, this.#added);
  }

  #refillSpares(): void {
    const crashes = this.core.spec.nemesis.filter((step) => step.control.action === "crash").length;
    const wanted = this.#options.spareWorkers ?? Math.min(4, Math.max(1, crashes));
    while (!this.#over && this.#spares.length < wanted) {
      const spare = this.#spawnWorker();
      spare.catch(() => {});
      this.#spares.push(spare);
    }
  }

  #spawnWorker(): Promise<WorkerHandle<RealtimeShardControl>> {
    const name = `realtime-${this.#workers++}`;
    const onExit = (dead: WorkerHandle<RealtimeShardControl>, exit: WorkerExit) => this.#onExit(dead, exit);
    const handle = new WorkerHandle<RealtimeShardControl>(entryPoint("realtime-worker"), name, {}, onExit, this.#options.workerHeapMb);
    this.#handles.add(handle);
    this.#exits.push(handle.exited);
    const spawned = performance.now();
    // Ready = its modules are loaded and its control plane answers (the online event comes before that).
    return handle
      .call((control) => control.ping(), START_TIMEOUT_MS)
      .then(() => {
        this.#startMs.push(performance.now() - spawned);
        return handle;
      });
  }

  /** A worker with these actors built in (or none yet: `moving` names the actor about to be adopted). */
  async #startShard(actors: readonly ShardActorInit[], moving?: ActorId, fromSpare = true): Promise<RealtimeShardHandle> {
    const spec = this.core.spec;
    const logs = this.#options.logs ?? SILENT_LOGS;
    const spare = fromSpare ? this.#spares.shift() : undefined;
    if (fromSpare) this.#refillSpares();
    const handle = spare !== undefined ? await spare : await this.#spawnWorker();
    if (this.#over) throw new Error("the run ended while a worker was starting");
    const shard = new RealtimeShardHandle(handle, moving === undefined ? actors.map((a) => a.id) : [moving]);
    handle.data.on("message", (bytes: Uint8Array) => this.#onBatch(shard, bytes));
    await handle.call((control) =>
      control.init({
        ...shardSettingsOf(spec),
        actors,
        registryModule: this.#options.registryModule ?? null,
        logLevel: logs.level,
        logDir: logs.dir,
        timeScale: this.#timeScale,
        epochMs: this.#clock?.epochMs ?? null,
      }),
    );
    this.#shards.push(shard);
    for (const actor of actors) this.#shardOf.set(actor.id, shard);
    return shard;
  }

  /** Keeps one real timer armed for the earliest queued event (or the end of the run). */
  #schedule(): void {
    const clock = this.#clock;
    if (clock === null || this.#over) return;
    const end = this.core.spec.durationUs;
    const due = Math.min(this.core.nextDue() ?? end, end);
    if (this.#timer !== null && this.#timer.due <= due) return;
    this.#timer?.cancel();
    // A real timer waits at most 2^31-1 ms; an event further away (an open-ended run's end) gets a timer that re-schedules.
    const delay = Math.min(clock.realDelayMs(due) - RELEASE_AHEAD_MS, MAX_TIMER_MS);
    if (delay <= 0) {
      const immediate = setImmediate(() => this.#pump());
      this.#timer = { due, cancel: () => clearImmediate(immediate) };
    } else {
      const timeout = setTimeout(() => this.#pump(), delay);
      this.#timer = { due, cancel: () => clearTimeout(timeout) };
    }
  }

  /** Releases every event due now (deliveries batched per worker, control events over the control plane). */
  #pump(): void {
    this.#timer = null;
    const clock = this.#clock;
    if (clock === null || this.#over) return;
    const core = this.core;
    const end = core.spec.durationUs;
    const horizon = Math.min(clock.now() + Math.ceil((RELEASE_AHEAD_MS * 1000) / this.#timeScale), end);
    const toStandIns: DeliveryTuple[] = [];
    for (let event = core.popDue(horizon); event !== undefined; event = core.popDue(horizon)) {
      if (event.kind === "deliver") {
        const tuple = deliveryTupleOf(event);
        const shard = this.#shardOf.get(event.to);
        const dispatched = {
          from: event.from,
          type: event.msgType,
          payload: event.payload,
          conn: event.conn,
          lost: event.lostWithBreak === true,
        };
        if (shard !== undefined) {
          this.#dispatched.set(deliveryKey(event.to, event.origin, event.seq, event.sub), dispatched);
          shard.batch.push(tuple);
        } else if (this.#standIns?.cell(event.to) !== undefined) {
          this.#dispatched.set(deliveryKey(event.to, event.origin, event.seq, event.sub), dispatched);
          toStandIns.push(tuple);
        } else {
          core.lost(event.to, event.due, event.from, event.msgType, "no such actor");
        }
      } else {
        void this.#control(event).catch((error: unknown) => this.#warn(`control ${event.to}: ${String(error)}`));
      }
    }
    for (const shard of this.#shards) {
      if (shard.batch.length === 0) continue;
      const bytes = ownedBytes(shard.batch);
      shard.batch.length = 0;
      if (shard.handle.alive) shard.handle.data.postMessage(bytes, [bytes.buffer]);
    }
    if (toStandIns.length > 0) this.#standIns?.deliver(toStandIns);
    if (clock.now() >= end) {
      this.#over = true;
      this.#ended?.();
      return;
    }
    this.#schedule();
  }

  async #control(event: SimEvent): Promise<void> {
    if (event.kind !== "control") return;
    const tuple: ControlTuple = [1, event.due, event.origin, event.rank, event.seq, event.sub, event.to, event.control];
    const id = event.to;
    const action = event.control.action;
    const shard = this.#shardOf.get(id);
    const standIns = this.#standIns as RealtimeShard;
    if (shard !== undefined) {
      if (action === "crash" && shard.solo) {
        await this.#killWorker(shard, "nemesis", true);
        return;
      }
      await shard.handle.call((control) => control.control(tuple));
      return;
    }
    const cell = standIns.cell(id);
    if (cell === undefined) return;
    const boots =
      !this.#mainThread.has(id) &&
      ((action === "start" && cell.state === "unstarted") || (action === "restart" && cell.state !== "unstarted"));
    if (!boots) {
      standIns.control(tuple);
      return;
    }
    // A fresh worker (the warm spare) first; then the actor moves in one step, so the stand-in's last
    // carry is the one the new cell starts from and nothing reaches the actor in between.
    const restarted = await this.#startShard([], id);
    const carry = standIns.release(id) as CellCarry;
    this.#shardOf.set(id, restarted);
    this.#recording.add({ r: "up", actor: id, t: this.now(), carry });
    await restarted.handle.call((control) => control.adopt(this.#init(id, carry)));
    await restarted.handle.call((control) => control.control(tuple));
  }

  /** Ends an actor's worker (a crash fault) and hands its actors to stand-ins in this thread. */
  async #killWorker(shard: RealtimeShardHandle, why: string, deliberate: boolean): Promise<void> {
    this.#forget(shard);
    this.#down(shard, why);
    if (!deliberate) return;
    if ((this.#options.logs?.level ?? "silent") !== "silent")
      await shard.handle.call((control) => control.flushLogs(), 1_000).catch(() => {});
    void shard.handle.terminate();
  }

  #onExit(handle: WorkerHandle<RealtimeShardControl>, exit: WorkerExit): void {
    if (exit.expected) return;
    const shard = this.#shards.find((s) => s.handle === handle);
    if (shard === undefined) return;
    this.#forget(shard);
    const why = describeExit(exit);
    this.#warn(`${handle.name} (${shard.actors.join(", ")}): ${why}; the run goes on without it`);
    this.#down(shard, why);
    const policy = this.core.spec.restartPolicy;
    if (policy.mode !== "restart" || this.#over) return;
    for (const id of shard.actors) {
      if (this.#standIns?.cell(id)?.state !== "crashed") continue;
      this.core.queue.push(this.core.controlEvent(this.now() + policy.delayUs, HOST_ORIGIN, this.#hostEvents++, id, { action: "restart" }));
    }
    this.#schedule();
  }

  /** The actors of a gone worker: recorded down, handed to stand-ins built from their last reported carry. */
  #down(shard: RealtimeShardHandle, why: string): void {
    const standIns = this.#standIns as RealtimeShard;
    const t = this.now();
    for (const id of shard.actors) {
      const mirror = this.#mirrors.get(id) as ActorMirror;
      // Without a carry reported by the worker, carryAfterDeath makes up a fresh incarnation's: say so.
      const reported = mirror.carry !== null;
      const carry = mirror.carryAfterDeath(this.core.spec.seed);
      standIns.adopt(this.#init(id, carry));
      this.#recording.add({ r: "down", actor: id, t, why, carry, ...(reported ? {} : { unknownState: true as const }) });
      if (carry.state === "running") {
        this.core.lifecycle(id, t, "crash", why);
        mirror.lifecycle("crash", why);
      }
    }
  }

  #forget(shard: RealtimeShardHandle): void {
    shard.gone = true;
    const index = this.#shards.indexOf(shard);
    if (index >= 0) this.#shards.splice(index, 1);
    for (const id of shard.actors) if (this.#shardOf.get(id) === shard) this.#shardOf.delete(id);
  }

  #onBatch(shard: RealtimeShardHandle, bytes: Uint8Array): void {
    if (shard.gone) return;
    const batch = decodeUnchecked(bytes) as EffectBatch;
    this.#applyBatch(batch);
    shard.batchArrived(batch[0]);
  }

  /** A worker's (or the stand-ins') effects and handled events: applied, recorded, and the timer re-armed. */
  #applyBatch(batch: EffectBatch): void {
    const [, effects, runs, carries] = batch;
    for (const [id, carry] of carries) {
      const mirror = this.#mirrors.get(id);
      if (mirror !== undefined) mirror.carry = carry;
    }
    for (const effect of effects) applyEffect(this.core, this.#mirrors, effect);
    for (const run of runs) this.#recording.add(this.#runEntry(run));
    this.#runs += runs.length;
    this.#schedule();
  }

  #runEntry(run: RunRecord): RecordingEntry {
    const [actor, t] = run;
    let e: RunEvent;
    if (run[2] === 0) {
      const [, , , origin, seq, sub] = run;
      const key = deliveryKey(actor, origin, seq, sub);
      const dispatched = this.#dispatched.get(key);
      this.#dispatched.delete(key);
      const payload = dispatched?.payload;
      e = {
        k: "deliver",
        origin,
        seq,
        sub,
        from: dispatched?.from ?? origin,
        type: dispatched?.type ?? "?",
        ...(dispatched !== undefined && dispatched.conn !== 0 ? { conn: dispatched.conn } : {}),
        ...(dispatched?.lost === true ? { lostWithBreak: true as const } : {}),
        ...(payload instanceof Uint8Array ? { frame: frameToText(payload) } : { message: (payload ?? null) as JsonValue }),
      };
    } else if (run[2] === 1) {
      const [, , origin, , seq, sub, , control] = run[3];
      e = { k: "control", origin, seq, sub, control };
    } else {
      const [, due, , seq, , , name] = run[3];
      e = { k: "timer", name, seq, due };
    }
    return { r: "run", actor, t, e };
  }

  /** Ends the run: every worker stops and sends its last effects; returns each actor's state and snapshot. */
  async #stop(): Promise<Record<ActorId, ActorReport>> {
    this.#timer?.cancel();
    this.#timer = null;
    const out: Record<ActorId, ActorReport> = {};
    await Promise.all(
      this.#shards.map(async (shard) => {
        try {
          const last = await shard.handle.call((control) => control.stop(), DRAIN_TIMEOUT_MS);
          await shard.drained(last);
          Object.assign(out, await shard.handle.call((control) => control.snapshot(), DRAIN_TIMEOUT_MS));
          await shard.handle.call((control) => control.flushLogs(), DRAIN_TIMEOUT_MS);
        } catch {
          for (const id of shard.actors) out[id] ??= { state: "dead", snapshot: null };
        }
      }),
    );
    this.#standIns?.stop();
    Object.assign(out, this.#standIns?.snapshot() ?? {});
    const ordered: Record<ActorId, ActorReport> = {};
    for (const actor of this.actors) ordered[actor.id] = out[actor.id] ?? { state: "dead", snapshot: null };
    return ordered;
  }

  #result(wallMsTaken: number, actors: Record<ActorId, ActorReport>): RealtimeRunResult {
    const core = this.core;
    // Effects arrive in the order threads report them; the history is in virtual-time order (stable).
    const events: HistoryEvent[] = [...core.history.log.toArray()].sort((a, b) => a.t - b.t);
    const history = new History(core.history.header, this.#options.history ?? {});
    for (const event of events) history.record(event);
    const historyHash = history.finish();
    const stopped = this.#stoppedAt;
    const interruptedAt = stopped?.interrupted === true ? stopped.t : null;
    const endUs = stopped?.t ?? core.spec.durationUs;
    this.#recording.finish({ t: endUs, historyHash, interrupted: interruptedAt !== null });
    return withEventArray({
      host: "realtime",
      scenario: core.spec.scenario,
      seed: core.spec.seed,
      historyHash,
      log: history.log,
      eventsProcessed: this.#runs,
      virtualEndUs: endUs,
      ...(interruptedAt !== null ? { interruptedAtUs: interruptedAt } : {}),
      wallMs: wallMsTaken,
      router: core.router.stats,
      choices: core.router.fired,
      actors,
      recording: this.#recording.recording(),
      workers: { started: this.#startMs.length, startMs: [...this.#startMs] },
    });
  }

  /** Writes the recording (recording.jsonl) as text. */
  recordingText(): string {
    return this.#recording.text();
  }

  #warn(message: string): void {
    if (this.#over) return; // a restart cut short by the end of the run is no news
    process.emitWarning(`kcsim realtime: ${message}`);
  }
}
