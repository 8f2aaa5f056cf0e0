import { compareJavaStrings } from "../topic-partitions.js";

/**
 * The general balancer's `TreeSet<String>` of members ordered by how many
 * partitions they hold, then by id. As in Kafka, callers take a member out
 * before changing its assignment and put it back afterwards.
 */
export class ConsumersByAssignmentSize {
  private readonly sorted: string[] = [];

  constructor(private readonly sizeOf: (member: string) => number) {}

  private compare(a: string, b: string): number {
    return this.sizeOf(a) - this.sizeOf(b) || compareJavaStrings(a, b);
  }

  /** Binary search by the current sizes; -(insertion point) - 1 when absent. */
  private indexOf(member: string): number {
    let lo = 0;
    let hi = this.sorted.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const c = this.compare(this.sorted[mid] as string, member);
      if (c < 0) lo = mid + 1;
      else if (c > 0) hi = mid - 1;
      else return mid;
    }
    return -(lo + 1);
  }

  add(member: string): void {
    const index = this.indexOf(member);
    if (index < 0) this.sorted.splice(-(index + 1), 0, member);
  }

  remove(member: string): void {
    const index = this.indexOf(member);
    if (index >= 0) this.sorted.splice(index, 1);
  }

  first(): string | undefined {
    return this.sorted[0];
  }

  last(): string | undefined {
    return this.sorted[this.sorted.length - 1];
  }

  /** A snapshot, smallest first. */
  members(): readonly string[] {
    return [...this.sorted];
  }
}
