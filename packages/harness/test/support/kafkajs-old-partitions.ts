import type { Violation } from "../../src/checkers/checker.js";

/** One `member.owned` observation: who owned what of each topic from time `t`. */
export interface OwnedAt {
  readonly t: number;
  readonly actor: string;
  readonly owned: Readonly<Record<string, readonly number[]>>;
}

/**
 * Whether a contiguous-offsets violation has the shape of KafkaJS 2.2.4's bug
 * (the README's "KafkaJS 2.2.4 goes back to its old partitions when a rejoin
 * fails"): when a rejoin fails, or a heartbeat finds the member gone, its
 * runner goes on fetching the assignment it held before. So the partition it
 * was handed belongs to that client's last assignment, and the client owned
 * nothing when it was handed it (it had revoked or lost everything). A
 * partition the client never held, or one handed to it under a newer
 * assignment, does not have this shape.
 */
export function isBackToOldPartitions(violation: Violation, owned: Iterable<OwnedAt>): boolean {
  const found = /^(\S+) was handed records of (\S+)-(\d+), which it did not own$/.exec(violation.message);
  if (found === null) return false;
  const [, actor, topic, partition] = found as unknown as [string, string, string, string];
  let now: readonly number[] = [];
  let lastHeld: readonly number[] = [];
  for (const o of owned) {
    if (o.actor !== actor || o.t > violation.t) continue;
    now = o.owned[topic] ?? [];
    if (now.length > 0) lastHeld = now;
  }
  return now.length === 0 && lastHeld.includes(Number(partition));
}
