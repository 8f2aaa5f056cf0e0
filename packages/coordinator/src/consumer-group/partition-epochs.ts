import { IllegalStateError } from "../runtime/coordinator-error.js";
import type { TopicIdPartitions } from "../topic-id-partitions.js";

/** The epoch of a partition no member holds. */
const FREE = -1;

/**
 * Who owns what in a consumer group (Kafka's
 * `ConsumerGroup.currentPartitionEpoch`): for every partition a member has
 * assigned or pending revocation, that member's epoch; -1 for a free
 * partition. Giving a partition to a second owner is a bug and throws.
 * One Int32Array per topic, indexed by partition (the hot path of every
 * reconciliation).
 */
export class PartitionEpochs {
  readonly #byTopic = new Map<string, Int32Array>();

  /** The owner's epoch, or -1 when no member holds the partition. */
  epochOf(topicId: string, partition: number): number {
    return this.#byTopic.get(topicId)?.[partition] ?? FREE;
  }

  /** Records `epoch` for every partition of `assignment`; throws if one is still held. */
  add(assignment: readonly TopicIdPartitions[], epoch: number): void {
    for (const { topicId, partitions } of assignment) {
      if (partitions.length === 0) continue;
      let epochs = this.#epochsFor(topicId, partitions);
      for (const partition of partitions) {
        if (partition >= epochs.length) epochs = this.#grow(topicId, epochs, partition);
        const previous = epochs[partition] ?? FREE;
        if (previous !== FREE) {
          throw new IllegalStateError(
            `Cannot set the epoch of ${topicId}-${partition} to ${epoch} because the partition is still owned at epoch ${previous}`,
          );
        }
        epochs[partition] = epoch;
      }
    }
  }

  /** Frees every partition of `assignment`; each must be held at `expectedEpoch`. */
  remove(assignment: readonly TopicIdPartitions[], expectedEpoch: number): void {
    for (const { topicId, partitions } of assignment) {
      if (partitions.length === 0) continue;
      const epochs = this.#byTopic.get(topicId);
      for (const partition of partitions) {
        const previous = epochs?.[partition] ?? FREE;
        if (previous !== expectedEpoch) {
          throw new IllegalStateError(
            `Cannot remove the epoch ${expectedEpoch} from ${topicId}-${partition} because the partition is owned at epoch ${previous}`,
          );
        }
        if (epochs !== undefined) epochs[partition] = FREE;
      }
    }
  }

  #epochsFor(topicId: string, partitions: readonly number[]): Int32Array {
    let epochs = this.#byTopic.get(topicId);
    if (epochs === undefined) {
      let max = 0;
      for (const partition of partitions) if (partition > max) max = partition;
      epochs = new Int32Array(max + 1).fill(FREE);
      this.#byTopic.set(topicId, epochs);
    }
    return epochs;
  }

  #grow(topicId: string, epochs: Int32Array, partition: number): Int32Array {
    const grown = new Int32Array(Math.max(partition + 1, epochs.length * 2)).fill(FREE);
    grown.set(epochs);
    this.#byTopic.set(topicId, grown);
    return grown;
  }
}
