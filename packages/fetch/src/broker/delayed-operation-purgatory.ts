/** A delayed operation: an id and the partitions whose changes may complete it. */
export interface DelayedOperation {
  readonly id: number;
  readonly watchKeys: readonly string[];
}

/** What `watching` answers for a key nothing watches (most keys, most of the time): no array made. */
const NO_OPS: readonly never[] = [];

/** The operations watching one key, in the order they started watching, and whether that is still id order. */
interface Watchers<Op> {
  readonly ops: Set<Op>;
  lastId: number;
  inIdOrder: boolean;
}

/**
 * Requests parked until their partitions change or they time out (Kafka's
 * `DelayedOperationPurgatory`), watched by partition key. The owner arms one
 * timer per operation and calls `checkAndComplete` whenever a watched
 * partition changes; everything runs on the broker's one event loop, so
 * there is no locking.
 */
export class DelayedOperationPurgatory<Op extends DelayedOperation> {
  /** Each parked operation with the watcher sets it joined (one per watch key), so removing it looks up no key. */
  readonly #ops = new Map<number, { readonly op: Op; readonly joined: Watchers<Op>[] }>();
  readonly #watchers = new Map<string, Watchers<Op>>();

  get size(): number {
    return this.#ops.size;
  }

  get(id: number): Op | undefined {
    return this.#ops.get(id)?.op;
  }

  watch(op: Op): void {
    const joined: Watchers<Op>[] = [];
    this.#ops.set(op.id, { op, joined });
    const keys = op.watchKeys;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      let watchers = this.#watchers.get(key);
      if (watchers === undefined) {
        watchers = { ops: new Set(), lastId: op.id, inIdOrder: true };
        this.#watchers.set(key, watchers);
      } else if (watchers.ops.size === 0) {
        watchers.lastId = op.id;
        watchers.inIdOrder = true;
      } else if (!watchers.ops.has(op)) {
        if (op.id < watchers.lastId) watchers.inIdOrder = false;
        watchers.lastId = op.id;
      }
      watchers.ops.add(op);
      joined.push(watchers);
    }
  }

  /** Takes the operation out (it completed or expired); returns it if it was still parked. */
  remove(id: number): Op | undefined {
    const parked = this.#ops.get(id);
    if (parked === undefined) return undefined;
    this.#ops.delete(id);
    const { op, joined } = parked;
    // An emptied entry stays for the key's next watcher (keys are partitions: a bounded set), so the sets joined are still the keys' sets.
    for (let i = 0; i < joined.length; i++) (joined[i] as Watchers<Op>).ops.delete(op);
    return op;
  }

  /** The operations watching `key`, oldest (lowest id) first (a copy: completing them changes the watchers). */
  watching(key: string): readonly Op[] {
    const watchers = this.#watchers.get(key);
    if (watchers === undefined || watchers.ops.size === 0) return NO_OPS;
    const ops = [...watchers.ops];
    // Operations are parked in id order, so this is already sorted unless one was watched again out of order.
    if (!watchers.inIdOrder) ops.sort((a, b) => a.id - b.id);
    return ops;
  }
}
