import { type EventKey, tieBreak } from "./event.js";
import { HeapKeys } from "./heap-keys.js";

/**
 * A 4-ary min-heap of events in the total order (EventKey): the queue of
 * messages and control events. Keys are unique, so the pop order is the
 * key order whatever the insertion order or the heap's shape. Four children
 * per node make the heap half as deep as a binary one: a pop compares more
 * siblings but moves fewer items, which is cheaper for queues of thousands.
 * The keys live in typed arrays beside the items (HeapKeys). Timers, which
 * are cancelled and re-armed, live in a TimerHeap instead.
 */
export class EventHeap<T extends EventKey> {
  readonly #items: T[] = [];
  readonly #keys = new HeapKeys();

  get size(): number {
    return this.#items.length;
  }

  peek(): T | undefined {
    return this.#items[0];
  }

  push(item: T): void {
    const items = this.#items;
    const keys = this.#keys;
    const d = item.due;
    const t = tieBreak(item);
    let i = items.length;
    keys.reserve(i + 1, i);
    items.push(item);
    while (i > 0) {
      const parent = (i - 1) >> 2;
      if (!keys.keyBeforeSlot(d, t, parent)) break;
      items[i] = items[parent] as T;
      keys.move(parent, i);
      i = parent;
    }
    items[i] = item;
    keys.set(i, d, t);
  }

  pop(): T | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) return top;
    const keys = this.#keys;
    const n = items.length;
    // The last item's keys are at its old slot, n, which the sift below never writes.
    const d = keys.due[n] as number;
    const t = keys.tie[n] as number;
    let i = 0;
    for (;;) {
      const first = 4 * i + 1;
      if (first >= n) break;
      const child = keys.earliestChild(first, n);
      if (!keys.slotBeforeKey(child, d, t)) break;
      items[i] = items[child] as T;
      keys.move(child, i);
      i = child;
    }
    items[i] = last;
    keys.set(i, d, t);
    return top;
  }
}
