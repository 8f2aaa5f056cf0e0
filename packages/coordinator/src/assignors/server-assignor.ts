import type { ChangedAssignment } from "./changed-assignments.js";
import type { GroupAssignment } from "./group-assignment.js";
import type { GroupSpec } from "./group-spec.js";
import type { SubscribedTopicDescriber } from "./subscribed-topic-describer.js";

/** The server-side assignors of KIP-848 (`group.consumer.assignors`, default `uniform,range`). */
export type ServerAssignorName = "uniform" | "range";

/**
 * A pluggable server-side assignor. `assign` is pure: the same spec and
 * topics give the same result. It throws `PartitionAssignorError` when a
 * member subscribes to a topic the describer does not have.
 */
export interface ServerAssignor {
  readonly name: ServerAssignorName;
  assign(spec: GroupSpec, topics: SubscribedTopicDescriber): GroupAssignment;
  /**
   * Optional: only the members whose target `assign` would change (their
   * new array differs from their `currentAssignment`), in member order;
   * exactly those entries of `assign`'s answer.
   */
  changes?(spec: GroupSpec, topics: SubscribedTopicDescriber): readonly ChangedAssignment[];
}
