import type { ActorId, Micros } from "@kcsim/protocol";
import type { CellCarry } from "../../kernel/cell-carry.js";
import type { ActorReport, ControlTuple, DeliveryTuple, Effect, ShardActorInit, ShardSettings } from "../lockstep/shard-protocol.js";
import type { LogLevel } from "../worker/actor-logs.js";

/**
 * What the main thread and a realtime shard worker say to each other.
 * Data plane (the worker's data port): deliveries go in as one msgpack
 * buffer per worker per delivery round (DeliveryBatch), effects come out as
 * one buffer per worker per turn of its event loop (EffectBatch).
 * Control plane (comlink, RealtimeShardControl): setup, the clock, process
 * faults and commands, snapshots, logs, stop.
 */
export interface RealtimeShardInit extends ShardSettings {
  readonly actors: readonly ShardActorInit[];
  readonly registryModule: string | null;
  readonly logLevel: LogLevel;
  /** One log file per actor in this directory (null: stderr). */
  readonly logDir: string | null;
  readonly timeScale: number;
  /** Wall-clock ms (performance.timeOrigin + performance.now()) of virtual time 0; null until the run begins. */
  readonly epochMs: number | null;
}

export type DeliveryBatch = readonly DeliveryTuple[];

/** A timer event as the worker ran it: [2 = timer, due, origin, seq, sub, to, name]. */
export type TimerTuple = readonly [2, Micros, string, number, number, ActorId, string];

/**
 * One event an actor's cell handled, at virtual time `t`: a delivery by its
 * key (the main thread knows its payload), a timer, or a control event.
 */
export type RunRecord =
  | readonly [actor: ActorId, t: Micros, kind: 0, origin: string, seq: number, sub: number]
  | readonly [actor: ActorId, t: Micros, kind: 1, event: ControlTuple]
  | readonly [actor: ActorId, t: Micros, kind: 2, event: TimerTuple];

export type EffectBatch = readonly [
  batch: number,
  effects: readonly Effect[],
  runs: readonly RunRecord[],
  carries: readonly (readonly [ActorId, CellCarry])[],
];

/** The control plane of a realtime shard worker (comlink). */
export interface RealtimeShardControl {
  /** Answers once the worker has loaded its modules (a warm spare is one that answered). */
  ping(): boolean;
  init(init: RealtimeShardInit): Promise<void>;
  /** Builds one more actor's cell here (an actor restarted in this worker). */
  adopt(actor: ShardActorInit): void;
  /** Starts the clock: virtual time 0 is wall-clock `epochMs`. */
  begin(epochMs: number): void;
  /** Applies a control event (start, crash, pause, resume, clock-step, restart, command) to one actor now. */
  control(event: ControlTuple): void;
  snapshot(): Record<ActorId, ActorReport>;
  /** Stops timers and delivery, sends the last effect batch; returns its number (0 = none sent). */
  stop(): number;
  flushLogs(): void;
}
