import type { TopicIdPartitions } from "../topic-id-partitions.js";
import type { SubscribedTopicDescriber } from "./subscribed-topic-describer.js";

/** A member's target as the holdings counted it, with what the assignor asks of it. */
export interface CountedTarget {
  readonly target: readonly TopicIdPartitions[];
  /** The topic index of each entry (-1: a topic the describer does not know). */
  readonly topicIndexes: Int32Array;
  /** Partitions listed, valid or not. */
  readonly total: number;
  /** Whether every entry's topic is known and every partition is an integer in its range. */
  readonly valid: boolean;
}

/** The `seenAt` of a target taken out of the counts. */
const RETIRED = -1;

interface Counted extends CountedTarget {
  readonly memberId: string;
  /** The update that last saw it. */
  seenAt: number;
}

/**
 * How many of a group's current targets hold each partition of a describer,
 * kept from one assignment to the next and updated only for the members
 * whose target array changed (targets are immutable: a new target is a new
 * array). A join storm computes one assignment per joining member, and
 * between two of them only a few targets change: re-marking every partition
 * of every target each time was most of the assignor's work.
 *
 * Only partitions the describer knows count (a known topic, a partition in
 * range). `update` takes the members of one assignment; a member id seen
 * twice in one update makes the holdings recount from scratch.
 */
export class PartitionHoldings {
  readonly #topics: SubscribedTopicDescriber;
  /** Per dense partition index: how many targets list it. */
  readonly #counts: Int32Array;
  /** Per topic index: how many of its partitions some target holds. */
  readonly #heldPerTopic: Int32Array;
  /** Each member's target as last counted, by member id. */
  readonly #counted = new Map<string, Counted>();
  /** The targets of the last update, by member position. */
  readonly #byPosition: Counted[] = [];
  /** By member position: the total of a valid target, -1 for an invalid one (the assignor's cheap "fits whole" test). */
  #validTotals = new Int32Array(16);
  /** Partitions listed by the targets of the last update (the sum of their totals). */
  #listed = 0;
  #updates = 0;
  /** The counts are of a recount (duplicate member ids), not of #counted: the next update starts from zero. */
  #recounted = false;

  constructor(topics: SubscribedTopicDescriber) {
    this.#topics = topics;
    this.#counts = new Int32Array(topics.totalPartitions);
    this.#heldPerTopic = new Int32Array(topics.topics.length);
  }

  /** Counts exactly the targets of `members` from now on. */
  update(members: readonly { readonly memberId: string; readonly currentAssignment: readonly TopicIdPartitions[] }[]): void {
    if (this.#recounted) this.#clear();
    const update = ++this.#updates;
    const counted = this.#counted;
    const byPosition = this.#byPosition;
    byPosition.length = members.length;
    const validTotals = this.#validTotalsFor(members.length);
    for (let m = 0; m < members.length; m++) {
      const { memberId, currentAssignment } = members[m]!;
      // Members keep their positions from one assignment to the next unless one before them left. An entry
      // taken out of the counts (earlier in this update: the id is here twice) is not the member's any more.
      let entry = byPosition[m];
      if (entry === undefined || entry.memberId !== memberId || entry.seenAt === RETIRED) entry = counted.get(memberId);
      if (entry?.seenAt === update) {
        this.#recount(members);
        return;
      }
      if (entry === undefined || entry.target !== currentAssignment) {
        if (entry !== undefined) this.#uncount(entry);
        entry = this.#count(memberId, currentAssignment, update);
        counted.set(memberId, entry);
      }
      entry.seenAt = update;
      byPosition[m] = entry;
      validTotals[m] = entry.valid ? entry.total : -1;
    }
    if (counted.size === members.length) return;
    for (const [memberId, entry] of counted) {
      if (entry.seenAt === update) continue;
      this.#uncount(entry);
      counted.delete(memberId);
    }
  }

  /** Partitions listed by the targets of the last update, valid or not (each target counted once per position). */
  get listedPartitions(): number {
    return this.#listed;
  }

  /** By position of the last update: the total of the member's target if valid, else -1 (entries past the members are stale). */
  validTotals(): Int32Array {
    return this.#validTotals;
  }

  /** The target of the member at position `m` of the last update. */
  countedAt(m: number): CountedTarget {
    const entry = this.#byPosition[m];
    if (entry === undefined) throw new RangeError(`no member at position ${m}`);
    return entry;
  }

  /** Whether some counted target holds the partition at dense index `index`. */
  isHeld(index: number): boolean {
    return this.#counts[index]! > 0;
  }

  /** How many partitions of the topic at `topicIndex` some counted target holds. */
  heldInTopic(topicIndex: number): number {
    return this.#heldPerTopic[topicIndex]!;
  }

  /** Member ids repeat: every target is counted, none is remembered by id. */
  #recount(members: readonly { readonly memberId: string; readonly currentAssignment: readonly TopicIdPartitions[] }[]): void {
    this.#clear();
    this.#recounted = true;
    const validTotals = this.#validTotalsFor(members.length);
    for (let m = 0; m < members.length; m++) {
      const { memberId, currentAssignment } = members[m]!;
      const entry = this.#count(memberId, currentAssignment, this.#updates);
      this.#byPosition[m] = entry;
      validTotals[m] = entry.valid ? entry.total : -1;
    }
  }

  #clear(): void {
    this.#byPosition.length = 0;
    this.#counts.fill(0);
    this.#heldPerTopic.fill(0);
    this.#counted.clear();
    this.#recounted = false;
    this.#listed = 0;
  }

  /** The by-position totals, at least `length` long. */
  #validTotalsFor(length: number): Int32Array {
    if (this.#validTotals.length < length) this.#validTotals = new Int32Array(Math.max(length, 2 * this.#validTotals.length));
    return this.#validTotals;
  }

  /** Takes a counted target out of the counts (for good: the entry is retired). */
  #uncount(entry: Counted): void {
    this.#add(entry.target, entry.topicIndexes, -1);
    this.#listed -= entry.total;
    entry.seenAt = RETIRED;
  }

  /** Counts a target in and describes it. */
  #count(memberId: string, target: readonly TopicIdPartitions[], update: number): Counted {
    const topicIndexes = this.#topics.topicIndexesOf(target);
    const valid = this.#add(target, topicIndexes, 1);
    let total = 0;
    for (let entry = 0; entry < target.length; entry++) total += target[entry]!.partitions.length;
    this.#listed += total;
    return { memberId, target, topicIndexes, total, valid, seenAt: update };
  }

  /** Adds the target's valid partitions to the counts (delta 1) or takes them out (-1); whether all were valid. */
  #add(target: readonly TopicIdPartitions[], topicIndexes: Int32Array, delta: 1 | -1): boolean {
    const topics = this.#topics;
    const counts = this.#counts;
    const heldPerTopic = this.#heldPerTopic;
    let valid = true;
    for (let entry = 0; entry < target.length; entry++) {
      const topicIndex = topicIndexes[entry]!;
      if (topicIndex < 0) {
        valid = false;
        continue;
      }
      const offset = topics.partitionOffsetAt(topicIndex);
      const count = topics.partitionCountAt(topicIndex);
      const partitions = target[entry]!.partitions;
      for (let i = 0; i < partitions.length; i++) {
        const partition = partitions[i]!;
        if (!(partition >= 0 && partition < count && Number.isInteger(partition))) {
          valid = false;
          continue;
        }
        const index = offset + partition;
        const before = counts[index]!;
        counts[index] = before + delta;
        if (before === 0) heldPerTopic[topicIndex]!++;
        else if (before === 1 && delta === -1) heldPerTopic[topicIndex]!--;
      }
    }
    return valid;
  }
}
