import { toPositive } from "./murmur2.js";

/** A uniform random signed 32-bit integer (Java's `nextInt()`), from the actor's random stream. */
function nextInt(random: () => number): number {
  return Math.floor(random() * 2 ** 32) | 0;
}

/** The partition a keyless record sticks to, and how many bytes have gone to it since it was chosen (Kafka's `StickyPartitionInfo`). */
export interface StickyPartitionInfo {
  readonly partition: number;
  producedBytes: number;
}

/**
 * Where a partition's weight for the next switch comes from (Kafka's
 * `PartitionLoadStats`): `cumulative` is the running sum of each
 * partition's inverted queue size, `partitionIds` the partitions in the
 * same order; only the first `length` entries count.
 */
export interface PartitionLoadStats {
  readonly cumulative: readonly number[];
  readonly partitionIds: readonly number[];
  readonly length: number;
}

/**
 * Adaptive partitioning's weights from the queue sizes that the last
 * `ready` pass saw (Kafka's `updatePartitionLoadStats`): a partition with
 * a shorter queue (fewer batches waiting for its leader) is more likely to
 * be the next sticky partition. null (switch uniformly) when there are no
 * sizes, fewer than two partitions, or every partition's queue is the same
 * length and none was left out for its leader's latency.
 *
 * Each size is inverted (the largest size + 1 less the size) and the
 * results summed in order: queues of 0, 3 and 1 batches give 4, 1, 3 and
 * so the table 4, 5, 8.
 */
export function partitionLoadStats(
  queueSizes: readonly number[] | null,
  partitionIds: readonly number[],
  length: number,
): PartitionLoadStats | null {
  if (queueSizes === null || queueSizes.length < 2) return null;
  // No partition with a leader: Kafka would build an empty table here and fail the next keyless send on it
  // (an index out of bounds); uniform choice among all partitions is what kcsim does instead.
  if (length === 0) return null;
  let maxSizePlus1 = queueSizes[0] as number;
  let allEqual = true;
  for (let i = 1; i < length; i++) {
    const size = queueSizes[i] as number;
    if (size !== maxSizePlus1) allEqual = false;
    if (size > maxSizePlus1) maxSizePlus1 = size;
  }
  maxSizePlus1++;
  if (allEqual && length === queueSizes.length) return null;
  const cumulative: number[] = new Array(length);
  let sum = 0;
  for (let i = 0; i < length; i++) {
    sum += maxSizePlus1 - (queueSizes[i] as number);
    cumulative[i] = sum;
  }
  return { cumulative, partitionIds: partitionIds.slice(0, length), length };
}

/** The partitions of a topic as the producer's metadata knows them. */
export interface TopicPartitionsView {
  /** Changes whenever partition counts or leaders may have changed (a metadata update), and only then. */
  readonly version: number;
  partitionCount(topic: string): number;
  /** Partitions with a known leader, in partition order (Kafka's `availablePartitionsForTopic`). */
  availablePartitions(topic: string): readonly number[];
}

/**
 * Kafka's built-in partitioner for records without a key (KIP-794,
 * `BuiltInPartitioner`; the only one since 4.0, unless a custom
 * `partitioner.class` is set). All keyless records of a topic go to one
 * partition until batch.size bytes have been appended to it, and while the
 * partition's last batch is still open the switch waits for it to fill (up
 * to twice batch.size), so batches are not cut short. The next partition is
 * drawn at random among those with a leader, weighted towards shorter
 * queues when adaptive partitioning has load stats for the topic
 * (`loadStats`, refreshed by the accumulator's `ready`).
 */
export class BuiltInPartitioner {
  readonly #topic: string;
  readonly #stickyBatchSize: number;
  readonly #random: () => number;
  /** The load stats of the topic as of the last `ready` pass, or null: uniform. */
  readonly #loadStats: () => PartitionLoadStats | null;
  #sticky: StickyPartitionInfo | null = null;

  constructor(topic: string, stickyBatchSize: number, random: () => number, loadStats: () => PartitionLoadStats | null) {
    if (!(stickyBatchSize >= 1)) throw new RangeError(`stickyBatchSize must be >= 1 but got ${stickyBatchSize}`);
    this.#topic = topic;
    this.#stickyBatchSize = stickyBatchSize;
    this.#random = random;
    this.#loadStats = loadStats;
  }

  /** The current sticky partition, chosen now if there is none yet (Kafka's `peekCurrentPartitionInfo`). */
  peek(cluster: TopicPartitionsView): StickyPartitionInfo {
    if (this.#sticky === null) this.#sticky = { partition: this.#nextPartition(cluster), producedBytes: 0 };
    return this.#sticky;
  }

  /** Whether `info` is no longer the sticky partition (Kafka's `isPartitionChanged`). */
  isChanged(info: StickyPartitionInfo): boolean {
    return this.#sticky !== info;
  }

  /**
   * `appendedBytes` went to `info`'s partition (Kafka's
   * `updatePartitionInfo`): once batch.size bytes have, switch to a new
   * partition, if `enableSwitch` (the partition's last batch is full) or
   * twice batch.size have.
   */
  update(info: StickyPartitionInfo, appendedBytes: number, cluster: TopicPartitionsView, enableSwitch: boolean): void {
    if (info !== this.#sticky) throw new Error(`partitioner of ${this.#topic}: an update for a partition it no longer sticks to`);
    info.producedBytes += appendedBytes;
    const produced = info.producedBytes;
    if ((produced >= this.#stickyBatchSize && enableSwitch) || produced >= this.#stickyBatchSize * 2)
      this.#sticky = { partition: this.#nextPartition(cluster), producedBytes: 0 };
  }

  /** Kafka's `nextPartition`: one random draw, weighted by the load stats if there are any, else uniform over partitions with a leader (any partition if none has one). */
  #nextPartition(cluster: TopicPartitionsView): number {
    const random = toPositive(nextInt(this.#random));
    const stats = this.#loadStats();
    if (stats === null) {
      const available = cluster.availablePartitions(this.#topic);
      if (available.length > 0) return available[random % available.length] as number;
      return random % cluster.partitionCount(this.#topic);
    }
    const weighted = random % (stats.cumulative[stats.length - 1] as number);
    // The first entry strictly above the draw (the table rises strictly, every weight being at least 1).
    let lo = 0;
    let hi = stats.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((stats.cumulative[mid] as number) > weighted) hi = mid;
      else lo = mid + 1;
    }
    return stats.partitionIds[lo] as number;
  }
}
