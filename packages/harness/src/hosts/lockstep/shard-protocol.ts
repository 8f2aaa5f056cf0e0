import type { ActorId, JsonValue, Micros, Observation } from "@kcsim/protocol";
import type { LifecycleEvent, RestartPolicy } from "../../kernel/actor-cell.js";
import type { CellCarry } from "../../kernel/cell-carry.js";
import type { ConnectionEvent } from "../../kernel/connection-endpoint.js";
import type { ControlAction } from "../../kernel/event.js";
import type { SimulationSpec } from "../../kernel/simulation-spec.js";
import type { NetworkMode } from "../../router/fault-plan.js";
import type { LogLevel } from "../worker/actor-logs.js";

/**
 * What the main thread and a lockstep shard worker say to each other.
 * Setup, snapshots and logs go over the comlink control plane
 * (LockstepShardControl); windows go over the data plane as one msgpack
 * buffer per shard per window, each way. Protocol messages inside stay
 * msgpack frames (bytes) end to end. Events and effects are tuples, not
 * objects: they are encoded and decoded for every event of the run.
 */
/** How windows travel: shared memory with Atomics wake-ups (default), or postMessage with a transferred buffer. */
export type LockstepTransport = "shared" | "port";

export interface ShardActorInit {
  readonly id: ActorId;
  /** The actor's origin rank in the run (OriginRanks): its timers are keyed with it. */
  readonly rank: number;
  readonly kind: string;
  readonly config: JsonValue;
  /** The actor's durable log so far (encoded records), for an actor restarted in a new worker. */
  readonly log: readonly Uint8Array[];
  /** Present when the actor's process died elsewhere and is rebuilt here (see CellCarry). */
  readonly carry?: CellCarry;
}

export interface ShardSettings {
  readonly seed: number;
  readonly useCodec: boolean;
  readonly network: NetworkMode;
  readonly restartPolicy: RestartPolicy;
}

/** The settings every shard of a run shares, from its spec. */
export function shardSettingsOf(spec: SimulationSpec): ShardSettings {
  return { seed: spec.seed, useCodec: spec.useCodec, network: spec.plan.network.mode, restartPolicy: spec.restartPolicy };
}

export interface ShardInit extends ShardSettings {
  readonly actors: readonly ShardActorInit[];
  /** A built module exporting the actor `registry`; null = the default registry. */
  readonly registryModule: string | null;
  readonly logLevel: LogLevel;
  /** One log file per actor in this directory (null: stderr). */
  readonly logDir: string | null;
  /** Burn real CPU for ctx.burnCpu (the worker hosts do; off only for tests that want speed). */
  readonly burnCpu: boolean;
}

/** An event on its way to a shard: [0 = deliver, due, origin, rank, seq, sub, to, from, msgType, payload, conn, lostWithBreak (1) or 0]. */
export type DeliveryTuple = readonly [
  0,
  Micros,
  string,
  number,
  number,
  number,
  ActorId,
  ActorId,
  string,
  Uint8Array | JsonValue,
  number,
  0 | 1,
];
/** [1 = control, due, origin, rank, seq, sub, to, action]. */
export type ControlTuple = readonly [1, Micros, string, number, number, number, ActorId, ControlAction];
export type EventTuple = DeliveryTuple | ControlTuple;

/**
 * Run every event of the window with a due time <= limit, in key order, the shard's own timers included.
 * `reach` and `lookahead` come with a window that only this shard has work in: it then runs on with its own
 * timers up to `reach` while nothing sent can have arrived (one `lookahead` after the window's first send),
 * and leaves out the groups without effects (ShardRuntime.runWindow).
 */
export type WindowRequest = readonly [
  limit: Micros,
  events: readonly EventTuple[],
  carryOf: readonly ActorId[],
  reach?: Micros,
  lookahead?: Micros,
];

/** One effect of a cell, in the order the actor produced it. */
export type Effect =
  | readonly ["send", ActorId, ActorId, number, Micros, string, Uint8Array | JsonValue, number, number]
  | readonly ["conn", ActorId, Micros, ConnectionEvent]
  | readonly ["obs", ActorId, Micros, Observation]
  | readonly ["append", ActorId, Uint8Array]
  | readonly ["life", ActorId, Micros, LifecycleEvent, string | null]
  | readonly ["error", ActorId, Micros, string, string, string]
  | readonly ["reject", ActorId, Micros, ActorId, string, string]
  | readonly ["lost", ActorId, Micros, ActorId, string, string];

/**
 * The effects of one handled event (possibly none), tagged with its key
 * (due, origin rank, seq, sub). A shard reports its events in the order it
 * handled them: key order, except that a timer armed with no delay runs
 * right after the event that armed it even when its key is smaller (its
 * origin sorts first), exactly as in the inline host's queue.
 */
export type EffectGroup = readonly [due: Micros, rank: number, seq: number, sub: number, effects: readonly Effect[]];

/** A carry the main thread asked for, with the number of timers the cell still has armed. */
export type CarryReport = readonly [ActorId, CellCarry, number];

export type WindowReply = readonly [
  groups: readonly EffectGroup[],
  nextDue: Micros | null,
  carries: readonly CarryReport[],
  timersRun: number,
  /** The virtual time the shard ran through (the request's limit, or further when it ran on). */
  reached: Micros,
];

/** An actor's process state and snapshot, as RunResult reports it. */
export interface ActorReport {
  readonly state: string;
  readonly snapshot: JsonValue;
}

/** The control plane of a lockstep shard worker (comlink). */
export interface LockstepShardControl {
  /** Answers once the worker has loaded its modules. */
  ping(): boolean;
  /** Builds the shard's cells; returns the earliest armed timer (none yet: null). */
  init(init: ShardInit): Promise<Micros | null>;
  /**
   * Serves windows from the shared-memory channel until told to stop
   * (shared transport); the worker's event loop is blocked meanwhile, so
   * every other call waits until this one returns.
   */
  serve(channel: SharedArrayBuffer): void;
  /** Serves windows from the data port (port transport). */
  listen(): void;
  snapshot(): Record<ActorId, ActorReport>;
  flushLogs(): void;
}
