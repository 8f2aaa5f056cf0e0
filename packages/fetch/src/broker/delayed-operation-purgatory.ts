/** A delayed operation: an id and the partitions whose changes may complete it. */
export interface DelayedOperation {
  readonly id: number;
  readonly watchKeys: readonly string[];
}

/**
 * Requests parked until their partitions change or they time out (Kafka's
 * `DelayedOperationPurgatory`), watched by partition key. The owner arms one
 * timer per operation and calls `checkAndComplete` whenever a watched
 * partition changes; everything runs on the broker's one event loop, so
 * there is no locking.
 */
export class DelayedOperationPurgatory<Op extends DelayedOperation> {
  readonly #ops = new Map<number, Op>();
  readonly #watchers = new Map<string, Set<number>>();

  get size(): number {
    return this.#ops.size;
  }

  get(id: number): Op | undefined {
    return this.#ops.get(id);
  }

  watch(op: Op): void {
    this.#ops.set(op.id, op);
    for (const key of op.watchKeys) {
      let ids = this.#watchers.get(key);
      if (ids === undefined) {
        ids = new Set();
        this.#watchers.set(key, ids);
      }
      ids.add(op.id);
    }
  }

  /** Takes the operation out (it completed or expired); returns it if it was still parked. */
  remove(id: number): Op | undefined {
    const op = this.#ops.get(id);
    if (op === undefined) return undefined;
    this.#ops.delete(id);
    for (const key of op.watchKeys) {
      const ids = this.#watchers.get(key);
      ids?.delete(id);
      if (ids?.size === 0) this.#watchers.delete(key);
    }
    return op;
  }

  /** The operations watching `key`, oldest first. */
  watching(key: string): Op[] {
    const ids = this.#watchers.get(key);
    if (ids === undefined) return [];
    return [...ids].sort((a, b) => a - b).flatMap((id) => this.#ops.get(id) ?? []);
  }
}
