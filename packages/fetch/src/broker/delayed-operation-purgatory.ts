/** A delayed operation: an id and the partitions whose changes may complete it. */
export interface DelayedOperation {
  readonly id: number;
  readonly watchKeys: readonly string[];
}

/** What `watching` answers for a key nothing watches (most keys, most of the time): no array made. */
const NO_OPS: readonly never[] = [];

/**
 * The operations that started watching one key, in that order, completed
 * ones among them until the next look at the key or the next sweep drops
 * them; and whether that order is still id order.
 */
interface Watchers<Op> {
  readonly entries: Parked<Op>[];
  inIdOrder: boolean;
}

/**
 * A parked operation, and how many watcher entries it holds (one per
 * distinct key, as it started watching). The keys' lists hold this record,
 * not the operation: an entry is live while its record is the one parked
 * under the operation's id, so an operation parked again after its removal
 * leaves no old entry that looks live.
 */
interface Parked<Op> {
  readonly op: Op;
  entries: number;
}

/** Fewest stale watcher entries that make `remove` sweep every key (Kafka's purgatory purge interval, 1,000 by default). */
const SWEEP_AFTER = 1000;

/**
 * Requests parked until their partitions change or they time out (Kafka's
 * `DelayedOperationPurgatory`), watched by partition key. The owner arms one
 * timer per operation and calls `checkAndComplete` whenever a watched
 * partition changes; everything runs on the broker's one event loop, so
 * there is no locking.
 *
 * As in Kafka, an operation that completes or expires leaves the keys it
 * watched at once only in its count: its entries stay in the keys' lists
 * until the key is next looked at (`watching` drops them) or until stale
 * entries outnumber both SWEEP_AFTER and the live ones (`remove` then
 * sweeps every key, as Kafka's expiration reaper purges its watchers). A
 * fetch watches every partition of its session and most fetches end by
 * their timeout or by one partition's change, so removal touches no key.
 */
export class DelayedOperationPurgatory<Op extends DelayedOperation> {
  readonly #ops = new Map<number, Parked<Op>>();
  readonly #watchers = new Map<string, Watchers<Op>>();
  /** Entries in the keys' lists of operations no longer parked. */
  #stale = 0;
  /** Entries of parked operations. */
  #live = 0;

  get size(): number {
    return this.#ops.size;
  }

  get(id: number): Op | undefined {
    return this.#ops.get(id)?.op;
  }

  /** Entries in the keys' lists, stale ones included (what the lazy removal keeps in memory). */
  get watcherEntries(): number {
    return this.#live + this.#stale;
  }

  /** Parks an operation (a parked id again is a bug in the caller: its answer could go out twice). */
  watch(op: Op): void {
    if (this.#ops.has(op.id)) throw new Error(`delayed operation ${op.id} is already parked`);
    const parked: Parked<Op> = { op, entries: 0 };
    const keys = op.watchKeys;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      let watchers = this.#watchers.get(key);
      if (watchers === undefined) {
        watchers = { entries: [], inIdOrder: true };
        this.#watchers.set(key, watchers);
      }
      const entries = watchers.entries;
      const last = entries[entries.length - 1];
      // A key listed twice by the operation: its entry is already last (nothing else is watched meanwhile).
      if (last === parked) continue;
      if (last !== undefined && op.id < last.op.id) watchers.inIdOrder = false;
      entries.push(parked);
      parked.entries++;
    }
    this.#ops.set(op.id, parked);
    this.#live += parked.entries;
  }

  /** Takes the operation out (it completed or expired); returns it if it was still parked. */
  remove(id: number): Op | undefined {
    const parked = this.#ops.get(id);
    if (parked === undefined) return undefined;
    this.#ops.delete(id);
    this.#live -= parked.entries;
    this.#stale += parked.entries;
    if (this.#stale >= SWEEP_AFTER && this.#stale > this.#live) this.#sweep();
    return parked.op;
  }

  /** The operations watching `key`, oldest (lowest id) first (a copy: completing them changes the watchers). */
  watching(key: string): readonly Op[] {
    const watchers = this.#watchers.get(key);
    if (watchers === undefined || watchers.entries.length === 0) return NO_OPS;
    this.#dropStale(watchers);
    const entries = watchers.entries;
    if (entries.length === 0) return NO_OPS;
    // Operations are parked in id order, so this is already sorted unless one was parked out of order.
    if (!watchers.inIdOrder) {
      entries.sort((a, b) => a.op.id - b.op.id);
      watchers.inIdOrder = true;
    }
    const ops: Op[] = [];
    for (let i = 0; i < entries.length; i++) ops.push((entries[i] as Parked<Op>).op);
    return ops;
  }

  /** Drops the entries of operations no longer parked from one key's list, keeping the rest in their order. */
  #dropStale(watchers: Watchers<Op>): void {
    const entries = watchers.entries;
    let kept = 0;
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i] as Parked<Op>;
      if (this.#ops.get(entry.op.id) === entry) entries[kept++] = entry;
    }
    this.#stale -= entries.length - kept;
    entries.length = kept;
  }

  #sweep(): void {
    for (const watchers of this.#watchers.values()) this.#dropStale(watchers);
  }
}
