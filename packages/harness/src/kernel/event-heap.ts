import { type EventKey, precedes } from "./event.js";

/**
 * A 4-ary min-heap of events in the total order (EventKey): the queue of
 * messages and control events. Keys are unique, so the pop order is the
 * key order whatever the insertion order or the heap's shape. Four children
 * per node make the heap half as deep as a binary one: a pop compares more
 * siblings but moves fewer items, which is cheaper for queues of thousands.
 * Timers, which are cancelled and re-armed, live in a TimerHeap instead.
 */
export class EventHeap<T extends EventKey> {
  readonly #items: T[] = [];

  get size(): number {
    return this.#items.length;
  }

  peek(): T | undefined {
    return this.#items[0];
  }

  push(item: T): void {
    const items = this.#items;
    let i = items.length;
    items.push(item);
    while (i > 0) {
      const parent = (i - 1) >> 2;
      const above = items[parent] as T;
      if (!precedes(item, above)) break;
      items[i] = above;
      i = parent;
    }
    items[i] = item;
  }

  pop(): T | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) return top;
    const n = items.length;
    let i = 0;
    for (;;) {
      const first = 4 * i + 1;
      if (first >= n) break;
      const child = earliestChild(items, first, n);
      const below = items[child] as T;
      if (!precedes(below, last)) break;
      items[i] = below;
      i = child;
    }
    items[i] = last;
    return top;
  }
}

/** The index of the earliest of the up to four children of a 4-ary heap node that start at `first` (< n). */
export function earliestChild<T extends EventKey>(items: readonly T[], first: number, n: number): number {
  let child = first;
  let earliest = items[first] as T;
  const end = Math.min(first + 4, n);
  for (let c = first + 1; c < end; c++) {
    const candidate = items[c] as T;
    if (precedes(candidate, earliest)) {
      child = c;
      earliest = candidate;
    }
  }
  return child;
}
