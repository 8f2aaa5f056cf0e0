import type { Micros } from "@kcsim/protocol";

/**
 * The harness's one extension of an actor's Context (the protocol's
 * Context interface is unchanged): `burnCpu(micros)` spends that much real
 * CPU time on the calling thread. It models slow processing that occupies a
 * real core (a member processing records), so throughput experiments in the
 * worker hosts use real cores. In the inline host it does nothing, so
 * virtual-time runs stay fast; in every host it leaves virtual time alone.
 *
 * An actor uses it without depending on the harness:
 *   (ctx as Context & { burnCpu?(micros: number): void }).burnCpu?.(us)
 */
export interface CpuBurner {
  burnCpu(micros: Micros): void;
}

/** Spins for `micros` microseconds of wall time (a busy loop: it holds its core). */
export function spinFor(micros: Micros): void {
  if (!(micros > 0)) return;
  const end = performance.now() + micros / 1000;
  let x = 0;
  while (performance.now() < end) {
    for (let i = 0; i < 200; i++) x = (x * 31 + i) | 0;
  }
  if (x === 0.5) throw new Error("unreachable"); // keeps the loop from being optimised away
}
