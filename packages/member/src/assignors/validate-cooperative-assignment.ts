import type { TopicPartition } from "@kcsim/protocol";
import { compareTp } from "@kcsim/protocol";
import { keyOf } from "./topic-partitions.js";

/** An assignment that hands a partition straight from one owner to another under COOPERATIVE. */
export class CooperativeAssignmentError extends Error {
  override readonly name = "CooperativeAssignmentError";
  constructor(readonly partitions: readonly TopicPartition[]) {
    super(
      "Assignor supporting the COOPERATIVE protocol violates its requirements: " +
        `partitions reassigned while still owned by some members: ${partitions.map(keyOf).join(", ")}`,
    );
  }
}

/**
 * `ConsumerCoordinator.validateCooperativeAssignment`: no partition may be
 * added to one member while being revoked from another in the same round; it
 * must first be revoked and only handed out in the next rebalance. Throws a
 * `CooperativeAssignmentError` naming the offending partitions (sorted).
 * A member missing from `owned` owns nothing.
 */
export function validateCooperativeAssignment(
  owned: ReadonlyMap<string, readonly TopicPartition[]>,
  assignments: ReadonlyMap<string, { readonly partitions: readonly TopicPartition[] }>,
): void {
  const added = new Map<string, TopicPartition>();
  const revoked = new Set<string>();
  for (const [memberId, { partitions }] of assignments) {
    const ownedKeys = new Set((owned.get(memberId) ?? []).map(keyOf));
    const assignedKeys = new Set(partitions.map(keyOf));
    for (const tp of partitions) if (!ownedKeys.has(keyOf(tp))) added.set(keyOf(tp), tp);
    for (const tp of owned.get(memberId) ?? []) if (!assignedKeys.has(keyOf(tp))) revoked.add(keyOf(tp));
  }
  const moved = [...added].filter(([key]) => revoked.has(key)).map(([, tp]) => tp);
  if (moved.length > 0) throw new CooperativeAssignmentError(moved.sort(compareTp));
}
