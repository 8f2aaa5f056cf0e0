/**
 * Items with distinct numeric indexes, kept sorted by index (found by
 * binary search): the accumulator's non-empty partition queues in creation
 * order, kept in order as they come and go instead of sorted again for
 * every scan (the sender scans on every record it is handed).
 */
export class IndexOrderedList<T extends { readonly index: number }> {
  readonly #items: T[] = [];

  get size(): number {
    return this.#items.length;
  }

  /** The items by index. Live: a caller that adds or deletes while it iterates must iterate a copy. */
  items(): readonly T[] {
    return this.#items;
  }

  /** Where an item with `index` is, or would go: the first position whose index is not below it. */
  #position(index: number): number {
    const items = this.#items;
    let lo = 0;
    let hi = items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((items[mid] as T).index < index) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  has(item: T): boolean {
    return this.#items[this.#position(item.index)] === item;
  }

  /** Adds the item in its place; false if it is there already. */
  add(item: T): boolean {
    const at = this.#position(item.index);
    if (this.#items[at] === item) return false;
    this.#items.splice(at, 0, item);
    return true;
  }

  /** Removes the item; false if it was not there. */
  delete(item: T): boolean {
    const at = this.#position(item.index);
    if (this.#items[at] !== item) return false;
    this.#items.splice(at, 1);
    return true;
  }

  /** A copy of the items from the first whose index is at least `start`, round to the ones before it (each part by index). */
  rotatedFrom(start: number): T[] {
    const at = this.#position(start);
    return at === 0 ? this.#items.slice() : [...this.#items.slice(at), ...this.#items.slice(0, at)];
  }
}
