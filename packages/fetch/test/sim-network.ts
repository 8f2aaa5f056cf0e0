import {
  type Actor,
  type ActorFactory,
  type ActorId,
  type ActorLogger,
  type Context,
  type ControlCommand,
  type DurableLog,
  decode,
  encode,
  type JsonValue,
  type Message,
  type Micros,
  ms,
  type Observation,
  streamFor,
} from "@kcsim/protocol";

/**
 * A small deterministic host for the data-path tests (the harness may not be
 * imported here): actors exchange messages through the codec with a fixed
 * link latency, timers and messages run in (time, sequence) order on one
 * virtual clock, and an actor can be crashed (volatile state and timers
 * lost, storage kept), restarted, or cut off from others.
 *
 * Like the harness, the host of a process that is not running (crashed, or
 * not yet started) resets the connection: every message that reaches it is
 * answered with a SimDisconnect from it (never a SimDisconnect itself). A
 * message the network drops (`dropIf`) reaches nobody and gets no answer.
 */

/** Why a process is not running, as the SimDisconnect it answers with says. */
type DownState = "unstarted" | "crashed";

interface Cell {
  readonly id: ActorId;
  readonly factory: ActorFactory;
  readonly config: JsonValue;
  readonly storage: MemoryLog;
  readonly random: () => number;
  actor: Actor | null;
  /** Why `actor` is null (what a SimDisconnect from this cell says). */
  down: DownState;
  /** Timer name -> the sequence number of its armed event (re-arming replaces it). */
  readonly timers: Map<string, number>;
  ctx: Context | null;
}

type Event =
  | {
      readonly at: Micros;
      readonly seq: number;
      readonly kind: "message";
      readonly from: ActorId;
      readonly to: ActorId;
      readonly frame: Uint8Array;
    }
  | { readonly at: Micros; readonly seq: number; readonly kind: "timer"; readonly to: ActorId; readonly name: string };

/** A durable log kept as JSON copies, so a restarted actor never shares objects with the crashed one. */
class MemoryLog implements DurableLog {
  readonly #records: string[] = [];

  append(record: unknown): void {
    this.#records.push(JSON.stringify(record));
  }

  readAll(): unknown[] {
    return this.#records.map((r) => JSON.parse(r) as unknown);
  }

  get length(): number {
    return this.#records.length;
  }
}

const silent: ActorLogger = { debug() {}, info() {}, warn() {}, error() {} };

export interface Observed {
  readonly at: Micros;
  readonly actor: ActorId;
  readonly event: Observation;
}

export interface Delivered {
  readonly at: Micros;
  readonly from: ActorId;
  readonly to: ActorId;
  readonly message: Message;
}

export class SimNetwork {
  readonly latency: Micros;
  readonly seed: number;
  readonly observations: Observed[] = [];
  /** Messages delivered to actors whose id starts with "client" (test probes), in order. */
  readonly inbox: Delivered[] = [];
  #now: Micros = 0;
  #seq = 0;
  readonly #cells = new Map<ActorId, Cell>();
  readonly #heap: Event[] = [];
  /** Drops a message when it returns true (network faults). */
  dropIf: ((from: ActorId, to: ActorId, message: Message) => boolean) | null = null;
  /** Sees every message put on the network (its send time is `now`), whether or not it arrives. */
  onSend: ((from: ActorId, to: ActorId, message: Message) => void) | null = null;
  /** Sees every message delivered to a live actor. */
  onDeliver: ((from: ActorId, to: ActorId, message: Message) => void) | null = null;
  /** Whether a process that is not running answers what reaches it with a SimDisconnect (the harness always does). */
  readonly resetsConnections: boolean;

  constructor(options: { latencyMs?: number; seed?: number; resetsConnections?: boolean } = {}) {
    this.latency = ms(options.latencyMs ?? 1);
    this.seed = options.seed ?? 1;
    this.resetsConnections = options.resetsConnections ?? true;
  }

  get now(): Micros {
    return this.#now;
  }

  add(id: ActorId, factory: ActorFactory, config: JsonValue): this {
    this.#cells.set(id, {
      id,
      factory,
      config,
      storage: new MemoryLog(),
      random: streamFor(this.seed, id).next,
      actor: null,
      down: "unstarted",
      timers: new Map(),
      ctx: null,
    });
    return this;
  }

  /** A probe actor ("client-...") that only records what it receives. */
  addClient(id: ActorId): this {
    return this.add(id, () => ({ start() {}, receive() {}, fire() {} }), null);
  }

  startAll(): void {
    for (const id of this.#cells.keys()) this.start(id);
  }

  start(id: ActorId): void {
    const cell = this.#cell(id);
    cell.actor = cell.factory(id, cell.config);
    cell.ctx = this.#contextFor(cell);
    cell.actor.start(cell.ctx);
  }

  crash(id: ActorId): void {
    const cell = this.#cell(id);
    cell.actor = null;
    cell.down = "crashed";
    cell.ctx = null;
    cell.timers.clear();
  }

  restart(id: ActorId): void {
    this.crash(id);
    this.start(id);
  }

  isUp(id: ActorId): boolean {
    return this.#cell(id).actor !== null;
  }

  actor<A extends Actor>(id: ActorId): A {
    const actor = this.#cell(id).actor;
    if (actor === null) throw new Error(`${id} is down`);
    return actor as A;
  }

  snapshot(id: ActorId): JsonValue {
    return this.actor(id).snapshot?.() ?? null;
  }

  control(id: ActorId, command: ControlCommand): void {
    const cell = this.#cell(id);
    cell.actor?.control?.(command, cell.ctx as Context);
  }

  /** Sends a message on behalf of `from` (usually a client probe). */
  send(from: ActorId, to: ActorId, message: Message): void {
    this.#enqueueMessage(from, to, message);
  }

  /** Runs events up to and including time `until`. */
  runUntil(until: Micros): void {
    for (;;) {
      const next = this.#heap[0];
      if (next === undefined || next.at > until) break;
      this.#pop();
      this.#now = next.at;
      this.#dispatch(next);
    }
    this.#now = until;
  }

  runFor(duration: Micros): void {
    this.runUntil(this.#now + duration);
  }

  /** Runs until `condition` holds (checked after each event) or `limit` passes; returns whether it held. */
  runUntilTrue(condition: () => boolean, limit: Micros): boolean {
    const deadline = this.#now + limit;
    if (condition()) return true;
    for (;;) {
      const next = this.#heap[0];
      if (next === undefined || next.at > deadline) {
        this.#now = deadline;
        return condition();
      }
      this.#pop();
      this.#now = next.at;
      this.#dispatch(next);
      if (condition()) return true;
    }
  }

  /** Client inbox messages of one type, optionally with one correlation id. */
  received<T extends Message["type"]>(type: T, correlationId?: number): (Delivered & { message: Extract<Message, { type: T }> })[] {
    return this.inbox.filter(
      (d) =>
        d.message.type === type &&
        (correlationId === undefined || ("correlationId" in d.message && d.message.correlationId === correlationId)),
    ) as (Delivered & { message: Extract<Message, { type: T }> })[];
  }

  observed(type: string): Observed[] {
    return this.observations.filter((o) => o.event.type === type);
  }

  #cell(id: ActorId): Cell {
    const cell = this.#cells.get(id);
    if (cell === undefined) throw new Error(`unknown actor ${id}`);
    return cell;
  }

  #contextFor(cell: Cell): Context {
    return {
      self: cell.id,
      now: () => this.#now,
      send: (to, message) => this.#enqueueMessage(cell.id, to, message),
      setTimer: (name, after) => {
        const seq = ++this.#seq;
        cell.timers.set(name, seq);
        this.#push({ at: this.#now + Math.max(0, Math.round(after)), seq, kind: "timer", to: cell.id, name });
      },
      cancelTimer: (name) => {
        cell.timers.delete(name);
      },
      closeConnection: () => {},
      configureConnections: () => {},
      hasTimer: (name) => cell.timers.has(name),
      random: () => cell.random(),
      observe: (event) => {
        this.observations.push({ at: this.#now, actor: cell.id, event });
      },
      storage: cell.storage,
      log: silent,
    };
  }

  #enqueueMessage(from: ActorId, to: ActorId, message: Message): void {
    // Every message goes through the codec, which checks its shape.
    const frame = encode(message);
    this.onSend?.(from, to, message);
    this.#push({ at: this.#now + this.latency, seq: ++this.#seq, kind: "message", from, to, frame });
  }

  #dispatch(event: Event): void {
    const cell = this.#cells.get(event.to);
    if (cell === undefined) return;
    if (event.kind === "timer") {
      if (cell.actor === null || cell.timers.get(event.name) !== event.seq) return;
      cell.timers.delete(event.name);
      cell.actor.fire(event.name, cell.ctx as Context);
      return;
    }
    const message = decode(event.frame);
    if (this.dropIf?.(event.from, event.to, message)) return;
    if (cell.actor === null) {
      // The dead process's host resets the connection (never in answer to a reset).
      if (this.resetsConnections && message.type !== "SimDisconnect")
        this.#enqueueMessage(event.to, event.from, { type: "SimDisconnect", reason: cell.down, connection: "*" });
      return;
    }
    this.onDeliver?.(event.from, event.to, message);
    if (event.to.startsWith("client")) this.inbox.push({ at: this.#now, from: event.from, to: event.to, message });
    cell.actor.receive(event.from, message, cell.ctx as Context);
  }

  // A binary heap ordered by (time, sequence).
  #push(event: Event): void {
    const heap = this.#heap;
    heap.push(event);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(heap[i] as Event, heap[parent] as Event)) break;
      [heap[i], heap[parent]] = [heap[parent] as Event, heap[i] as Event];
      i = parent;
    }
  }

  #pop(): void {
    const heap = this.#heap;
    const last = heap.pop() as Event;
    if (heap.length === 0) return;
    heap[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let smallest = i;
      if (l < heap.length && before(heap[l] as Event, heap[smallest] as Event)) smallest = l;
      if (r < heap.length && before(heap[r] as Event, heap[smallest] as Event)) smallest = r;
      if (smallest === i) break;
      [heap[i], heap[smallest]] = [heap[smallest] as Event, heap[i] as Event];
      i = smallest;
    }
  }
}

function before(a: Event, b: Event): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}
