/**
 * The keys of a 4-ary event heap, stored apart from its items: slot i's due
 * time and tie-break (see tieBreak) in two typed arrays. Sifting compares
 * keys only, so it reads these contiguous arrays instead of the fields of
 * events scattered over the heap (most of a queue operation's cost was
 * those cache misses). The heaps move an item and its two keys together.
 */
export class HeapKeys {
  due = new Float64Array(64);
  tie = new Float64Array(64);

  /** Makes room for `n` slots, keeping the first `kept`. */
  reserve(n: number, kept: number): void {
    if (n <= this.due.length) return;
    const capacity = Math.max(n, this.due.length * 2);
    const due = new Float64Array(capacity);
    const tie = new Float64Array(capacity);
    due.set(this.due.subarray(0, kept));
    tie.set(this.tie.subarray(0, kept));
    this.due = due;
    this.tie = tie;
  }

  /** The slot of the earliest of the up to four children that start at `first` (< n). */
  earliestChild(first: number, n: number): number {
    const due = this.due;
    const tie = this.tie;
    let child = first;
    let bestDue = due[first] as number;
    let bestTie = tie[first] as number;
    const end = Math.min(first + 4, n);
    for (let c = first + 1; c < end; c++) {
      const d = due[c] as number;
      if (d < bestDue || (d === bestDue && (tie[c] as number) < bestTie)) {
        child = c;
        bestDue = d;
        bestTie = tie[c] as number;
      }
    }
    return child;
  }

  /** Whether the key (d, t) comes before slot j's. */
  keyBeforeSlot(d: number, t: number, j: number): boolean {
    const dj = this.due[j] as number;
    return d < dj || (d === dj && t < (this.tie[j] as number));
  }

  /** Whether slot j's key comes before the key (d, t). */
  slotBeforeKey(j: number, d: number, t: number): boolean {
    const dj = this.due[j] as number;
    return dj < d || (dj === d && (this.tie[j] as number) < t);
  }

  /** Slot `to` takes slot `from`'s keys. */
  move(from: number, to: number): void {
    this.due[to] = this.due[from] as number;
    this.tie[to] = this.tie[from] as number;
  }

  set(slot: number, d: number, t: number): void {
    this.due[slot] = d;
    this.tie[slot] = t;
  }
}
