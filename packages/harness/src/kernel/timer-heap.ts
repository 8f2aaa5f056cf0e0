import { type ArmedTimer, precedes } from "./event.js";
import { earliestChild } from "./event-heap.js";

/**
 * The armed timers, a 4-ary min-heap (see EventHeap) in the total order (EventKey) that
 * knows where each timer is (its `slot`): cancelling or re-arming a timer
 * takes it out at once (O(log n)), so the queue never holds a timer that
 * would not fire and nothing stale is ever popped.
 */
export class TimerHeap {
  readonly #items: ArmedTimer[] = [];

  get size(): number {
    return this.#items.length;
  }

  peek(): ArmedTimer | undefined {
    return this.#items[0];
  }

  push(timer: ArmedTimer): void {
    const items = this.#items;
    items.push(timer);
    this.#up(timer, items.length - 1);
  }

  pop(): ArmedTimer | undefined {
    const top = this.#items[0];
    if (top !== undefined) this.remove(top);
    return top;
  }

  /** Takes a timer out of the queue; does nothing if it is not in it. */
  remove(timer: ArmedTimer): void {
    const items = this.#items;
    const i = timer.slot;
    if (i < 0 || items[i] !== timer) return;
    timer.slot = -1;
    const last = items.pop() as ArmedTimer;
    if (last === timer) return;
    // The last timer fills the hole and moves up or down from there.
    if (i > 0 && precedes(last, items[(i - 1) >> 2] as ArmedTimer)) this.#up(last, i);
    else this.#down(last, i);
  }

  #up(timer: ArmedTimer, from: number): void {
    const items = this.#items;
    let i = from;
    while (i > 0) {
      const parent = (i - 1) >> 2;
      const above = items[parent] as ArmedTimer;
      if (!precedes(timer, above)) break;
      items[i] = above;
      above.slot = i;
      i = parent;
    }
    items[i] = timer;
    timer.slot = i;
  }

  #down(timer: ArmedTimer, from: number): void {
    const items = this.#items;
    const n = items.length;
    let i = from;
    for (;;) {
      const first = 4 * i + 1;
      if (first >= n) break;
      const child = earliestChild(items, first, n);
      const below = items[child] as ArmedTimer;
      if (!precedes(below, timer)) break;
      items[i] = below;
      below.slot = i;
      i = child;
    }
    items[i] = timer;
    timer.slot = i;
  }
}
