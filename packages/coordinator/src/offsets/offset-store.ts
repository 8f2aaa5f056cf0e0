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

/**
 * Committed offsets by group, topic and partition (Kafka's
 * `OffsetMetadataManager.offsets`), rebuilt from OffsetCommit records.
 *
 * Transactional offsets (TxnOffsetCommit, a later issue) will live apart
 * from these, pending per producer id until the transaction's COMMIT marker
 * moves them here (ABORT drops them): `hasPendingTransactionalOffsets` is
 * where OffsetFetch's RequireStable will look. Until then nothing is pending.
 */
export class OffsetStore {
  readonly #byGroup = new Map<string, Map<string, Map<number, CommittedOffset>>>();

  get(groupId: string, topic: string, partition: number): CommittedOffset | undefined {
    return this.#byGroup.get(groupId)?.get(topic)?.get(partition);
  }

  put(groupId: string, topic: string, partition: number, offset: CommittedOffset): void {
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
    partitions.set(partition, offset);
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
      partitions: [...(topics.get(topic) ?? new Map<number, CommittedOffset>()).entries()]
        .sort(([a], [b]) => a - b)
        .map(([partition, offset]) => ({ partition, offset })),
    }));
  }

  deleteGroup(groupId: string): void {
    this.#byGroup.delete(groupId);
  }

  /** Whether a transaction has uncommitted offsets for the partition (RequireStable -> UNSTABLE_OFFSET_COMMIT). */
  hasPendingTransactionalOffsets(_groupId: string, _topic: string, _partition: number): boolean {
    return false;
  }
}
