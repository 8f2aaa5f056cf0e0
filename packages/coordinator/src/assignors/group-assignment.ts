import type { TopicIdPartitions } from "../topic-id-partitions.js";
import type { AssignmentMemberSpec } from "./group-spec.js";

/** The target assignment computed for one member. */
export interface MemberAssignment {
  readonly memberId: string;
  /**
   * The member's new target. When it equals the member's current target, the
   * assignors return the very `currentAssignment` array of the spec (Kafka
   * reuses unchanged assignments too), so `===` tells "unchanged" cheaply.
   * Rebuilt assignments list topics in the describer's order, partitions
   * ascending. Arrays are read-only and may be shared between members
   * (one-partition arrays are reused): never mutate them.
   */
  readonly partitions: readonly TopicIdPartitions[];
}

/** The assignors' result: one entry per member, in the order of `GroupSpec.members`. */
export interface GroupAssignment {
  readonly members: readonly MemberAssignment[];
}

// Shared, read-only; not frozen so loops over assignments keep one V8 elements kind.
const NO_PARTITIONS: readonly TopicIdPartitions[] = [];

/** Every member with nothing assigned (Kafka returns an empty map, which means the same). */
export function emptyGroupAssignment(members: readonly AssignmentMemberSpec[]): GroupAssignment {
  return {
    members: members.map((member) => ({
      memberId: member.memberId,
      partitions: member.currentAssignment.length === 0 ? member.currentAssignment : NO_PARTITIONS,
    })),
  };
}
