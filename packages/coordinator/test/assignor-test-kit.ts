import {
  type AssignmentMemberSpec,
  type GroupAssignment,
  SubscribedTopicDescriber,
  type TopicIdPartitions,
  type TopicMetadata,
} from "../src/index.js";

/** The topic ids Kafka's assignor tests use (`Uuid.fromString`). */
export const KAFKA_TOPIC_IDS: Readonly<Record<string, string>> = {
  T1: "T1-A4s3VTwiI5CTbEp6POw",
  T2: "T2-B4s3VTwiI5YHbPp6YUe",
  T3: "T3-CU8fVTLCz5YMkLoDQsa",
  T4: "T4-Tw9fVTLCz5HbPp6YQsa",
};

export function idOf(name: string): string {
  const id = KAFKA_TOPIC_IDS[name];
  if (id === undefined) throw new Error(`no test topic ${name}`);
  return id;
}

/** Topics by name with partition counts, in the given (explicit) order. */
export function topicsOf(counts: Record<string, number>, order: readonly string[] = Object.keys(counts)): SubscribedTopicDescriber {
  const topics: TopicMetadata[] = order.map((name) => ({ topicId: idOf(name), name, numPartitions: counts[name] ?? 0 }));
  return new SubscribedTopicDescriber(topics);
}

/** `{T1: [0, 1]}` as an assignment by topic id, topics in key order. */
export function assignmentOf(byName: Record<string, readonly number[]>): TopicIdPartitions[] {
  return Object.entries(byName).map(([name, partitions]) => ({ topicId: idOf(name), partitions }));
}

export function memberOf(
  memberId: string,
  subscriptions: readonly string[],
  current: Record<string, readonly number[]> = {},
  instanceId: string | null = null,
): AssignmentMemberSpec {
  return { memberId, instanceId, subscribedTopicIds: subscriptions.map(idOf), currentAssignment: assignmentOf(current) };
}

/** An assignment as `{member: {topicName: sortedPartitions}}`, empty topics left out. */
export function byTopicName(assignment: GroupAssignment, topics: SubscribedTopicDescriber): Record<string, Record<string, number[]>> {
  const names = new Map(topics.topics.map((topic) => [topic.topicId, topic.name]));
  const result: Record<string, Record<string, number[]>> = {};
  for (const member of assignment.members) {
    const byName: Record<string, number[]> = {};
    for (const entry of member.partitions) {
      if (entry.partitions.length === 0) continue;
      const name = names.get(entry.topicId) ?? entry.topicId;
      byName[name] = [...(byName[name] ?? []), ...entry.partitions].sort((a, b) => a - b);
    }
    result[member.memberId] = byName;
  }
  return result;
}
