import { toPositive } from "./murmur2.js";

/** A uniform random signed 32-bit integer (Java's `nextInt()`), from the actor's random stream. */
function nextInt(random: () => number): number {
  return Math.floor(random() * 2 ** 32) | 0;
}

/**
 * KIP-480's sticky partitioner for records without a key (Kafka's
 * `StickyPartitionCache`, the default partitioner from 2.4 to 3.2): all
 * keyless records of a topic go to one partition until a record has to
 * start a new batch there; then another partition is picked at random among
 * those with a leader (never the same one again when there is a choice).
 */
export class StickyPartitionCache {
  readonly #sticky = new Map<string, number>();
  readonly #random: () => number;

  constructor(random: () => number) {
    this.#random = random;
  }

  /** The topic's sticky partition, choosing one if there is none yet. */
  partition(topic: string, numPartitions: number, available: readonly number[]): number {
    return this.#sticky.get(topic) ?? this.nextPartition(topic, numPartitions, available, -1);
  }

  /**
   * A new batch was needed in `previous` (Kafka's `onNewBatch`): if that is
   * the sticky partition, move on to another one; returns the sticky partition.
   */
  nextPartition(topic: string, numPartitions: number, available: readonly number[], previous: number): number {
    const old = this.#sticky.get(topic);
    if (old !== undefined && old !== previous) return old;
    let next: number;
    if (available.length < 1) {
      next = toPositive(nextInt(this.#random)) % numPartitions;
    } else if (available.length === 1) {
      next = available[0] as number;
    } else {
      do {
        next = available[toPositive(nextInt(this.#random)) % available.length] as number;
      } while (next === old);
    }
    this.#sticky.set(topic, next);
    return next;
  }
}
