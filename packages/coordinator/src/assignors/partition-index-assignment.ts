import type { TopicIdPartitions } from "../topic-id-partitions.js";
import type { SubscribedTopicDescriber } from "./subscribed-topic-describer.js";

const singlePartitionArrays: (readonly number[])[] = [];

/**
 * A shared `[partition]`. Large groups get most partitions as one-partition
 * topics (100,000 of them at 10,000 members); sharing these arrays halves the
 * time of such assignments. They are typed read-only and must never be
 * mutated. Not frozen on purpose: frozen arrays have another V8 elements
 * kind, which makes every loop over assignments polymorphic (2x slower).
 */
export function singlePartition(partition: number): readonly number[] {
  let array = singlePartitionArrays[partition];
  if (array === undefined) {
    array = [partition];
    singlePartitionArrays[partition] = array;
  }
  return array;
}

/**
 * Turns dense partition indexes (see `SubscribedTopicDescriber`) into an
 * assignment. `indexes[from..to)` must be ascending; the result lists topics
 * in describer order with partitions ascending.
 */
export function assignmentFromPartitionIndexes(
  topics: SubscribedTopicDescriber,
  indexes: Int32Array,
  from: number,
  to: number,
): TopicIdPartitions[] {
  const topicOf = topics.topicOfPartition();
  const result: TopicIdPartitions[] = [];
  let i = from;
  while (i < to) {
    const first = indexes[i] ?? 0;
    const topicIndex = topicOf[first] ?? 0;
    const offset = topics.partitionOffsetAt(topicIndex);
    const end = offset + topics.partitionCountAt(topicIndex);
    let runEnd = i + 1;
    while (runEnd < to && (indexes[runEnd] ?? 0) < end) runEnd++;
    let partitions: readonly number[];
    if (runEnd - i === 1) {
      partitions = singlePartition(first - offset);
    } else {
      // Exact-size arrays: growing them by push costs several times the memory on large groups.
      const run: number[] = new Array(runEnd - i);
      for (let j = i; j < runEnd; j++) run[j - i] = (indexes[j] ?? 0) - offset;
      partitions = run;
    }
    i = runEnd;
    result.push({ topicId: topics.topicIdAt(topicIndex), partitions });
  }
  return result;
}

/** Sorts `indexes[from..to)` ascending in place unless it already is. */
export function sortPartitionIndexes(indexes: Int32Array, from: number, to: number): void {
  for (let i = from + 1; i < to; i++) {
    if ((indexes[i] ?? 0) < (indexes[i - 1] ?? 0)) {
      indexes.subarray(from, to).sort();
      return;
    }
  }
}
