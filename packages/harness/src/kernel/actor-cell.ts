import {
  type Actor,
  type ActorFactory,
  type ActorId,
  type ActorLogger,
  CodecError,
  type ConnectionSettings,
  type Context,
  type ControlCommand,
  type DurableLog,
  decode,
  deepFreeze,
  encode,
  type JsonValue,
  type Message,
  type Micros,
  type Observation,
  RandomStream,
  sealMessage,
  sealUnsized,
  streamFor,
  type UniformSource,
} from "@kcsim/protocol";
import type { NetworkMode } from "../router/fault-plan.js";
import type { CellCarry, CellState } from "./cell-carry.js";
import { ConnectionEndpoint, type ConnectionEvent, type ConnectionPort, type ConnectionWireId } from "./connection-endpoint.js";
import type { CpuBurner } from "./cpu-burn.js";
import type { MemoryDurableLog } from "./durable-log.js";
import {
  type ArmedTimer,
  armedTimer,
  type ControlEvent,
  type DeliveryEvent,
  type Payload,
  type SimEvent,
  type TimerEvent,
} from "./event.js";
import { TimerTable } from "./timer-table.js";

/**
 * Where a cell's effects go. The inline host applies them at once (router,
 * history); a worker buffers them per event and ships them to the main
 * thread, which applies them in the total order. Either way the effects of
 * one event arrive in the order the actor produced them.
 */
export interface CellSink {
  send(
    from: ActorId,
    to: ActorId,
    seq: number,
    now: Micros,
    msgType: string,
    payload: Payload,
    bytes: number,
    conn: ConnectionWireId,
    /** The sender's origin rank, when the caller knows it (saves the sink a lookup). */
    fromRank?: number,
    /** The receiver's origin rank when the sender's kernel knows it (see CellOptions.rankOf), else -1. */
    toRank?: number,
  ): void;
  /** Something happened to one of the actor's client connections (the history's "conn" lines). */
  connection(actor: ActorId, now: Micros, event: ConnectionEvent): void;
  observe(actor: ActorId, now: Micros, observation: Observation): void;
  /**
   * Takes each record the actor appends to its durable log, encoded, when
   * the host mirrors the logs elsewhere (the worker hosts ship them to the
   * main thread, which restarts actors from its copy). A sink without it
   * needs no bytes: the log then keeps records on its value tape and
   * encodes them only if they are read back.
   */
  appended?(actor: ActorId, record: Uint8Array): void;
  lifecycle(actor: ActorId, now: Micros, what: LifecycleEvent, detail: string | null): void;
  actorError(actor: ActorId, now: Micros, during: string, message: string, stack: string): void;
  rejected(actor: ActorId, now: Micros, from: ActorId, reason: string, detail: string): void;
  lost(actor: ActorId, now: Micros, from: ActorId, msgType: string, why: string): void;
  /** Queues an armed timer; one still queued (re-armed: a new due time and seq) moves to its new place in the queue. */
  scheduleTimer(timer: ArmedTimer): void;
  /** Takes a timer the cell cancelled, replaced or lost in a crash out of the queue (if it is still there). */
  cancelTimer(timer: ArmedTimer): void;
}

/**
 * How messages travel between cells:
 * - frames: encoded at send, decoded and validated at receipt (worker hosts: they cross threads);
 * - sealed: the message object itself, deep-frozen at send, with its frame's size (the inline host);
 * - unsized: sealed, but not sized (size 0): the inline host when nothing reads a size, a run that records no
 *   history (a hunt's passing seed) and has no bandwidth fault; sizing is most of sealing's cost;
 * - raw: the object as it is, size 0 (the codec switched off: benchmarks only).
 * In frames and sealed mode a sent message is frozen for its sender and a received one for its receiver,
 * so an actor that tries to change a message throws alike in every host.
 */
export type MessageMode = "frames" | "sealed" | "unsized" | "raw";

export type LifecycleEvent = "start" | "crash" | "restart" | "pause" | "resume" | "clock-step" | "stop" | "command";

/** What happens to an actor whose code throws (the scenario's restart policy). */
export type RestartPolicy =
  | { readonly mode: "stop" }
  | { readonly mode: "restart"; readonly delayUs: Micros }
  | { readonly mode: "ignore" };

export interface CellOptions {
  readonly id: ActorId;
  readonly kind: string;
  readonly config: JsonValue;
  readonly factory: ActorFactory;
  readonly seed: number;
  /** The actor's origin rank (OriginRanks): the second part of its timers' keys. */
  readonly rank: number;
  /**
   * Another actor's origin rank, or -1 if the run has no such actor. The
   * connection endpoint asks once per connection and hands it along with
   * every send on it (the inline host finds the receiving cell by it).
   * Absent: every send's receiver rank is unknown (-1).
   */
  readonly rankOf?: (actor: ActorId) => number;
  readonly messages: MessageMode;
  /** Connection mode (the default network) or datagram mode (see NetworkMode). */
  readonly network: NetworkMode;
  readonly storage: MemoryDurableLog;
  readonly restartPolicy: RestartPolicy;
  readonly logger: ActorLogger;
  /**
   * Rebuild a cell whose process died elsewhere (a terminated worker): it
   * starts in the carried state ("running" becomes "crashed") and continues
   * the carried sequence numbers, clock offset and random stream, so a
   * restart in a fresh worker behaves exactly like one in the same thread.
   */
  readonly carry?: CellCarry;
  /** Real CPU work for `ctx.burnCpu` (worker hosts); absent = a no-op (virtual hosts stay fast). */
  readonly burnCpu?: (micros: Micros) => void;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The cell's own timer that restarts the actor after an exception. */
const RESTART_TIMER = "$restart";
/**
 * The earliest a thrown actor restarts (1 ms, the scenario's minimum too):
 * an actor that throws at start and restarts at the same instant would
 * loop forever without virtual time passing.
 */
const MIN_RESTART_DELAY_US = 1000;

/** The seq of a timer entry kept disarmed in its cell's table (see ActorCell's #timers): no event's seq. */
const DISARMED = -1;

/**
 * The actor's part of an exception's stack, the same in every host: only
 * "at fn" of each frame (file paths differ between src and dist, and
 * between threads), anonymous frames as "at <anonymous>", private methods
 * without their class (transpilers name them differently), and nothing
 * from the cell's entry into actor code down (those frames belong to the
 * host): the entry itself is written "at <anonymous>", as it was when the
 * cell entered actor code through a closure, so that histories keep their
 * hashes.
 */
const CELL_ENTRIES: ReadonlySet<string> = new Set(["#actorStart", "#actorFire", "#actorReceive", "#actorControl", "#actorClockStepped"]);

function portableStack(error: unknown): string {
  if (!(error instanceof Error) || error.stack === undefined) return "";
  const frames: string[] = [];
  for (const raw of error.stack.split("\n").slice(1)) {
    const line = raw.trim();
    if (!line.startsWith("at ")) continue;
    const named = /^at (.+?) \(.*\)$/.exec(line);
    const name = (named?.[1] ?? "<anonymous>").replace(/^[\w$]+\.(#[\w$]+)$/, "$1");
    if (CELL_ENTRIES.has(name)) {
      frames.push("at <anonymous>");
      break;
    }
    frames.push(`at ${name}`);
    if (frames.length === 8) break;
  }
  return frames.join("\n");
}

/**
 * The runtime of one actor, shared by every host: it owns the actor
 * instance, its context, its timers, its seeded random stream and its
 * process state (running, paused, crashed), and turns each event into
 * effects on a CellSink. Nothing here reads a clock or a global.
 */
export class ActorCell {
  readonly id: ActorId;
  readonly #options: CellOptions;
  readonly #sink: CellSink;
  readonly #rng: RandomStream;
  /** The kernel's own draws (reconnect backoff jitter), apart from the actor's stream. */
  readonly #netRng: RandomStream;
  readonly #ctx: Context;
  /** This process's ends of its connections (connection mode); rebuilt with each incarnation. */
  #endpoint: ConnectionEndpoint | null = null;
  /**
   * The timers by name: the armed ones, each also in its sink's queue until it
   * fires or is taken out, and the disarmed entries it keeps (seq DISARMED).
   * A timer that fires or is cancelled while queued is held by nothing else
   * (a timer the queue handed out is out of the queue, and the hosts read a
   * fired event's key before handing it over), so arming its name again
   * re-uses the entry. A name's first entry leaves the table when it is
   * disarmed and waits as the spare; if the same name is armed next, the
   * entry comes back `kept` and stays in the table from then on, disarmed
   * between armings. A name armed over and over (a consumer's application
   * timer, a pinger's timeout) then costs one lookup per arming and none
   * per firing, where removing and adding it again made V8's Map rebuild
   * its table every few events; a name armed once (a request's timeout,
   * named after its correlation id) leaves the table as before. The table
   * remembers the two kept entries looked up last (see TimerTable).
   */
  readonly #timers = new TimerTable();
  /** The last entry disarmed that the table did not keep (see #timers). */
  #spareTimer: ArmedTimer | null = null;
  #actor: Actor | null = null;
  #state: CellState = "unstarted";
  #paused = false;
  #held: SimEvent[] = [];
  /** Datagram mode: actors this incarnation has a connection with (heard from or wrote to); its crash resets them. */
  readonly #peers = new Set<ActorId>();
  readonly #datagram: boolean;
  #seq = 0;
  #now: Micros = 0;
  #clockOffset: Micros = 0;
  /** The clock was stepped while the process was paused: the actor hears of it when it resumes (see Actor.clockStepped). */
  #steppedWhilePaused = false;

  constructor(options: CellOptions, sink: CellSink) {
    this.id = options.id;
    this.#options = options;
    this.#sink = sink;
    this.#datagram = options.network === "datagram";
    const carry = options.carry;
    if (carry === undefined) {
      this.#rng = streamFor(options.seed, options.id);
      this.#netRng = streamFor(options.seed, `!net:${options.id}`);
    } else {
      this.#rng = new RandomStream(carry.rng);
      this.#netRng = new RandomStream(carry.netRng);
      this.#state = carry.state === "running" ? "crashed" : carry.state;
      this.#seq = carry.seq;
      this.#clockOffset = carry.clockOffset;
    }
    this.#ctx = this.#makeContext();
  }

  /** The state that outlives this cell's process (see CellCarry). */
  carry(): CellCarry {
    return { state: this.#state, seq: this.#seq, clockOffset: this.#clockOffset, rng: this.#rng.state(), netRng: this.#netRng.state() };
  }

  get state(): CellState {
    return this.#state;
  }

  get paused(): boolean {
    return this.#paused;
  }

  /** Whether the timer event (name, seq) would still fire: false once it was replaced, cancelled or lost in a crash. */
  isArmed(name: string, seq: number): boolean {
    return this.#timers.get(name)?.seq === seq;
  }

  /** How many timers are armed (the restart timer of the restart policy included). */
  get armedTimers(): number {
    let armed = 0;
    for (const timer of this.#timers.values()) if (timer.seq !== DISARMED) armed++;
    return armed;
  }

  /** The actor's snapshot (control plane), or null when it has none or is down. */
  snapshot(): JsonValue {
    return this.#actor?.snapshot?.() ?? null;
  }

  handle(event: SimEvent): void {
    this.#now = event.due;
    switch (event.kind) {
      case "control":
        this.#handleControl(event);
        return;
      case "deliver":
        this.#handleDelivery(event);
        return;
      case "timer":
        this.#handleTimer(event);
        return;
    }
  }

  #handleControl(event: ControlEvent): void {
    const control = event.control;
    switch (control.action) {
      case "start":
        if (this.#state === "unstarted") this.#boot("start");
        return;
      case "crash":
        if (this.#state === "running") this.#crash("crash", "nemesis");
        return;
      case "restart":
        if (this.#state === "running") this.#crash("crash", "restart");
        if (this.#state !== "unstarted") this.#boot("restart");
        return;
      case "pause":
        if (this.#state === "running" && !this.#paused) {
          this.#paused = true;
          this.#sink.lifecycle(this.id, this.#now, "pause", null);
        }
        return;
      case "resume":
        if (this.#paused) {
          this.#paused = false;
          this.#sink.lifecycle(this.id, this.#now, "resume", `${this.#held.length} held`);
          const held = this.#held;
          this.#held = [];
          for (const heldEvent of held) {
            if (this.#state !== "running" || this.#paused) break;
            this.#dispatch(heldEvent);
          }
          // A clock stepped while the process was stopped is seen once it runs again.
          const stepped = this.#steppedWhilePaused;
          this.#steppedWhilePaused = false;
          if (stepped && this.#state === "running" && !this.#paused && this.#actor !== null) this.#actorClockStepped(this.#actor);
        }
        return;
      case "clock-step":
        this.#clockOffset += control.deltaUs;
        this.#sink.lifecycle(this.id, this.#now, "clock-step", String(control.deltaUs));
        if (this.#state !== "running") return;
        if (this.#paused) this.#steppedWhilePaused = true;
        else if (this.#actor !== null) this.#actorClockStepped(this.#actor);
        return;
      case "command":
        if (this.#state !== "running") return;
        if (this.#paused) {
          this.#held.push(event);
          return;
        }
        this.#dispatch(event);
        return;
    }
  }

  #handleDelivery(event: DeliveryEvent): void {
    if (event.lostWithBreak === true) {
      this.#sink.lost(this.id, this.#now, event.from, event.msgType, "its connection broke");
      return;
    }
    if (this.#state !== "running") {
      this.#sink.lost(this.id, this.#now, event.from, event.msgType, this.#state);
      // The dead process's host resets the connection (never in answer to a reset).
      if (this.#options.network === "datagram" || event.conn === 0) {
        if (event.msgType !== "SimDisconnect") this.#send(event.from, { type: "SimDisconnect", reason: this.#state, connection: "*" }, 0);
        return;
      }
      const message = event.msgType === "SimConnect" || event.conn > 0 ? this.#open(event) : null;
      const reset = message === null ? null : ConnectionEndpoint.resetFor(message, event.conn, this.#state);
      if (reset !== null) this.#send(event.from, reset.message, reset.wireId);
      return;
    }
    if (this.#paused) {
      // A paused process's kernel still accepts connections (the SYN is answered); everything else waits.
      if (event.msgType === "SimConnect" && event.conn > 0 && this.#endpoint !== null) {
        const message = this.#open(event);
        if (message !== null) this.#endpoint.receive(event.from, message, event.conn);
        return;
      }
      this.#held.push(event);
      return;
    }
    this.#dispatch(event);
  }

  #handleTimer(event: TimerEvent): void {
    const armed = this.#timers.get(event.name);
    if (armed?.seq !== event.seq) return; // replaced or cancelled while held, or not this cell's
    if (event.name === RESTART_TIMER) {
      this.#timers.delete(RESTART_TIMER);
      if (this.#state === "crashed") this.#boot("restart");
      return;
    }
    if (this.#state !== "running") return;
    if (this.#paused) {
      this.#held.push(event);
      return;
    }
    const actor = this.#actor;
    if (actor !== null) this.#fire(actor, event, armed); // armed, as checked above
  }

  /** Runs one event through the actor (running, not paused). */
  #dispatch(event: SimEvent): void {
    const actor = this.#actor;
    if (actor === null) return;
    if (event.kind === "timer") {
      // Held while paused: it may have been re-armed or cancelled since.
      const armed = this.#timers.get(event.name);
      if (armed?.seq === event.seq) this.#fire(actor, event, armed);
    } else if (event.kind === "deliver") {
      if (this.#datagram) this.#peers.add(event.from);
      const message = this.#open(event);
      const endpoint = this.#endpoint;
      if (endpoint !== null && event.conn !== 0) {
        if (message === null) endpoint.corrupted(event.from, event.conn);
        else endpoint.receive(event.from, message, event.conn);
      } else if (message !== null) {
        this.#deliverToActor(event.from, message);
      }
    } else if (event.control.action === "command") {
      const command: ControlCommand = event.control.command;
      this.#sink.lifecycle(this.id, this.#now, "command", command.command);
      this.#actorControl(actor, command);
    }
  }

  /** Fires a timer that is armed: `event`, whose name's current entry is `armed` (the same object, unless a replay made the event up). */
  #fire(actor: Actor, event: TimerEvent, armed: ArmedTimer): void {
    const name = event.name;
    // Disarmed for re-use (see #timers) if the event is the cell's own entry, out of the queue (slot -1 once
    // popped). A replay hands the cell events of its own making (every event is one class, so those have a slot
    // too): they are not the cell's entries.
    if (armed === event && armed.slot === -1) this.#disarm(name, armed);
    else this.#timers.delete(name);
    if (name.startsWith("$") && this.#endpoint?.fire(name)) return;
    this.#actorFire(actor, name);
  }

  #deliverToActor(from: ActorId, message: Message): void {
    const actor = this.#actor;
    if (actor !== null) this.#actorReceive(actor, from, message);
  }

  /** Decodes a delivered frame (frozen, like a sealed message); a frame that is not a valid message is counted, logged and dropped. */
  #open(event: DeliveryEvent): Message | null {
    if (!(event.payload instanceof Uint8Array)) return event.payload;
    try {
      const message = decode(event.payload);
      if (this.#options.messages !== "raw") deepFreeze(message);
      return message;
    } catch (error) {
      const reason = error instanceof CodecError ? error.reason : "malformed";
      const detail = error instanceof Error ? error.message : String(error);
      this.#sink.rejected(this.id, this.#now, event.from, reason, detail);
      this.#options.logger.warn("frame rejected", { from: event.from, reason, detail });
      return null;
    }
  }

  #boot(what: "start" | "restart"): void {
    this.#state = "running";
    this.#paused = false;
    this.#endpoint = this.#options.network === "connection" ? new ConnectionEndpoint(this.#connectionPort()) : null;
    this.#sink.lifecycle(this.id, this.#now, what, null);
    this.#actorStart(what);
  }

  /**
   * Loses all volatile state: the instance, its timers, whatever it had not
   * yet processed. Like a kernel reaping a dead process, it resets every
   * connection the incarnation had (peers it heard from or wrote to), so
   * requests they have in flight to it (a parked fetch, a produce waiting
   * for replicas) fail at once instead of waiting for their timeouts.
   */
  #crash(what: "crash" | "stop", detail: string): void {
    this.#actor = null;
    for (const timer of this.#timers.values()) if (timer.seq !== DISARMED) this.#sink.cancelTimer(timer);
    this.#timers.clear();
    this.#held = [];
    this.#paused = false;
    this.#steppedWhilePaused = false;
    this.#state = what === "stop" ? "stopped" : "crashed";
    this.#sink.lifecycle(this.id, this.#now, what, detail);
    const reason = what === "stop" ? "stopped" : "crashed";
    const peers = [...this.#peers].sort();
    this.#peers.clear();
    const endpoint = this.#endpoint;
    this.#endpoint = null;
    if (endpoint !== null) endpoint.crash(reason);
    else for (const peer of peers) this.#send(peer, { type: "SimDisconnect", reason, connection: "*" }, 0);
  }

  // The five ways into actor code. Each runs it in its own try block, with no closure made per event (this is
  // every event's path); portableStack cuts an exception's stack at them (CELL_ENTRIES).

  #actorStart(what: "start" | "restart"): void {
    try {
      const actor = this.#options.factory(this.id, this.#options.config);
      this.#actor = actor;
      actor.start(this.#ctx);
    } catch (error) {
      this.#threw(error, what);
    }
  }

  #actorFire(actor: Actor, name: string): void {
    try {
      actor.fire(name, this.#ctx);
    } catch (error) {
      this.#threw(error, `timer ${name}`);
    }
  }

  #actorReceive(actor: Actor, from: ActorId, message: Message): void {
    try {
      actor.receive(from, message, this.#ctx);
    } catch (error) {
      this.#threw(error, `receive ${message.type} from ${from}`);
    }
  }

  #actorClockStepped(actor: Actor): void {
    try {
      actor.clockStepped?.(this.#ctx);
    } catch (error) {
      this.#threw(error, "clock step");
    }
  }

  #actorControl(actor: Actor, command: ControlCommand): void {
    try {
      actor.control?.(command, this.#ctx);
    } catch (error) {
      this.#threw(error, `control ${command.command}`);
    }
  }

  /**
   * Records an exception actor code threw during `during` ("timer t", "receive T from a", ...) and applies
   * the restart policy.
   */
  #threw(error: unknown, during: string): void {
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    this.#sink.actorError(this.id, this.#now, during, message, portableStack(error));
    this.#options.logger.error("actor threw", { during, message });
    const policy = this.#options.restartPolicy;
    if (policy.mode === "stop") {
      this.#crash("stop", "exception");
    } else if (policy.mode === "restart" && this.#state === "running") {
      this.#crash("crash", "exception");
      this.#armTimer(RESTART_TIMER, Math.max(policy.delayUs, MIN_RESTART_DELAY_US));
    }
  }

  /**
   * Puts a message on the wire: numbered, sealed or encoded (see MessageMode) and handed to the sink with its
   * connection id and, when known, the receiver's rank (-1: not known).
   */
  #send(to: ActorId, message: Message, conn: ConnectionWireId, toRank = -1): void {
    if (this.#datagram && this.#state === "running") this.#peers.add(to);
    const seq = ++this.#seq;
    const rank = this.#options.rank;
    switch (this.#options.messages) {
      case "sealed":
        this.#sink.send(this.id, to, seq, this.#now, message.type, message, sealMessage(message), conn, rank, toRank);
        return;
      case "unsized":
        sealUnsized(message);
        this.#sink.send(this.id, to, seq, this.#now, message.type, message, 0, conn, rank, toRank);
        return;
      case "frames": {
        deepFreeze(message);
        const frame = encode(message);
        this.#sink.send(this.id, to, seq, this.#now, message.type, frame, frame.length, conn, rank, toRank);
        return;
      }
      case "raw":
        this.#sink.send(this.id, to, seq, this.#now, message.type, message, 0, conn, rank, toRank);
        return;
    }
  }

  /** What the connection endpoint may do through this cell. */
  #connectionPort(): ConnectionPort {
    return new ActorCell.#CellPort(this);
  }

  /** Arms (or re-arms: the old one leaves the queue) the timer `name`. */
  #armTimer(name: string, after: Micros): void {
    if (!Number.isInteger(after) || after < 0)
      throw new RangeError(`timer ${name}: delay must be a non-negative integer of microseconds, got ${after}`);
    const entry = this.#timers.get(name);
    if (entry !== undefined) {
      // Disarmed (held by nothing else), or still queued (it has not fired, so nothing but the queue and
      // #timers holds it): armed where it is, with its new key. Otherwise it was popped and is held while
      // paused: it is replaced by a new entry below.
      if (entry.seq === DISARMED || entry.slot >= 0) {
        const rearmed = entry as Mutable<ArmedTimer>;
        rearmed.due = this.#now + after;
        rearmed.seq = ++this.#seq;
        this.#sink.scheduleTimer(rearmed);
        return;
      }
      this.#sink.cancelTimer(entry);
    } else {
      const spare = this.#spareTimer;
      if (spare !== null && spare.name === name) {
        // Armed again after its disarming: the table keeps it from now on (see #timers).
        this.#spareTimer = null;
        const reused = spare as Mutable<ArmedTimer>;
        reused.kept = true;
        reused.due = this.#now + after;
        reused.seq = ++this.#seq;
        this.#timers.set(name, reused);
        this.#sink.scheduleTimer(reused);
        return;
      }
    }
    const timer = armedTimer(this.#now + after, this.id, this.#options.rank, ++this.#seq, this.id, name);
    this.#timers.set(name, timer);
    this.#sink.scheduleTimer(timer);
  }

  #cancelTimer(name: string): void {
    const timer = this.#timers.get(name);
    if (timer === undefined || timer.seq === DISARMED) return;
    const queued = timer.slot >= 0;
    this.#sink.cancelTimer(timer);
    // One held while paused stays with the held events: it leaves the table.
    if (queued) this.#disarm(name, timer);
    else this.#timers.delete(name);
  }

  /** A timer out of the queue and held by nothing else (fired or cancelled): kept disarmed, or the spare (see #timers). */
  #disarm(name: string, timer: ArmedTimer): void {
    if (timer.kept) {
      (timer as Mutable<ArmedTimer>).seq = DISARMED;
      return;
    }
    this.#timers.delete(name);
    this.#spareTimer = timer;
  }

  #makeContext(): Context & CpuBurner {
    return new ActorCell.#CellContext(this);
  }

  /**
   * The context a cell hands its actor, and its storage: classes, so that
   * `ctx.now()`, `ctx.setTimer()`, `ctx.storage.append()`... are the same
   * functions for every actor of every run. Made of closures per cell, they
   * gave each call site in actor code a target per cell: a site that had
   * seen one cell's closures (the coordinator's) was optimized for them and
   * threw its optimized code away when the next run's cell came (seven
   * functions in the second chaos-consumer run of a process), and a site
   * that many members share saw many targets. Nested in ActorCell to reach
   * its private state.
   */
  static readonly #CellStorage = class CellStorage implements DurableLog {
    readonly #cell: ActorCell;

    constructor(cell: ActorCell) {
      this.#cell = cell;
    }

    append(record: unknown): void {
      const cell = this.#cell;
      const sink = cell.#sink;
      const storage = cell.#options.storage;
      if (sink.appended === undefined) storage.append(record);
      else sink.appended(cell.id, storage.appendAndEncode(record));
    }

    readAll(): unknown[] {
      return this.#cell.#options.storage.readAll();
    }

    get length(): number {
      return this.#cell.#options.storage.length;
    }
  };

  /** What the connection endpoint may do through its cell: a class for the reason given at #CellStorage. */
  static readonly #CellPort = class CellPort implements ConnectionPort {
    readonly random: UniformSource;
    readonly #cell: ActorCell;

    constructor(cell: ActorCell) {
      this.#cell = cell;
      this.random = cell.#netRng.next;
    }

    now(): Micros {
      return this.#cell.#now;
    }

    route(to: ActorId, message: Message, wireId: ConnectionWireId, toRank?: number): void {
      this.#cell.#send(to, message, wireId, toRank);
    }

    rankOf(actor: ActorId): number {
      const rankOf = this.#cell.#options.rankOf;
      return rankOf === undefined ? -1 : rankOf(actor);
    }

    snapshot(message: Message): Message {
      // From now on the message is what the connection will send: frozen, as it is once sent.
      if (this.#cell.#options.messages !== "raw") deepFreeze(message);
      return message;
    }

    dispatch(from: ActorId, message: Message): void {
      this.#cell.#deliverToActor(from, message);
    }

    armTimer(name: string, afterUs: Micros): void {
      this.#cell.#armTimer(name, afterUs);
    }

    cancelTimer(name: string): void {
      this.#cell.#cancelTimer(name);
    }

    record(event: ConnectionEvent): void {
      const cell = this.#cell;
      cell.#sink.connection(cell.id, cell.#now, event);
    }

    lost(from: ActorId, msgType: string, why: string): void {
      const cell = this.#cell;
      cell.#sink.lost(cell.id, cell.#now, from, msgType, why);
    }

    nextGen(): number {
      return ++this.#cell.#seq;
    }
  };

  static readonly #CellContext = class CellContext implements Context, CpuBurner {
    readonly self: ActorId;
    readonly storage: DurableLog;
    readonly log: ActorLogger;
    /** Its own function (the stream's, bound): `ctx.random` is a UniformSource that may be handed around. */
    readonly random: () => number;
    readonly #cell: ActorCell;

    constructor(cell: ActorCell) {
      this.#cell = cell;
      this.random = cell.#rng.next;
      this.self = cell.id;
      this.storage = new ActorCell.#CellStorage(cell);
      this.log = cell.#options.logger;
    }

    now(): Micros {
      const cell = this.#cell;
      return cell.#now + cell.#clockOffset;
    }

    send(to: ActorId, message: Message, connection = ""): void {
      const cell = this.#cell;
      const endpoint = cell.#endpoint;
      if (endpoint === null) cell.#send(to, message, 0);
      else endpoint.send(to, message, connection);
    }

    closeConnection(to: ActorId, connection = ""): void {
      this.#cell.#endpoint?.close(to, connection, "closed by its client: a request timed out");
    }

    configureConnections(settings: ConnectionSettings): void {
      this.#cell.#endpoint?.configure(settings);
    }

    setTimer(name: string, after: Micros): void {
      if (name.startsWith("$")) throw new RangeError(`timer names starting with $ are reserved: ${name}`);
      this.#cell.#armTimer(name, after);
    }

    cancelTimer(name: string): void {
      this.#cell.#cancelTimer(name);
    }

    hasTimer(name: string): boolean {
      const timer = this.#cell.#timers.get(name);
      return timer !== undefined && timer.seq !== DISARMED;
    }

    observe(observation: Observation): void {
      const cell = this.#cell;
      cell.#sink.observe(cell.id, cell.#now, observation);
    }

    burnCpu(micros: Micros): void {
      this.#cell.#options.burnCpu?.(micros);
    }
  };
}
