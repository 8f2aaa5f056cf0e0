import type { RecordSource } from "@kcsim/fetch";
import { type Context, compareTp, type TopicPartition, tpKey } from "@kcsim/protocol";
import type { MemberObserver, OwnershipChangeCause } from "./member-observer.js";

/**
 * Where an assigned partition stands:
 * - `awaiting-callback`: newly assigned, onPartitionsAssigned has not completed;
 * - `owned`: the application may fetch and process it;
 * - `pending-revocation`: its revocation began (commit, onPartitionsRevoked);
 * - `released`: lost or given up on leave, waiting for the callback to finish.
 * Only `owned` partitions are fetched.
 */
export type AssignedPartitionStatus = "awaiting-callback" | "owned" | "pending-revocation" | "released";

interface Entry {
  readonly partition: TopicPartition;
  /** Its tpKey (the key of the entries map). */
  readonly key: string;
  status: AssignedPartitionStatus;
}

/** An assigned partition with its status, as `entries()` lists them. */
export type AssignedPartitionEntry = Readonly<Entry>;

/**
 * The partitions assigned to the consumer (the assignment half of Kafka's
 * `SubscriptionState`), kept in step with the RecordSource. Every change of
 * the owned set is reported as a `member.owned` observation.
 */
export class AssignedPartitions {
  readonly #source: RecordSource;
  readonly #observer: MemberObserver;
  readonly #entries = new Map<string, Entry>();
  /** The entries sorted by partition, made on demand and dropped whenever a partition is added or removed. */
  #sorted: readonly Entry[] | null = null;
  #reportedOwned = new Set<string>();
  /**
   * Whether the owned set may differ from the one last reported: false only
   * when no partition became or stopped being owned since. Spares #report
   * the comparison when nothing owned moved (installing an assignment).
   */
  #ownedMayHaveChanged = false;

  constructor(source: RecordSource, observer: MemberObserver) {
    this.#source = source;
    this.#observer = observer;
  }

  /** Every assigned partition, whatever its status, sorted. */
  all(): TopicPartition[] {
    return this.#sortedEntries().map((entry) => entry.partition);
  }

  /** Every assigned partition with its status, sorted by partition (a snapshot: statuses read later may have moved on). */
  entries(): readonly AssignedPartitionEntry[] {
    return this.#sortedEntries();
  }

  owned(): TopicPartition[] {
    return this.#withStatus("owned");
  }

  statusOf(partition: TopicPartition): AssignedPartitionStatus | undefined {
    return this.#entries.get(tpKey(partition.topic, partition.partition))?.status;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Revocation begins: stop fetching these before anything else happens to them. */
  markPendingRevocation(partitions: readonly TopicPartition[], ctx: Context): void {
    this.#setStatus(partitions, "pending-revocation", ctx);
    this.#report("revoked", ctx);
  }

  /** The whole assignment is lost or given up: nothing is fetched or owned from now on. */
  releaseAll(cause: "lost" | "leave", ctx: Context): void {
    this.#setEntries(this.#sortedEntries(), "released", ctx);
    this.#report(cause, ctx);
  }

  /**
   * Installs a reconciled assignment: partitions not in it are dropped from
   * the source (their revocation is complete), added ones wait, unfetched,
   * for onPartitionsAssigned.
   */
  install(assignment: readonly TopicPartition[], added: readonly TopicPartition[], ctx: Context): void {
    const keep = new Set(assignment.map((tp) => tpKey(tp.topic, tp.partition)));
    for (const [key, entry] of this.#entries) {
      if (keep.has(key)) continue;
      this.#entries.delete(key);
      if (entry.status === "owned") this.#ownedMayHaveChanged = true;
    }
    for (const partition of added) {
      const key = tpKey(partition.topic, partition.partition);
      if (this.#entries.get(key)?.status === "owned") this.#ownedMayHaveChanged = true;
      this.#entries.set(key, { partition, key, status: "awaiting-callback" });
    }
    this.#sorted = null;
    this.#source.assign(this.all(), ctx);
    if (added.length > 0) this.#source.setFetchable(added, false, ctx);
    this.#report("revoked", ctx);
  }

  /**
   * onPartitionsAssigned completed: partitions awaiting it become owned and
   * fetchable, except those in `except` (keys), which keep waiting until a
   * revocation removes them. Returns the enabled ones.
   */
  enableAwaitingCallback(ctx: Context, except: ReadonlySet<string> = new Set()): TopicPartition[] {
    const enabling = this.#entriesWith("awaiting-callback").filter((entry) => !except.has(entry.key));
    this.#setEntries(enabling, "owned", ctx);
    this.#report("assigned", ctx);
    return enabling.map((entry) => entry.partition);
  }

  /** Forgets the whole assignment (after the lost/revoked callback, or on leave). */
  clear(cause: OwnershipChangeCause, ctx: Context): void {
    if (this.#entries.size === 0) return;
    this.#entries.clear();
    this.#ownedMayHaveChanged = true;
    this.#sorted = null;
    this.#source.assign([], ctx);
    this.#report(cause, ctx);
  }

  #withStatus(status: AssignedPartitionStatus): TopicPartition[] {
    return this.#entriesWith(status).map((entry) => entry.partition);
  }

  /** The entries with this status, sorted by partition. */
  #entriesWith(status: AssignedPartitionStatus): Entry[] {
    return this.#sortedEntries().filter((entry) => entry.status === status);
  }

  #sortedEntries(): readonly Entry[] {
    this.#sorted ??= [...this.#entries.values()].sort((a, b) => compareTp(a.partition, b.partition));
    return this.#sorted;
  }

  #setStatus(partitions: readonly TopicPartition[], status: AssignedPartitionStatus, ctx: Context): void {
    const entries: Entry[] = [];
    for (const partition of partitions) {
      const entry = this.#entries.get(tpKey(partition.topic, partition.partition));
      if (entry !== undefined) entries.push(entry);
    }
    this.#setEntries(entries, status, ctx);
  }

  /** Moves these entries (this.#entries' own) to `status`; the source fetches the partitions that became owned, stops the others. */
  #setEntries(entries: readonly Entry[], status: AssignedPartitionStatus, ctx: Context): void {
    const changed: TopicPartition[] = [];
    for (const entry of entries) {
      if (entry.status === status) continue;
      if (entry.status === "owned" || status === "owned") this.#ownedMayHaveChanged = true;
      entry.status = status;
      changed.push(entry.partition);
    }
    if (changed.length > 0) this.#source.setFetchable(changed, status === "owned", ctx);
  }

  /** Emits `member.owned` if the owned set differs from the last one reported. */
  #report(cause: OwnershipChangeCause, ctx: Context): void {
    if (!this.#ownedMayHaveChanged) return;
    this.#ownedMayHaveChanged = false;
    const ownedEntries = this.#entriesWith("owned");
    const keys = new Set(ownedEntries.map((entry) => entry.key));
    if (keys.size === this.#reportedOwned.size && [...keys].every((key) => this.#reportedOwned.has(key))) return;
    this.#reportedOwned = keys;
    this.#observer.owned(
      ctx,
      ownedEntries.map((entry) => entry.partition),
      cause,
    );
  }
}
