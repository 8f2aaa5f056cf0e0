import type { Message } from "./messages/index.js";
import type { Micros } from "./time.js";

/**
 * The actor contract (DESIGN.md "One actor code, three hosts"). An actor
 * never reads a clock, a random source, a socket, a thread or a global on
 * its own: everything comes from the Context it is handed, which is what
 * lets the same code run inline, lockstep and realtime.
 */
export type ActorId = string;

/** A JSON value: what observations and control commands may carry. */
export type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/**
 * Something an actor reports for checkers, metrics and reports. `type` names
 * the event ("member.state", "gc.assignment", ...); each package documents
 * the observations it emits in its own `observations.ts`.
 */
export interface Observation {
  readonly type: string;
  readonly [field: string]: JsonValue;
}

/**
 * A command from the harness's nemesis or a scenario step, delivered in the
 * total order like any other event: `pause-app`, `resume-app`, `close`,
 * `set-processing-cost`, ... An actor ignores commands it does not know.
 */
export interface ControlCommand {
  readonly command: string;
  readonly [field: string]: JsonValue;
}

/**
 * An actor's durable storage: an append-only log of records that survives
 * a crash of the actor (its volatile state does not). A restarted actor
 * rebuilds itself by reading it. Records must be plain data (msgpack-able).
 */
export interface DurableLog<R = unknown> {
  append(record: R): void;
  /** Every record appended so far, oldest first (copies: mutating them changes nothing). */
  readAll(): R[];
  readonly length: number;
}

/** A structured log line (pino underneath in the worker hosts). */
export interface ActorLogger {
  debug(message: string, fields?: Record<string, JsonValue>): void;
  info(message: string, fields?: Record<string, JsonValue>): void;
  warn(message: string, fields?: Record<string, JsonValue>): void;
  error(message: string, fields?: Record<string, JsonValue>): void;
}

/** How an actor's kernel opens connections (Kafka's ClusterConnectionStates settings, in milliseconds). */
export interface ConnectionSettings {
  readonly reconnectBackoffMs: number;
  readonly reconnectBackoffMaxMs: number;
  readonly connectionSetupTimeoutMs: number;
  readonly connectionSetupTimeoutMaxMs: number;
}

/** Kafka's client defaults (CommonClientConfigs). */
export const DEFAULT_CONNECTION_SETTINGS: ConnectionSettings = {
  reconnectBackoffMs: 50,
  reconnectBackoffMaxMs: 1000,
  connectionSetupTimeoutMs: 10_000,
  connectionSetupTimeoutMaxMs: 30_000,
};

export interface Context {
  /** This actor's id. */
  readonly self: ActorId;
  /** Current time in integer microseconds (virtual in inline/lockstep, real in realtime). */
  now(): Micros;
  /**
   * Sends a message through the router. On the default network a request
   * rides this actor's connection `connection` to `to` ("" = its ordinary
   * connection to that node; a client that keeps a second one, as Kafka's
   * consumer does for its group coordinator, names it), opened on first use
   * and after a break once the reconnect backoff has passed; a response
   * rides the connection its request came on. The connection delivers in
   * order and at most once; when it breaks, the actor gets a SimDisconnect
   * and every request in flight on it has failed. In datagram mode the
   * router may drop, delay, duplicate or reorder each message on its own.
   */
  send(to: ActorId, message: Message, connection?: string): void;
  /**
   * Closes this actor's connection `connection` to `to`, as Kafka's
   * NetworkClient does when a request on it times out: whatever is in flight
   * on it is abandoned (responses that still come are dropped) and the next
   * send opens a new connection after the reconnect backoff. The actor fails
   * its own requests; no SimDisconnect follows.
   */
  closeConnection(to: ActorId, connection?: string): void;
  /**
   * The client side of this actor's connections: reconnect.backoff.ms and
   * reconnect.backoff.max.ms, socket.connection.setup.timeout.ms and
   * socket.connection.setup.timeout.max.ms (Kafka's defaults until set).
   */
  configureConnections(settings: ConnectionSettings): void;
  /** Arms the timer `name` to fire after `after` microseconds; re-arming replaces it. */
  setTimer(name: string, after: Micros): void;
  cancelTimer(name: string): void;
  /** Whether the timer `name` is armed. */
  hasTimer(name: string): boolean;
  /**
   * This actor's own seeded random stream: a float in [0, 1). Use the
   * helpers in `random.ts` (randomInt, normal, ...) for other shapes.
   */
  random(): number;
  /** Reports an event to the history (checkers, metrics, reports). */
  observe(event: Observation): void;
  /** Storage that survives a crash of this actor. */
  readonly storage: DurableLog;
  readonly log: ActorLogger;
}

export interface Actor {
  /** Called once when the actor starts, and again (on a fresh instance) after each restart. */
  start(ctx: Context): void;
  receive(from: ActorId, message: Message, ctx: Context): void;
  fire(timer: string, ctx: Context): void;
  /** Handles a harness command; unknown commands are ignored. */
  control?(command: ControlCommand, ctx: Context): void;
  /**
   * The host's wall clock was stepped (ctx.now() jumped by the step). Most
   * code sees a step only the next time it runs; an actor with a thread
   * that reads the clock on a short period (Kafka's classic heartbeat
   * thread wakes every retry.backoff.ms) looks at it here, as that thread
   * would within its period. Called only while the process runs (a paused
   * one is called when it resumes).
   */
  clockStepped?(ctx: Context): void;
  /** A JSON picture of the actor's state, for the control plane and reports. */
  snapshot?(): JsonValue;
}

/**
 * How the harness builds actors: a factory per actor kind, taking the
 * actor's JSON configuration. Worker hosts rebuild actors from the same
 * (kind, config) pair, so configs must be JSON.
 */
export type ActorFactory = (id: ActorId, config: JsonValue) => Actor;
