import type { Micros } from "@kcsim/protocol";
import { CachedPartition } from "./cached-partition.js";
import { type FetchTarget, type TopicIdPartition, topicIdPartitionKey } from "./topic-id-partition.js";

/**
 * A broker-side incremental fetch session (Kafka's `FetchSession`). The
 * partition map keeps insertion order, which is the order partitions are
 * read in; partitions that returned records are moved to its end.
 */
export class FetchSession {
  readonly id: number;
  /** Created by a follower (replicaId >= 0); privileged sessions are harder to evict. */
  readonly privileged: boolean;
  readonly usesTopicIds: boolean;
  readonly createdAt: Micros;
  /** Only the cache's `touch` moves this. */
  lastUsedAt: Micros;
  epoch: number;
  /** The partition count the cache last accounted for this session; -1 when not in a cache. */
  cachedSize = -1;
  /** Whether the last touch made this session evictable by privileged / by all new sessions. */
  evictableByPrivileged = false;
  evictableByAll = false;
  readonly #partitions: Map<string, CachedPartition>;

  constructor(
    id: number,
    privileged: boolean,
    partitions: Map<string, CachedPartition>,
    usesTopicIds: boolean,
    createdAt: Micros,
    lastUsedAt: Micros,
    epoch: number,
  ) {
    this.id = id;
    this.privileged = privileged;
    this.#partitions = partitions;
    this.usesTopicIds = usesTopicIds;
    this.createdAt = createdAt;
    this.lastUsedAt = lastUsedAt;
    this.epoch = epoch;
  }

  get size(): number {
    return this.#partitions.size;
  }

  isEmpty(): boolean {
    return this.#partitions.size === 0;
  }

  /** The cached partitions in session order. */
  partitions(): IterableIterator<CachedPartition> {
    return this.#partitions.values();
  }

  /** Whether `cached` is this session's partition for its key. */
  holds(cached: CachedPartition): boolean {
    return this.#partitions.get(cached.key) === cached;
  }

  find(topicId: string, partition: number): CachedPartition | undefined {
    return this.#partitions.get(topicIdPartitionKey(topicId, partition));
  }

  /** Deprioritizes a partition that returned records: the next read starts elsewhere. */
  moveToEnd(cached: CachedPartition): void {
    if (this.#partitions.delete(cached.key)) this.#partitions.set(cached.key, cached);
  }

  /** Removes a partition directly (tests use it to mimic Kafka's partitionMap iterator removal). */
  removePartition(topicId: string, partition: number): boolean {
    return this.#partitions.delete(topicIdPartitionKey(topicId, partition));
  }

  /**
   * Applies an incremental request: listed partitions are added (at the end)
   * or have their parameters updated in place; then forgotten ones are
   * removed. (Kafka's `update` also lists what was added, updated and
   * removed, for its debug log; nothing here reads such lists.)
   */
  update(fetchData: ReadonlyMap<string, FetchTarget>, toForget: readonly TopicIdPartition[]): void {
    // By key, then a lookup: a Map's entries iterator makes a [key, value] array per step.
    for (const key of fetchData.keys()) {
      const target = fetchData.get(key) as FetchTarget;
      const cached = this.#partitions.get(key);
      if (cached === undefined) this.#partitions.set(key, CachedPartition.fromRequest(target));
      else cached.updateRequestParams(target);
    }
    for (const tp of toForget) this.#partitions.delete(topicIdPartitionKey(tp.topicId, tp.partition));
  }
}
