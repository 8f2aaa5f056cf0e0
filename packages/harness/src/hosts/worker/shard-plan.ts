import { availableParallelism } from "node:os";
import type { ActorId } from "@kcsim/protocol";

/** How many actors share a worker thread: a number, or "auto" (one worker per core). */
export type ActorsPerWorker = number | "auto";

/**
 * "auto" runs one worker per core (never more workers than actors), less
 * the cores a host's main thread keeps for itself. A worker costs ~0.1-0.5 s
 * to start and ~10 MB here, and every worker woken in a lockstep window
 * costs a thread wake-up: 100 ping-pong actors ran 4x slower than inline on
 * 2 workers, 27x on 15, 110x on 100 (bench "lockstep", this 2-core machine).
 * CPU-bound realtime actors gain nothing from more workers than cores
 * either (bench "realtime-cpu").
 */
export function autoWorkerCount(actors: number, cores = availableParallelism(), mainThreadCores = 0): number {
  return Math.max(1, Math.min(actors, cores - mainThreadCores));
}

/**
 * Splits actors (in spec order) into the groups that share a worker;
 * `mainThreadCores` is what "auto" leaves to the host's main thread.
 */
export function planShards(actors: readonly ActorId[], perWorker: ActorsPerWorker = 1, mainThreadCores = 0): ActorId[][] {
  if (actors.length === 0) return [];
  const size =
    perWorker === "auto"
      ? Math.ceil(actors.length / autoWorkerCount(actors.length, availableParallelism(), mainThreadCores))
      : Math.max(1, Math.floor(perWorker));
  const shards: ActorId[][] = [];
  for (let i = 0; i < actors.length; i += size) shards.push(actors.slice(i, i + size));
  return shards;
}

/** Parses --actors-per-worker: a positive integer or "auto"; null if neither. */
export function parseActorsPerWorker(text: string): ActorsPerWorker | null {
  if (text === "auto") return "auto";
  return /^[1-9]\d*$/.test(text) ? Number(text) : null;
}
