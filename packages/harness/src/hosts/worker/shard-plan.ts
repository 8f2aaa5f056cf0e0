import { availableParallelism } from "node:os";
import type { ActorId } from "@kcsim/protocol";

/** How many actors share a worker thread: a number, or "auto". */
export type ActorsPerWorker = number | "auto";

/**
 * "auto" keeps one actor per worker for small groups (isolation is the
 * point, and they start fast) and shards large groups: a worker costs
 * ~40-80 ms to start and ~10 MB, and on a machine with few cores many
 * runnable threads only add wake-ups (bench "worker-hosts").
 */
export const AUTO_SOLO_LIMIT = 16;

export function autoWorkerCount(actors: number, cores = availableParallelism()): number {
  if (actors <= AUTO_SOLO_LIMIT) return actors;
  return Math.min(actors, Math.max(AUTO_SOLO_LIMIT, 4 * cores));
}

/** Splits actors (in spec order) into the groups that share a worker. */
export function planShards(actors: readonly ActorId[], perWorker: ActorsPerWorker = 1): ActorId[][] {
  if (actors.length === 0) return [];
  const size =
    perWorker === "auto" ? Math.ceil(actors.length / autoWorkerCount(actors.length)) : Math.max(1, Math.floor(perWorker));
  const shards: ActorId[][] = [];
  for (let i = 0; i < actors.length; i += size) shards.push(actors.slice(i, i + size));
  return shards;
}

/** Parses --actors-per-worker: a positive integer or "auto"; null if neither. */
export function parseActorsPerWorker(text: string): ActorsPerWorker | null {
  if (text === "auto") return "auto";
  return /^[1-9]\d*$/.test(text) ? Number(text) : null;
}
