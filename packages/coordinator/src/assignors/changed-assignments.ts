import type { TopicIdPartitions } from "../topic-id-partitions.js";
import type { GroupAssignment } from "./group-assignment.js";
import type { AssignmentMemberSpec, GroupSpec } from "./group-spec.js";
import type { ServerAssignor } from "./server-assignor.js";
import type { SubscribedTopicDescriber } from "./subscribed-topic-describer.js";

/** A member whose target an assignment changes: its position in `GroupSpec.members`, its id and its new target. */
export interface ChangedAssignment {
  readonly index: number;
  readonly memberId: string;
  readonly partitions: readonly TopicIdPartitions[];
}

/**
 * The members of `assignment` whose target is not the very `currentAssignment`
 * array of their spec, in member order. Throws when the assignment does not
 * answer for the spec's members position by position.
 */
export function changesOf(assignment: GroupAssignment, members: readonly AssignmentMemberSpec[]): ChangedAssignment[] {
  const changes: ChangedAssignment[] = [];
  assignment.members.forEach(({ memberId, partitions }, index) => {
    const spec = members[index];
    if (spec === undefined || spec.memberId !== memberId) throw new Error(`the assignor answered for ${memberId} at position ${index}`);
    if (partitions !== spec.currentAssignment) changes.push({ index, memberId, partitions });
  });
  return changes;
}

/**
 * What `assignor.assign` changes, member by member (see `changesOf`): from
 * the assignor's own `changes` when it has one (which skips building an
 * entry for every unchanged member), else from its full assignment.
 */
export function changedAssignments(
  assignor: ServerAssignor,
  spec: GroupSpec,
  topics: SubscribedTopicDescriber,
): readonly ChangedAssignment[] {
  return assignor.changes?.(spec, topics) ?? changesOf(assignor.assign(spec, topics), spec.members);
}
