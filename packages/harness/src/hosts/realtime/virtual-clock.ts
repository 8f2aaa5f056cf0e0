import type { Micros } from "@kcsim/protocol";

/** Wall-clock milliseconds that mean the same instant in every thread (performance.now() alone does not). */
export function wallMs(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * The realtime host's clock: virtual microseconds = real elapsed time since
 * the epoch / timeScale. With timeScale 0.01 a 45 s session timeout takes
 * 450 ms of wall time. Every thread builds one from the same epoch.
 */
export class VirtualClock {
  readonly epochMs: number;
  readonly timeScale: number;
  readonly #wall: () => number;

  constructor(epochMs: number, timeScale: number, wall: () => number = wallMs) {
    if (!(timeScale > 0) || !Number.isFinite(timeScale)) throw new RangeError(`timeScale must be a positive number, got ${timeScale}`);
    this.epochMs = epochMs;
    this.timeScale = timeScale;
    this.#wall = wall;
  }

  now(): Micros {
    return Math.max(0, Math.floor(((this.#wall() - this.epochMs) * 1000) / this.timeScale));
  }

  /** Real milliseconds until virtual time `due` (negative when it is past). */
  realDelayMs(due: Micros): number {
    return (due * this.timeScale) / 1000 + this.epochMs - this.#wall();
  }
}
