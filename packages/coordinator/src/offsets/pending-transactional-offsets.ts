import type { TransactionalOffsetCommitOrigin } from "../records/coordinator-record.js";
import type { CommittedOffset } from "./offset-store.js";

/** A TxnOffsetCommit's offset, waiting for its producer's transaction marker. */
export interface PendingTransactionalOffset {
  readonly groupId: string;
  readonly topic: string;
  readonly partition: number;
  readonly offset: CommittedOffset;
  /** The position of its record in the coordinator's log (the most recent commit of a partition wins). */
  readonly recordOffset: number;
  readonly origin: TransactionalOffsetCommitOrigin;
}

function partitionKey(groupId: string, topic: string, partition: number): string {
  return `${groupId}\u0000${topic}\u0000${partition}`;
}

/**
 * The transactional offsets of open transactions (Kafka's
 * `OffsetMetadataManager.pendingTransactionalOffsets` and
 * `openTransactions`): by producer id, and the producers with a pending
 * offset by group and partition. A producer's COMMIT marker moves its
 * offsets to the committed ones, its ABORT marker drops them; until then
 * OffsetFetch does not see them (RequireStable: UNSTABLE_OFFSET_COMMIT).
 */
export class PendingTransactionalOffsets {
  /** producer id -> partition key -> pending offset (insertion order = write order). */
  readonly #byProducer = new Map<number, Map<string, PendingTransactionalOffset>>();
  /** partition key -> producer ids with a pending offset there. */
  readonly #openTransactions = new Map<string, Set<number>>();

  /** Records a pending offset; a later one of the same producer for the same partition replaces it. */
  add(producerId: number, pending: PendingTransactionalOffset): void {
    const key = partitionKey(pending.groupId, pending.topic, pending.partition);
    let offsets = this.#byProducer.get(producerId);
    if (offsets === undefined) {
      offsets = new Map();
      this.#byProducer.set(producerId, offsets);
    }
    offsets.delete(key);
    offsets.set(key, pending);
    let producers = this.#openTransactions.get(key);
    if (producers === undefined) {
      producers = new Set();
      this.#openTransactions.set(key, producers);
    }
    producers.add(producerId);
  }

  /** Whether any open transaction has an offset for the partition (Kafka's `hasPendingTransactionalOffsets`). */
  has(groupId: string, topic: string, partition: number): boolean {
    return this.#openTransactions.has(partitionKey(groupId, topic, partition));
  }

  /** The producer's pending offsets of the groups `include` accepts, in write order (nothing removed). */
  peek(producerId: number, include: (groupId: string) => boolean): PendingTransactionalOffset[] {
    return [...(this.#byProducer.get(producerId)?.values() ?? [])].filter((pending) => include(pending.groupId));
  }

  /** Removes and returns the producer's pending offsets of the groups `include` accepts, in write order. */
  take(producerId: number, include: (groupId: string) => boolean): PendingTransactionalOffset[] {
    const offsets = this.#byProducer.get(producerId);
    if (offsets === undefined) return [];
    const taken: PendingTransactionalOffset[] = [];
    for (const [key, pending] of offsets) {
      if (!include(pending.groupId)) continue;
      taken.push(pending);
      offsets.delete(key);
      this.#close(key, producerId);
    }
    if (offsets.size === 0) this.#byProducer.delete(producerId);
    return taken;
  }

  /** An offset tombstone: every producer's pending offset of the partition goes too (Kafka's replay of a tombstone). */
  removePartition(groupId: string, topic: string, partition: number): void {
    const key = partitionKey(groupId, topic, partition);
    for (const producerId of this.#openTransactions.get(key) ?? []) {
      const offsets = this.#byProducer.get(producerId);
      offsets?.delete(key);
      if (offsets?.size === 0) this.#byProducer.delete(producerId);
    }
    this.#openTransactions.delete(key);
  }

  /** Forgets every pending offset of the group (a group rebuilt from its records). */
  deleteGroup(groupId: string): void {
    for (const [producerId, offsets] of [...this.#byProducer]) {
      for (const [key, pending] of [...offsets]) {
        if (pending.groupId !== groupId) continue;
        offsets.delete(key);
        this.#close(key, producerId);
      }
      if (offsets.size === 0) this.#byProducer.delete(producerId);
    }
  }

  /** Every pending offset of the group, by producer id ascending then write order. */
  ofGroup(groupId: string): { producerId: number; pending: PendingTransactionalOffset }[] {
    const out: { producerId: number; pending: PendingTransactionalOffset }[] = [];
    for (const producerId of [...this.#byProducer.keys()].sort((a, b) => a - b)) {
      for (const pending of this.#byProducer.get(producerId)?.values() ?? []) {
        if (pending.groupId === groupId) out.push({ producerId, pending });
      }
    }
    return out;
  }

  #close(key: string, producerId: number): void {
    const producers = this.#openTransactions.get(key);
    producers?.delete(producerId);
    if (producers?.size === 0) this.#openTransactions.delete(key);
  }
}
