import type { TopicIdPartitions } from "../topic-id-partitions.js";
import type { GroupAssignment, MemberAssignment } from "./group-assignment.js";
import { type AssignmentMemberSpec, type GroupSpec, subscriptionTypeOf } from "./group-spec.js";
import { PartitionAssignorError } from "./partition-assignor-error.js";
import { singlePartition } from "./partition-index-assignment.js";
import type { ServerAssignor } from "./server-assignor.js";
import type { SubscribedTopicDescriber } from "./subscribed-topic-describer.js";

// Shared, read-only; not frozen so loops over assignments keep one V8 elements kind.
const NO_PARTITIONS: readonly TopicIdPartitions[] = [];

/** Static members first (by instance id), then the others by member id; code-unit order like `String.compareTo`. */
function compareMembersForRange(a: AssignmentMemberSpec, b: AssignmentMemberSpec): number {
  if (a.instanceId !== null && b.instanceId !== null) return a.instanceId < b.instanceId ? -1 : a.instanceId > b.instanceId ? 1 : 0;
  if (a.instanceId !== null) return -1;
  if (b.instanceId !== null) return 1;
  return a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0;
}

/**
 * Whether `current` (with as many entries as the member has non-empty ranges) is exactly its
 * contiguous ranges `[rangeStart, rangeEnd)`; `rangeOf[t] === member` marks the member's topics.
 */
function isSameRanges(
  current: readonly TopicIdPartitions[],
  topics: SubscribedTopicDescriber,
  member: number,
  rangeOf: Int32Array,
  rangeStart: Int32Array,
  rangeEnd: Int32Array,
): boolean {
  for (const entry of current) {
    const t = topics.topicIndex(entry.topicId);
    if (t < 0 || rangeOf[t] !== member) return false;
    const start = rangeStart[t]!;
    const end = rangeEnd[t]!;
    if (entry.partitions.length !== end - start) return false;
    // Distinct partitions inside [start, end) in an entry of that length are exactly the range.
    for (const partition of entry.partitions) if (partition < start || partition >= end) return false;
    if (new Set(entry.partitions).size !== entry.partitions.length) return false;
  }
  return true;
}

/** The member's subscribed topics as ascending topic indexes; `seen[t] === stamp` drops duplicates. */
function topicIndexesOf(member: AssignmentMemberSpec, topics: SubscribedTopicDescriber, seen: Int32Array, stamp: number): number[] {
  const indexes: number[] = [];
  for (const topicId of member.subscribedTopicIds) {
    const t = topics.topicIndex(topicId);
    if (t < 0) throw new PartitionAssignorError("Member is subscribed to a non-existent topic");
    if (seen[t] === stamp) continue;
    seen[t] = stamp;
    indexes.push(t);
  }
  return indexes.sort((a, b) => a - b);
}

/**
 * Kafka 4.0's server `range` assignor (KAFKA-16944 rewrite): members sorted
 * static-first by instance id, then by member id; per topic, each subscriber
 * in that order takes the next contiguous range of ⌊P/N⌋ partitions, +1 for
 * the first P mod N of them (N = the topic's subscribers). Topics with the
 * same partition count and subscribers are therefore co-partitioned. Not
 * sticky: only static instance ids keep members in place. A member whose
 * result equals its current target gets its current array back.
 */
export class RangeAssignor implements ServerAssignor {
  readonly name = "range" as const;

  assign(spec: GroupSpec, topics: SubscribedTopicDescriber): GroupAssignment {
    const members = spec.members;
    if (members.length === 0) return { members: [] };
    const sorted = members.map((_, index) => index).sort((a, b) => compareMembersForRange(members[a]!, members[b]!) || a - b);
    const topicCount = topics.topics.length;
    const subscriberCount = new Int32Array(topicCount);
    // Per member, its subscribed topic indexes in describer order.
    const memberTopics: number[][] = new Array(members.length);
    const homogeneous = (spec.subscriptionType ?? subscriptionTypeOf(members)) === "homogeneous";
    const seen = new Int32Array(topicCount).fill(-1);
    if (homogeneous) {
      // Kafka takes the topics of the first member in the sorted order for everyone.
      const shared = topicIndexesOf(members[sorted[0]!]!, topics, seen, 0);
      for (const t of shared) subscriberCount[t] = members.length;
      for (let m = 0; m < members.length; m++) memberTopics[m] = shared;
    } else {
      // Members usually share subscription arrays: resolve each distinct array once.
      const resolved = new Map<readonly string[], number[]>();
      for (let m = 0; m < members.length; m++) {
        const subscription = members[m]!.subscribedTopicIds;
        let own = resolved.get(subscription);
        if (own === undefined) {
          own = topicIndexesOf(members[m]!, topics, seen, m);
          resolved.set(subscription, own);
        }
        for (const t of own) subscriberCount[t]!++;
        memberTopics[m] = own;
      }
    }

    const nextRange = new Int32Array(topicCount);
    const minQuota = new Int32Array(topicCount);
    const extraPartitions = new Int32Array(topicCount);
    for (let t = 0; t < topicCount; t++) {
      if (subscriberCount[t]! === 0) continue;
      minQuota[t] = Math.floor(topics.partitionCountAt(t) / subscriberCount[t]!);
      extraPartitions[t] = topics.partitionCountAt(t) % subscriberCount[t]!;
    }
    const rangeOf = new Int32Array(topicCount).fill(-1);
    const rangeStart = new Int32Array(topicCount);
    const rangeEnd = new Int32Array(topicCount);
    const result: MemberAssignment[] = new Array(members.length);
    // Homogeneous groups with more members than partitions: once every topic is used up,
    // the remaining members get nothing, without walking all topics for each of them.
    let exhaustedTopics = 0;
    const sharedTopicCount = homogeneous ? (memberTopics[0]?.length ?? 0) : -1;
    for (const m of sorted) {
      const member = members[m]!;
      if (exhaustedTopics === sharedTopicCount) {
        result[m] = {
          memberId: member.memberId,
          partitions: member.currentAssignment.length === 0 ? member.currentAssignment : NO_PARTITIONS,
        };
        continue;
      }
      const own = memberTopics[m]!;
      let nonEmpty = 0;
      for (const t of own) {
        const count = topics.partitionCountAt(t);
        const start = nextRange[t]!;
        let end = start;
        if (start < count) {
          end = Math.min(start + minQuota[t]!, count);
          if (extraPartitions[t]! > 0) {
            end++;
            extraPartitions[t]!--;
          }
          nextRange[t] = end;
          if (end >= count) exhaustedTopics++;
        }
        if (end > start) nonEmpty++;
        rangeOf[t] = m;
        rangeStart[t] = start;
        rangeEnd[t] = end;
      }
      let partitions: readonly TopicIdPartitions[];
      if (
        member.currentAssignment.length === nonEmpty &&
        isSameRanges(member.currentAssignment, topics, m, rangeOf, rangeStart, rangeEnd)
      ) {
        partitions = member.currentAssignment;
      } else {
        const built: TopicIdPartitions[] = [];
        for (const t of own) {
          const start = rangeStart[t]!;
          const end = rangeEnd[t]!;
          if (end <= start) continue;
          let range: readonly number[];
          if (end - start === 1) {
            range = singlePartition(start);
          } else {
            const run: number[] = new Array(end - start);
            for (let p = start; p < end; p++) run[p - start] = p;
            range = run;
          }
          built.push({ topicId: topics.topicIdAt(t), partitions: range });
        }
        partitions = built;
      }
      result[m] = { memberId: member.memberId, partitions };
    }
    return { members: result };
  }
}
