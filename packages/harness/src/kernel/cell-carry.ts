import type { Micros } from "@kcsim/protocol";

export type CellState = "unstarted" | "running" | "crashed" | "stopped";

/**
 * What of an actor's cell outlives its process: everything but the actor
 * instance, its timers and its held events. A worker host rebuilds a
 * crashed actor in a fresh worker from its carry and its durable log (which
 * travels separately), so the restart continues the same sequence numbers,
 * clock offset and random stream as a restart in the same thread would.
 */
export interface CellCarry {
  readonly state: CellState;
  readonly seq: number;
  readonly clockOffset: Micros;
  readonly rng: readonly number[];
  /** The kernel's network stream (reconnect jitter). */
  readonly netRng: readonly number[];
}
