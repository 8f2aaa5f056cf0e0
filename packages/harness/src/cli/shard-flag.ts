import type { Shard } from "../hunt/seed-shard.js";
import { UsageError } from "./usage-error.js";

/** `--shard I/N` (1 <= I <= N): run every N-th seed starting at the I-th; null when the flag is absent. */
export function shardFlag(command: string, value: string | undefined): Shard | null {
  if (value === undefined) return null;
  const match = /^(\d+)\/(\d+)$/.exec(value);
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (match === null || !Number.isSafeInteger(count) || count < 1 || index < 1 || index > count)
    throw new UsageError(`${command}: --shard must be I/N with 1 <= I <= N, got '${value}'`);
  return { index, count };
}
