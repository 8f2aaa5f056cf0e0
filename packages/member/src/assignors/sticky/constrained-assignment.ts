import type { TopicPartition } from "@kcsim/protocol";
import { compareJavaStrings, keyOf, partitionsOf } from "../topic-partitions.js";

/** Result of a sticky assignment: per member, and the partitions that change owner (key -> new owner). */
export interface StickyAssignment {
  readonly assignment: Map<string, TopicPartition[]>;
  /** Null when the general path ran: the cooperative assignor then works it out from the owned partitions. */
  readonly partitionsTransferringOwnership: Map<string, string> | null;
}

/** Kafka keeps owned partitions "sorted by partition, then topic" (spec 4.6). */
function compareByPartitionThenTopic(a: TopicPartition, b: TopicPartition): number {
  return a.partition - b.partition || compareJavaStrings(a.topic, b.topic);
}

/**
 * `AbstractStickyAssignor.ConstrainedAssignmentBuilder` (non-rack-aware), the
 * fast path when every member subscribes to the same topics. With P
 * partitions and N members, min = floor(P/N), max = ceil(P/N), and exactly
 * P mod N members end with max:
 *  1. members (in iteration order) keep their owned partitions, sorted by
 *     partition then topic: all of them below min; max of them while fewer
 *     than P mod N members hold max; otherwise min. The rest are revoked.
 *  2. the unassigned partitions (sorted by topic, partition) are dealt
 *     round-robin to the members below min (sorted by id); a member reaching
 *     min moves to the queue of members at min, which receive one more each
 *     (in queue order) once nobody is below min.
 */
export function constrainedAssignment(
  partitionCounts: ReadonlyMap<string, number>,
  ownedByMember: ReadonlyMap<string, readonly TopicPartition[]>,
  claimedByMultipleOwners: ReadonlySet<string>,
): StickyAssignment {
  const members = [...ownedByMember.keys()];
  const sortedTopics = [...partitionCounts.keys()].sort(compareJavaStrings);
  const allPartitions = sortedTopics.flatMap((topic) => partitionsOf(topic, partitionCounts.get(topic) ?? 0));
  const total = allPartitions.length;
  const minQuota = Math.floor(total / members.length);
  const maxQuota = Math.ceil(total / members.length);
  const expectedMembersOverMin = total % members.length;
  let membersOverMin = 0;

  const assignment = new Map<string, TopicPartition[]>(members.map((m) => [m, []]));
  const assignedKeys = new Set<string>();
  const revokedKeys = new Set<string>();
  const transferring = new Map<string, string>();
  const unfilledBelowMin: string[] = [];
  let unfilledAtMin: string[] = [];

  const keep = (member: string, partitions: readonly TopicPartition[]): void => {
    assignment.get(member)?.push(...partitions);
    for (const tp of partitions) assignedKeys.add(keyOf(tp));
  };

  // Step 1: keep owned partitions up to the quota.
  for (const [member, owned0] of ownedByMember) {
    const owned = owned0.filter((tp) => !claimedByMultipleOwners.has(keyOf(tp))).sort(compareByPartitionThenTopic);
    if (owned.length < minQuota) {
      keep(member, owned);
      unfilledBelowMin.push(member);
    } else if (owned.length >= maxQuota && membersOverMin < expectedMembersOverMin) {
      membersOverMin++;
      if (membersOverMin === expectedMembersOverMin) unfilledAtMin = [];
      keep(member, owned.slice(0, maxQuota));
      for (const tp of owned.slice(maxQuota)) revokedKeys.add(keyOf(tp));
    } else {
      keep(member, owned.slice(0, minQuota));
      for (const tp of owned.slice(minQuota)) revokedKeys.add(keyOf(tp));
      if (membersOverMin < expectedMembersOverMin) unfilledAtMin.push(member);
    }
  }

  const unassigned = allPartitions.filter((tp) => !assignedKeys.has(keyOf(tp)));
  unfilledBelowMin.sort(compareJavaStrings);
  unfilledAtMin.sort(compareJavaStrings);

  const assignNew = (tp: TopicPartition, member: string): number => {
    const list = assignment.get(member) ?? [];
    list.push(tp);
    // Everything owned and keepable is placed already, so this partition changes owner
    // if someone gave it up or several claimed it.
    const key = keyOf(tp);
    if (revokedKeys.has(key) || claimedByMultipleOwners.has(key)) transferring.set(key, member);
    return list.length;
  };

  // Step 2: round-robin over the members below min (a Java list iterator: `next` is the
  // position of the next member, removal takes out the member just returned).
  let next = 0;
  for (const tp of unassigned) {
    let member: string;
    const fromBelowMin = next < unfilledBelowMin.length;
    if (fromBelowMin) {
      member = unfilledBelowMin[next++] as string;
    } else if (unfilledBelowMin.length > 0) {
      next = 0;
      member = unfilledBelowMin[next++] as string;
    } else {
      const atMin = unfilledAtMin.shift();
      if (atMin === undefined) throw new Error("sticky assignment bug: no more unfilled consumers to be assigned");
      member = atMin;
    }
    const count = assignNew(tp, member);
    if (count === minQuota) {
      // Only members taken from the below-min list can reach min here.
      unfilledBelowMin.splice(--next, 1);
      unfilledAtMin.push(member);
    } else if (count === maxQuota) {
      membersOverMin++;
    }
  }

  // Kafka's verifyUnfilledMembers: anyone left below min is a bug.
  for (const member of unfilledBelowMin) {
    if (membersOverMin !== expectedMembersOverMin || (assignment.get(member)?.length ?? 0) !== minQuota) {
      throw new Error(`sticky assignment bug: member ${member} does not reach ${minQuota} partitions and none are left`);
    }
  }
  return { assignment, partitionsTransferringOwnership: transferring };
}
