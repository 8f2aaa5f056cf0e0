import { type ArmedTimer, tieBreak } from "./event.js";
import { HeapKeys } from "./heap-keys.js";

/**
 * The armed timers, a 4-ary min-heap (see EventHeap, keys in HeapKeys) in
 * the total order (EventKey) that knows where each timer is (its `slot`):
 * cancelling or re-arming a timer takes it out at once (O(log n)), so the
 * queue never holds a timer that would not fire and nothing stale is ever
 * popped.
 *
 * A timer re-armed to a later key (the same due time with a new sequence
 * number, or a later one: a consumer re-arms its background timer after
 * every event, a coordinator a member's session timeout at every
 * heartbeat) keeps its place and its old key and is marked `behind`: the
 * heap is ordered by keys that are never later than the timers' own, so a
 * timer that reaches the top with its own key is the earliest, and one that
 * reaches it `behind` takes its own key there and sinks to its place before
 * anything is popped. The order popped is the one of re-keying at once; a
 * timer re-armed many times between two pops moves once.
 *
 * A pop leaves a hole at the top, keyed before every key, and the next timer
 * queued fills it and sinks to its place: a timer popped and armed again
 * while its event runs (an actor's next step, its background wake) costs
 * one sift from the top, where taking the last item up to the top and
 * then adding the new one at the bottom cost two. The next peek fills a
 * hole still open with the last item, as a removal does.
 */
export class TimerHeap {
  readonly #items: ArmedTimer[] = [];
  readonly #keys = new HeapKeys();
  /** Slot 0 is a hole (its item was popped; its keys precede every key), not a queued timer. */
  #hole = false;

  get size(): number {
    return this.#hole ? this.#items.length - 1 : this.#items.length;
  }

  /** The earliest timer (in its own key), or undefined. */
  peek(): ArmedTimer | undefined {
    const items = this.#items;
    if (this.#hole) this.#fillHole();
    let top = items[0];
    while (top?.behind) {
      top.behind = false;
      this.#down(top, top.due, tieBreak(top), 0);
      top = items[0];
    }
    return top;
  }

  /** Queues a timer; one already queued (re-armed with a new due time and seq) takes its new key (see the class). */
  push(timer: ArmedTimer): void {
    const items = this.#items;
    const slot = timer.slot;
    if (slot >= 0 && items[slot] === timer) {
      const keys = this.#keys;
      const d = timer.due;
      const queuedDue = keys.due[slot] as number;
      if (d > queuedDue) {
        timer.behind = true;
        return;
      }
      const t = tieBreak(timer);
      if (d === queuedDue && t >= (keys.tie[slot] as number)) {
        timer.behind = true;
        return;
      }
      // Earlier than the key it is queued by: up from its place, in its own key.
      timer.behind = false;
      this.#up(timer, d, t, slot);
      return;
    }
    timer.behind = false;
    if (this.#hole) {
      // It takes the popped timer's place at the top and sinks from there.
      this.#hole = false;
      this.#down(timer, timer.due, tieBreak(timer), 0);
      return;
    }
    const n = items.length;
    this.#keys.reserve(n + 1, n);
    items.push(timer);
    this.#up(timer, timer.due, tieBreak(timer), n);
  }

  /** Takes the earliest timer out of the queue (leaving a hole at the top: see the class) and returns it. */
  pop(): ArmedTimer | undefined {
    const top = this.peek();
    if (top === undefined) return undefined;
    top.slot = -1;
    top.behind = false;
    // No key comes before the hole's, so nothing queued meanwhile climbs into it (#up stops below it).
    this.#keys.set(0, Number.NEGATIVE_INFINITY, Number.NEGATIVE_INFINITY);
    this.#hole = true;
    return top;
  }

  /** Takes a timer out of the queue; does nothing if it is not in it. */
  remove(timer: ArmedTimer): void {
    const items = this.#items;
    const i = timer.slot;
    if (i < 0 || items[i] !== timer) return;
    timer.slot = -1;
    timer.behind = false;
    const last = items.pop() as ArmedTimer;
    if (last === timer) return;
    // The last timer fills the hole and moves up or down from there; its keys are at its old slot, items.length.
    const keys = this.#keys;
    const n = items.length;
    this.#settle(last, keys.due[n] as number, keys.tie[n] as number, i);
  }

  /** The last timer fills the hole at the top and sinks to its place (or the queue is empty). */
  #fillHole(): void {
    this.#hole = false;
    const items = this.#items;
    const last = items.pop() as ArmedTimer;
    if (items.length === 0) return; // the hole was all there was
    const keys = this.#keys;
    const n = items.length;
    this.#down(last, keys.due[n] as number, keys.tie[n] as number, 0);
  }

  /** Puts a timer with key (d, t) at `slot` (its own, or a hole) in its place: up if it precedes the parent, else down. */
  #settle(timer: ArmedTimer, d: number, t: number, slot: number): void {
    if (slot > 0 && this.#keys.keyBeforeSlot(d, t, (slot - 1) >> 2)) this.#up(timer, d, t, slot);
    else this.#down(timer, d, t, slot);
  }

  #up(timer: ArmedTimer, d: number, t: number, from: number): void {
    const items = this.#items;
    const keys = this.#keys;
    let i = from;
    while (i > 0) {
      const parent = (i - 1) >> 2;
      if (!keys.keyBeforeSlot(d, t, parent)) break;
      const above = items[parent] as ArmedTimer;
      items[i] = above;
      above.slot = i;
      keys.move(parent, i);
      i = parent;
    }
    items[i] = timer;
    timer.slot = i;
    keys.set(i, d, t);
  }

  #down(timer: ArmedTimer, d: number, t: number, from: number): void {
    const items = this.#items;
    const keys = this.#keys;
    const n = items.length;
    let i = from;
    for (;;) {
      const first = 4 * i + 1;
      if (first >= n) break;
      const child = keys.earliestChild(first, n);
      if (!keys.slotBeforeKey(child, d, t)) break;
      const below = items[child] as ArmedTimer;
      items[i] = below;
      below.slot = i;
      keys.move(child, i);
      i = child;
    }
    items[i] = timer;
    timer.slot = i;
    keys.set(i, d, t);
  }
}
