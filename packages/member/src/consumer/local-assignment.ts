import type { HeartbeatTopicPartitions } from "@kcsim/protocol";

/** Partitions by topic id, each list ascending, no empty topics. */
export type PartitionsByTopicId = ReadonlyMap<string, readonly number[]>;

/**
 * An assignment by topic id with its local epoch (`AbstractMembershipManager.LocalAssignment`).
 * The local epoch is bumped on every new target, so two assignments with the
 * same partitions but different local epochs differ: that is what makes the
 * member resend TopicPartitions after reconciling an unchanged set.
 */
export class LocalAssignment {
  static readonly NONE_EPOCH = -1;
  static readonly NONE = new LocalAssignment(LocalAssignment.NONE_EPOCH, new Map());

  readonly localEpoch: number;
  readonly partitions: PartitionsByTopicId;

  constructor(localEpoch: number, partitions: PartitionsByTopicId) {
    if (localEpoch === LocalAssignment.NONE_EPOCH && partitions.size > 0) {
      throw new Error("a local assignment with partitions needs a local epoch");
    }
    this.localEpoch = localEpoch;
    this.partitions = partitions;
  }

  /** The canonical form of a heartbeat response's assignment (sorted, deduplicated, empty topics dropped). */
  static partitionsFrom(topicPartitions: readonly HeartbeatTopicPartitions[]): PartitionsByTopicId {
    const byId = new Map<string, Set<number>>();
    for (const { topicId, partitions } of topicPartitions) {
      let set = byId.get(topicId);
      if (set === undefined) {
        set = new Set();
        byId.set(topicId, set);
      }
      for (const partition of partitions) set.add(partition);
    }
    const out = new Map<string, number[]>();
    for (const topicId of [...byId.keys()].sort()) {
      const partitions = [...(byId.get(topicId) ?? [])].sort((a, b) => a - b);
      if (partitions.length > 0) out.set(topicId, partitions);
    }
    return out;
  }

  isNone(): boolean {
    return this.localEpoch === LocalAssignment.NONE_EPOCH;
  }

  equals(other: LocalAssignment): boolean {
    if (other === this) return true;
    return this.localEpoch === other.localEpoch && samePartitions(this.partitions, other.partitions);
  }

  hasSamePartitions(other: PartitionsByTopicId): boolean {
    return samePartitions(this.partitions, other);
  }

  /** This assignment replaced by `partitions`: unchanged if they are equal (and this is not NONE), else a bumped local epoch. */
  updateWith(partitions: PartitionsByTopicId): LocalAssignment | null {
    if (!this.isNone() && samePartitions(this.partitions, partitions)) return null;
    return new LocalAssignment(this.localEpoch + 1, partitions);
  }

  /** The heartbeat's TopicPartitions field (topics by id, ascending). */
  toHeartbeatTopicPartitions(): HeartbeatTopicPartitions[] {
    return [...this.partitions.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([topicId, partitions]) => ({ topicId, partitions: [...partitions] }));
  }
}

function samePartitions(a: PartitionsByTopicId, b: PartitionsByTopicId): boolean {
  if (a.size !== b.size) return false;
  for (const [topicId, partitions] of a) {
    const other = b.get(topicId);
    if (other === undefined || other.length !== partitions.length) return false;
    for (let i = 0; i < partitions.length; i++) if (partitions[i] !== other[i]) return false;
  }
  return true;
}
