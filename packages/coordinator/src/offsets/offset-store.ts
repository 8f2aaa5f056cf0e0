import { PendingTransactionalOffsets } from "./pending-transactional-offsets.js";

/** A committed offset (Kafka's `OffsetAndMetadata`). */
export interface CommittedOffset {
  readonly offset: number;
  /** -1 when unknown. */
  readonly leaderEpoch: number;
  readonly metadata: string;
  /** Milliseconds. */
  readonly commitTimestampMs: number;
  /** -1 when the commit set no retention. */
  readonly expireTimestampMs: number;
}

/** A committed offset with the position of the record that committed it. */
interface StoredOffset {
  readonly offset: CommittedOffset;
  readonly recordOffset: number;
}

/**
 * Committed offsets by group, topic and partition (Kafka's
 * `OffsetMetadataManager.offsets`), rebuilt from OffsetCommit records, each
 * with the log position of its record: when a transaction's COMMIT marker
 * materialises a pending transactional offset, the most recent record of
 * the partition wins.
 *
 * Transactional offsets (TxnOffsetCommit) live apart, in `pending`, per
 * producer id until the transaction's COMMIT marker moves them here (ABORT
 * drops them); `hasPendingTransactionalOffsets` is where OffsetFetch's
 * RequireStable looks.
 */
export class OffsetStore {
  readonly #byGroup = new Map<string, Map<string, Map<number, StoredOffset>>>();
  readonly pending = new PendingTransactionalOffsets();

  get(groupId: string, topic: string, partition: number): CommittedOffset | undefined {
    return this.#byGroup.get(groupId)?.get(topic)?.get(partition)?.offset;
  }

  /** The log position of the record behind the committed offset, or undefined when there is none. */
  recordOffsetOf(groupId: string, topic: string, partition: number): number | undefined {
    return this.#byGroup.get(groupId)?.get(topic)?.get(partition)?.recordOffset;
  }

  put(groupId: string, topic: string, partition: number, offset: CommittedOffset, recordOffset: number): void {
    let topics = this.#byGroup.get(groupId);
    if (topics === undefined) {
      topics = new Map();
      this.#byGroup.set(groupId, topics);
    }
    let partitions = topics.get(topic);
    if (partitions === undefined) {
      partitions = new Map();
      topics.set(topic, partitions);
    }
    partitions.set(partition, { offset, recordOffset });
  }

  remove(groupId: string, topic: string, partition: number): void {
    const topics = this.#byGroup.get(groupId);
    const partitions = topics?.get(topic);
    if (topics === undefined || partitions === undefined) return;
    partitions.delete(partition);
    if (partitions.size === 0) topics.delete(topic);
    if (topics.size === 0) this.#byGroup.delete(groupId);
  }

  /** Every committed offset of the group: topics by name, partitions ascending. */
  offsetsOf(groupId: string): { topic: string; partitions: { partition: number; offset: CommittedOffset }[] }[] {
    const topics = this.#byGroup.get(groupId);
    if (topics === undefined) return [];
    return [...topics.keys()].sort().map((topic) => ({
      topic,
      partitions: [...(topics.get(topic) ?? new Map<number, StoredOffset>()).entries()]
        .sort(([a], [b]) => a - b)
        .map(([partition, stored]) => ({ partition, offset: stored.offset })),
    }));
  }

  /** Forgets the group's committed and pending offsets. */
  deleteGroup(groupId: string): void {
    this.#byGroup.delete(groupId);
    this.pending.deleteGroup(groupId);
  }

  /** Whether a transaction has uncommitted offsets for the partition (RequireStable -> UNSTABLE_OFFSET_COMMIT). */
  hasPendingTransactionalOffsets(groupId: string, topic: string, partition: number): boolean {
    return this.pending.has(groupId, topic, partition);
  }
}
