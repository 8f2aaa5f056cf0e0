import { type EventKey, precedes } from "./event.js";

/**
 * A binary min-heap of events in the total order (EventKey): the queue of
 * messages and control events. Keys are unique, so the pop order is the
 * key order whatever the insertion order. Timers, which are cancelled and
 * re-armed, live in a TimerHeap instead.
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
      const parent = (i - 1) >> 1;
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
      let child = 2 * i + 1;
      if (child >= n) break;
      const right = child + 1;
      if (right < n && precedes(items[right] as T, items[child] as T)) child = right;
      const below = items[child] as T;
      if (!precedes(below, last)) break;
      items[i] = below;
      i = child;
    }
    items[i] = last;
    return top;
  }
}
