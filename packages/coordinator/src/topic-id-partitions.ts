/**
 * The partitions of one topic, by topic id: the unit of every server-side
 * assignment (`ConsumerGroupHeartbeat` TopicPartitions, target assignments,
 * current assignments). A list of these is read as a set: the order of the
 * topics and of the partitions carries no meaning unless a function says so.
 */
export interface TopicIdPartitions {
  readonly topicId: string;
  readonly partitions: readonly number[];
}

/** The number of partitions in an assignment. */
export function countPartitions(assignment: readonly TopicIdPartitions[]): number {
  let count = 0;
  for (const entry of assignment) count += entry.partitions.length;
  return count;
}

/** The assignment as a topic id -> partition set lookup (topics without partitions are left out). */
export function toPartitionSets(assignment: readonly TopicIdPartitions[]): Map<string, Set<number>> {
  const sets = new Map<string, Set<number>>();
  for (const entry of assignment) {
    if (entry.partitions.length === 0) continue;
    let set = sets.get(entry.topicId);
    if (set === undefined) {
      set = new Set();
      sets.set(entry.topicId, set);
    }
    for (const partition of entry.partitions) set.add(partition);
  }
  return sets;
}

/** Whether two assignments hold the same topic-partitions (set equality; order and empty topics ignored). */
export function sameAssignment(a: readonly TopicIdPartitions[], b: readonly TopicIdPartitions[]): boolean {
  if (a === b) return true;
  const left = toPartitionSets(a);
  const right = toPartitionSets(b);
  if (left.size !== right.size) return false;
  for (const [topicId, partitions] of left) {
    const other = right.get(topicId);
    if (other === undefined || other.size !== partitions.size) return false;
    for (const partition of partitions) if (!other.has(partition)) return false;
  }
  return true;
}

/**
 * The canonical form of an assignment: topics in the given order of ids
 * (ids not in it after, by code unit), partitions ascending, no empty topics.
 */
export function normalizeAssignment(assignment: readonly TopicIdPartitions[], topicOrder: readonly string[] = []): TopicIdPartitions[] {
  const rank = new Map<string, number>();
  topicOrder.forEach((topicId, index) => {
    rank.set(topicId, index);
  });
  const sets = toPartitionSets(assignment);
  const topicIds = [...sets.keys()].sort((x, y) => {
    const rx = rank.get(x);
    const ry = rank.get(y);
    if (rx !== undefined && ry !== undefined) return rx - ry;
    if (rx !== undefined) return -1;
    if (ry !== undefined) return 1;
    return x < y ? -1 : x > y ? 1 : 0;
  });
  return topicIds.map((topicId) => ({ topicId, partitions: [...(sets.get(topicId) ?? [])].sort((x, y) => x - y) }));
}
