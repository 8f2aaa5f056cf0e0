/**
 * The range bookkeeping of Kafka's `UniformHeterogeneousAssignmentBuilder.
 * MemberAssignmentBalancer` (KAFKA-17710), over integer member indexes.
 *
 * The members of one topic are sorted once by (assigned partition count,
 * member index). The *least loaded range* is the prefix of members sharing
 * the lowest level: partitions are dealt round-robin over it; when every
 * member of the range got one, the level rises by one, members whose count
 * equals the new level join the end of the range, and dealing restarts at
 * the head. The *most loaded range* mirrors this from the top for taking
 * partitions away. Both use the live counts in `sizes`, exactly like Kafka,
 * which is what makes results bit-exact (it is not a fresh minimum per pick).
 */
export class MemberAssignmentBalancer {
  private readonly sortedMembers: Int32Array;
  private memberCount = 0;
  private buckets = new Int32Array(64);
  private sortKeys = new Float64Array(0);

  /** [0, leastLoadedRangeEnd) holds the members with the smallest count. */
  private leastLoadedRangeEnd = 0;
  /** The count of the least loaded range before it receives partitions. */
  private leastLoadedRangePartitionCount = -1;
  /** Position in sortedMembers of the next member to give a partition. */
  private nextLeastLoadedMember = 0;
  /** [mostLoadedRangeStart, mostLoadedRangeEnd) holds the members with the largest count. */
  private mostLoadedRangeStart = 0;
  /** Not simply the end of the list: members with nothing to give up are swapped out past it. */
  private mostLoadedRangeEnd = 0;
  /** The count of the most loaded range before partitions are taken from it. */
  private mostLoadedRangePartitionCount = 1;
  /** Position in sortedMembers of the next member to take a partition from. */
  private nextMostLoadedMember = -1;

  /** `sizes[m]` is the number of partitions member m is assigned; the balancer reads it live. */
  constructor(private readonly sizes: Int32Array) {
    this.sortedMembers = new Int32Array(sizes.length);
  }

  /**
   * Resets the balancer for the members `members[from..to)`, which must be in
   * ascending index order and not empty. Returns max - min of their counts.
   */
  initialize(members: Int32Array, from: number, to: number): number {
    const count = to - from;
    if (count <= 0) throw new RangeError("Cannot balance an empty subscriber list.");
    this.sortBySizeThenIndex(members, from, to);
    this.memberCount = count;
    const sorted = this.sortedMembers;
    const smallest = this.sizes[sorted[0]!]!;
    const largest = this.sizes[sorted[count - 1]!]!;

    this.leastLoadedRangeEnd = 0;
    this.leastLoadedRangePartitionCount = smallest - 1;
    this.nextLeastLoadedMember = 0;

    this.mostLoadedRangeStart = count;
    this.mostLoadedRangeEnd = count;
    this.mostLoadedRangePartitionCount = largest + 1;
    this.nextMostLoadedMember = count - 1;

    return largest - smallest;
  }

  /** The member to give the next partition to; assumes it will get one. */
  nextLeastLoaded(): number {
    const sorted = this.sortedMembers;
    const sizes = this.sizes;
    if (this.nextLeastLoadedMember >= this.leastLoadedRangeEnd) {
      // End of the range: bump its level and let members at the new level join.
      this.leastLoadedRangePartitionCount++;
      while (
        this.leastLoadedRangeEnd < this.memberCount &&
        sizes[sorted[this.leastLoadedRangeEnd]!] === this.leastLoadedRangePartitionCount
      ) {
        this.leastLoadedRangeEnd++;
      }
      this.nextLeastLoadedMember = 0;
    }
    return sorted[this.nextLeastLoadedMember++]!;
  }

  /** The member to take the next partition from, or -1 when none is left; assumes one is taken. */
  nextMostLoaded(): number {
    const sorted = this.sortedMembers;
    const sizes = this.sizes;
    if (this.nextMostLoadedMember < this.mostLoadedRangeStart) {
      if (this.mostLoadedRangeEnd <= this.mostLoadedRangeStart && this.mostLoadedRangeStart > 0) {
        // The range was emptied by exclusions: restart from the level just below it,
        // so that it surely expands.
        this.mostLoadedRangePartitionCount = sizes[sorted[this.mostLoadedRangeStart - 1]!]!;
      } else {
        this.mostLoadedRangePartitionCount--;
      }
      while (this.mostLoadedRangeStart > 0 && sizes[sorted[this.mostLoadedRangeStart - 1]!] === this.mostLoadedRangePartitionCount) {
        this.mostLoadedRangeStart--;
      }
      this.nextMostLoadedMember = this.mostLoadedRangeEnd - 1;
    }
    if (this.nextMostLoadedMember < 0) return -1;
    return sorted[this.nextMostLoadedMember--]!;
  }

  /** Drops the member last returned by `nextMostLoaded` from the most loaded range (it has nothing to give). */
  excludeMostLoaded(): void {
    const sorted = this.sortedMembers;
    const position = this.nextMostLoadedMember + 1;
    const member = sorted[position]!;
    sorted[position] = sorted[this.mostLoadedRangeEnd - 1]!;
    sorted[this.mostLoadedRangeEnd - 1] = member;
    this.mostLoadedRangeEnd--;
  }

  /** Whether the two ranges' levels differ by at most one. */
  isBalanced(): boolean {
    return this.mostLoadedRangePartitionCount - this.leastLoadedRangePartitionCount <= 1;
  }

  /** Stable counting sort by count (input ascending by index); a comparison sort when counts spread widely. */
  private sortBySizeThenIndex(members: Int32Array, from: number, to: number): void {
    const sizes = this.sizes;
    const sorted = this.sortedMembers;
    const count = to - from;
    let min = sizes[members[from]!]!;
    let max = min;
    for (let i = from + 1; i < to; i++) {
      const size = sizes[members[i]!]!;
      if (size < min) min = size;
      else if (size > max) max = size;
    }
    const span = max - min + 1;
    if (span <= 2 * count + 1024) {
      if (this.buckets.length < span + 1) this.buckets = new Int32Array(Math.max(span + 1, this.buckets.length * 2));
      const buckets = this.buckets;
      buckets.fill(0, 0, span + 1);
      for (let i = from; i < to; i++) buckets[sizes[members[i]!]! - min + 1]!++;
      for (let b = 1; b <= span; b++) buckets[b]! += buckets[b - 1]!;
      for (let i = from; i < to; i++) {
        const member = members[i]!;
        sorted[buckets[sizes[member]! - min]!++] = member;
      }
      return;
    }
    if (this.sortKeys.length < count) this.sortKeys = new Float64Array(Math.max(count, this.sortKeys.length * 2));
    const keys = this.sortKeys.subarray(0, count);
    const stride = sizes.length;
    for (let i = 0; i < count; i++) {
      const member = members[from + i]!;
      keys[i] = sizes[member]! * stride + member;
    }
    keys.sort();
    for (let i = 0; i < count; i++) sorted[i] = keys[i]! % stride;
  }
}
