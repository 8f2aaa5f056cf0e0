import type { TopicIdPartitions } from "../topic-id-partitions.js";
import { compareTopicIds } from "./topic-id-order.js";

/** A topic as the assignors see it (`SubscribedTopicDescriber` in Kafka). */
export interface TopicMetadata {
  readonly topicId: string;
  readonly name: string;
  readonly numPartitions: number;
}

/**
 * The topics an assignment may use, in an explicit order. The order is an
 * input of the homogeneous uniform assignor (Kafka iterates a `HashSet`
 * there): its unassigned partitions are listed topic by topic in this order.
 *
 * Internally every partition gets a dense integer index (topics in this
 * order, partitions ascending) so the assignors can work on typed arrays.
 * Build one describer per topic-metadata version and reuse it: the lookups
 * and orderings it derives are cached.
 */
export class SubscribedTopicDescriber {
  readonly topics: readonly TopicMetadata[];
  /** Number of partitions over all topics. */
  readonly totalPartitions: number;
  private readonly indexById = new Map<string, number>();
  private readonly offsets: Int32Array;
  private topicOfPartitionCache: Int32Array | undefined;
  private topicIdRankCache: Int32Array | undefined;
  private readonly entryTopicIndexes = new WeakMap<readonly TopicIdPartitions[], Int32Array>();

  constructor(topics: readonly TopicMetadata[]) {
    this.topics = topics;
    this.offsets = new Int32Array(topics.length + 1);
    let total = 0;
    topics.forEach((topic, index) => {
      if (this.indexById.has(topic.topicId)) throw new RangeError(`duplicate topic id ${topic.topicId}`);
      if (!Number.isInteger(topic.numPartitions) || topic.numPartitions < 0) {
        throw new RangeError(`bad partition count ${topic.numPartitions} for topic ${topic.topicId}`);
      }
      this.indexById.set(topic.topicId, index);
      this.offsets[index] = total;
      total += topic.numPartitions;
    });
    this.offsets[topics.length] = total;
    this.totalPartitions = total;
  }

  /** Kafka's `numPartitions(topicId)`: the partition count, or -1 for an unknown topic. */
  numPartitions(topicId: string): number {
    const index = this.indexById.get(topicId);
    return index === undefined ? -1 : this.partitionCountAt(index);
  }

  /** The position of a topic in `topics`, or -1. */
  topicIndex(topicId: string): number {
    return this.indexById.get(topicId) ?? -1;
  }

  /**
   * The topic index of each entry of an assignment (-1 for a topic not
   * described), derived once per assignment array: targets are immutable and
   * most carry over unchanged from one target assignment to the next.
   */
  topicIndexesOf(assignment: readonly TopicIdPartitions[]): Int32Array {
    let indexes = this.entryTopicIndexes.get(assignment);
    if (indexes === undefined || indexes.length !== assignment.length) {
      indexes = new Int32Array(assignment.length);
      for (let entry = 0; entry < assignment.length; entry++)
        indexes[entry] = this.topicIndex((assignment[entry] as TopicIdPartitions).topicId);
      this.entryTopicIndexes.set(assignment, indexes);
    }
    return indexes;
  }

  topicIdAt(topicIndex: number): string {
    const topic = this.topics[topicIndex];
    if (topic === undefined) throw new RangeError(`no topic at index ${topicIndex}`);
    return topic.topicId;
  }

  partitionCountAt(topicIndex: number): number {
    return (this.offsets[topicIndex + 1] ?? 0) - (this.offsets[topicIndex] ?? 0);
  }

  /** The dense index of partition 0 of the topic at `topicIndex`. */
  partitionOffsetAt(topicIndex: number): number {
    return this.offsets[topicIndex] ?? 0;
  }

  /** For every dense partition index, the index of its topic. */
  topicOfPartition(): Int32Array {
    if (this.topicOfPartitionCache === undefined) {
      const owners = new Int32Array(this.totalPartitions);
      for (let t = 0; t < this.topics.length; t++) owners.fill(t, this.offsets[t] ?? 0, this.offsets[t + 1] ?? 0);
      this.topicOfPartitionCache = owners;
    }
    return this.topicOfPartitionCache;
  }

  /** For every topic index, its rank when topic ids are ordered like `Uuid.compareTo`. */
  topicIdRanks(): Int32Array {
    if (this.topicIdRankCache === undefined) {
      const order = this.topics.map((_, index) => index);
      order.sort((a, b) => compareTopicIds(this.topicIdAt(a), this.topicIdAt(b)) || a - b);
      const ranks = new Int32Array(this.topics.length);
      order.forEach((topicIndex, rank) => {
        ranks[topicIndex] = rank;
      });
      this.topicIdRankCache = ranks;
    }
    return this.topicIdRankCache;
  }
}
