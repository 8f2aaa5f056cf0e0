import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type ArmedTimer, compareKeys, type EventKey } from "../src/index.js";
import { tieBreak } from "../src/kernel/event.js";
import { EventHeap } from "../src/kernel/event-heap.js";
import { TimerHeap } from "../src/kernel/timer-heap.js";

/** A key from small ranges, so equal due times, ranks and sequence numbers (the tie-breaks) are common. */
const key = fc.record({
  due: fc.integer({ min: 0, max: 30 }),
  rank: fc.integer({ min: 0, max: 4 }),
  seq: fc.integer({ min: 0, max: 3 }),
  sub: fc.integer({ min: 0, max: 3 }),
});

type Key = { due: number; rank: number; seq: number; sub: number };

type Op = { push: Key } | { pop: true } | { remove: number };

/** Keys are unique in a run: a script's repeated keys are skipped. */
function firstTime(seen: Set<string>, k: Key): boolean {
  const name = `${k.due}/${k.rank}/${k.seq}/${k.sub}`;
  if (seen.has(name)) return false;
  seen.add(name);
  return true;
}

const ops = fc.array(
  fc.oneof(
    { weight: 5, arbitrary: key.map((k): Op => ({ push: k })) },
    { weight: 3, arbitrary: fc.constant<Op>({ pop: true }) },
    { weight: 2, arbitrary: fc.nat().map((n): Op => ({ remove: n })) },
  ),
  { maxLength: 400 },
);

/**
 * One step of a timer script on the heap and on a sorted reference: "rearm" gives a queued timer the key `k`
 * and pushes it again, "remove" takes one out, anything else queues a new timer with key `k`.
 */
function timerStep(heap: TimerHeap, reference: ArmedTimer[], what: string, pick: number, k: Key): void {
  if (what === "rearm" && reference.length > 0) {
    const timer = reference[pick % reference.length] as ArmedTimer;
    Object.assign(timer, k);
    heap.push(timer);
  } else if (what === "remove" && reference.length > 0) {
    const [removed] = reference.splice(pick % reference.length, 1) as [ArmedTimer];
    heap.remove(removed);
    expect(removed.slot).toBe(-1);
  } else {
    const timer = { ...k, origin: "a", slot: -1, behind: false } as unknown as ArmedTimer;
    heap.push(timer);
    reference.push(timer);
  }
  reference.sort(compareKeys);
}

describe("the event heaps", () => {
  it("EventHeap pops in key order whatever the pushes and pops (against a sorted array)", () => {
    fc.assert(
      fc.property(ops, (script) => {
        const heap = new EventHeap<EventKey>();
        const reference: EventKey[] = [];
        const seen = new Set<string>();
        for (const op of script) {
          if ("remove" in op) continue;
          if ("push" in op) {
            if (!firstTime(seen, op.push)) continue;
            const item: EventKey = { ...op.push, origin: "a" };
            heap.push(item);
            reference.push(item);
            reference.sort(compareKeys);
          } else {
            expect(heap.pop()).toBe(reference.shift());
          }
          expect(heap.size).toBe(reference.length);
          expect(heap.peek()).toBe(reference[0]);
        }
        while (reference.length > 0) expect(heap.pop()).toBe(reference.shift());
        expect(heap.pop()).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });

  it("TimerHeap pops in key order through pushes, pops and removals from anywhere, and keeps every slot true", () => {
    fc.assert(
      fc.property(ops, (script) => {
        const heap = new TimerHeap();
        const reference: ArmedTimer[] = [];
        const seen = new Set<string>();
        for (const op of script) {
          if ("push" in op) {
            if (!firstTime(seen, op.push)) continue;
            const timer = { ...op.push, origin: "a", slot: -1 } as unknown as ArmedTimer;
            heap.push(timer);
            reference.push(timer);
            reference.sort(compareKeys);
          } else if ("pop" in op) {
            const popped = heap.pop();
            expect(popped).toBe(reference.shift());
            if (popped !== undefined) expect(popped.slot).toBe(-1);
          } else if (reference.length > 0) {
            const [removed] = reference.splice(op.remove % reference.length, 1) as [ArmedTimer];
            heap.remove(removed);
            expect(removed.slot).toBe(-1);
            heap.remove(removed); // a second removal does nothing
          }
          expect(heap.size).toBe(reference.length);
          expect(heap.peek()).toBe(reference[0]);
          for (const timer of reference) expect(timer.slot).toBeGreaterThanOrEqual(0);
        }
        while (reference.length > 0) expect(heap.pop()).toBe(reference.shift());
      }),
      { numRuns: 300 },
    );
  });

  it("TimerHeap re-keys a queued timer pushed again with a new key (a re-arm), in key order with every slot true", () => {
    // A step re-arms a queued timer (to a later key or an earlier one), queues a new one, or removes one; the
    // heap is looked at only now and then, so timers re-armed later stay behind (queued by an older key) for
    // many steps, and some are removed or re-armed again while behind.
    const step = fc.tuple(fc.constantFrom("rearm", "rearm", "push", "remove"), fc.nat(), key, fc.boolean());
    fc.assert(
      fc.property(fc.array(step, { maxLength: 300 }), (steps) => {
        const heap = new TimerHeap();
        const reference: ArmedTimer[] = [];
        const seen = new Set<string>();
        for (const [what, pick, k, look] of steps) {
          if (!firstTime(seen, k)) continue;
          timerStep(heap, reference, what, pick, k);
          expect(heap.size).toBe(reference.length);
          if (look) expect(heap.peek()).toBe(reference[0]);
        }
        while (reference.length > 0) expect(heap.pop()).toBe(reference.shift());
        expect(heap.size).toBe(0);
      }),
      { numRuns: 500 },
    );
  });

  it("TimerHeap: what comes between a pop and the next look (the popped timer armed again, new timers, re-arms, removals) keeps the key order", () => {
    // A pop leaves a hole at the top that the next push fills (see TimerHeap); the steps here never look at the
    // heap between a pop and what follows it, unless `look` says so, and keys may come before the popped one.
    const step = fc.tuple(fc.constantFrom("pop", "pop", "again", "push", "rearm", "remove"), fc.nat(), key, fc.boolean());
    fc.assert(
      fc.property(fc.array(step, { maxLength: 300 }), (steps) => {
        const heap = new TimerHeap();
        const reference: ArmedTimer[] = [];
        const seen = new Set<string>();
        let popped: ArmedTimer | undefined;
        for (const [what, pick, k, look] of steps) {
          if (what === "pop") {
            popped = heap.pop();
            expect(popped).toBe(reference.shift());
            if (popped !== undefined) expect(popped.slot).toBe(-1);
          } else if (!firstTime(seen, k)) {
            continue;
          } else if (what === "again" && popped !== undefined) {
            // The popped timer armed again (its cell re-uses the entry), with a new key.
            Object.assign(popped, k);
            heap.push(popped);
            reference.push(popped);
            reference.sort(compareKeys);
            popped = undefined;
          } else {
            timerStep(heap, reference, what, pick, k);
          }
          expect(heap.size).toBe(reference.length);
          for (const timer of reference) expect(timer.slot).toBeGreaterThanOrEqual(0);
          if (look) expect(heap.peek()).toBe(reference[0]);
        }
        while (reference.length > 0) expect(heap.pop()).toBe(reference.shift());
        expect(heap.pop()).toBeUndefined();
        expect(heap.size).toBe(0);
      }),
      { numRuns: 500 },
    );
  });

  it("TimerHeap: a timer re-armed to an earlier key moves ahead at once, also within one due time", () => {
    const timer = (name: string, due: number, seq: number) =>
      ({ kind: "timer", due, origin: "a", rank: 0, seq, sub: 0, to: "a", name, slot: -1, behind: false }) as ArmedTimer & {
        due: number;
        seq: number;
      };
    const heap = new TimerHeap();
    const a = timer("a", 5, 2);
    const b = timer("b", 5, 1);
    heap.push(a);
    heap.push(b);
    expect(heap.peek()).toBe(b);
    a.seq = 0; // the same due time, an earlier tie-break than the key it is queued by
    heap.push(a);
    expect(a.behind).toBe(false);
    expect(heap.peek()).toBe(a);
    a.due = 9; // later: behind, still queued by (5, 0) until it is looked at on top
    heap.push(a);
    expect(a.behind).toBe(true);
    expect(heap.peek()).toBe(b);
    a.due = 3; // earlier than its queued key: up at once
    heap.push(a);
    expect(a.behind).toBe(false);
    expect(heap.pop()).toBe(a);
    expect(heap.pop()).toBe(b);
  });

  it("TimerHeap: a timer re-armed to a later key many times moves once, and a popped timer is never behind", () => {
    const heap = new TimerHeap();
    const timers = Array.from(
      { length: 64 },
      (_, i) =>
        ({
          kind: "timer",
          due: 1000 + i,
          origin: "a",
          rank: 0,
          seq: i,
          sub: 0,
          to: "a",
          name: `t${i}`,
          slot: -1,
          behind: false,
        }) as ArmedTimer,
    );
    for (const timer of timers) heap.push(timer);
    const first = timers[0] as ArmedTimer & { due: number; seq: number };
    // Re-armed 100 times, each later (the same due time and a new seq, then later due times): it stays on top, behind.
    for (let i = 0; i < 100; i++) {
      first.seq = 100 + i;
      if (i >= 50) first.due = 1000 + i;
      heap.push(first);
      expect(first.slot).toBe(0);
      expect(first.behind).toBe(true);
    }
    // Looking at the top sinks it to where its own key (due 1099) belongs.
    expect(heap.peek()).toBe(timers[1]);
    expect(first.behind).toBe(false);
    const order: string[] = [];
    for (let timer = heap.pop(); timer !== undefined; timer = heap.pop()) {
      expect(timer.behind).toBe(false);
      order.push(timer.name);
    }
    // t1..t63 are due at 1001..1063, t0 now at 1099.
    expect(order).toEqual([...Array.from({ length: 63 }, (_, i) => `t${i + 1}`), "t0"]);
  });

  it("tieBreak orders keys of one due time like compareKeys, up to its bounds", () => {
    const part = (max: number) => fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: max - 3, max: max - 1 }));
    const tied = fc.record({ due: fc.constant(7), origin: fc.constant("a"), rank: part(2 ** 19), seq: part(2 ** 32), sub: part(4) });
    fc.assert(
      fc.property(tied, tied, (a, b) => {
        expect(Math.sign(tieBreak(a) - tieBreak(b))).toBe(Math.sign(compareKeys(a, b)));
      }),
      { numRuns: 2000 },
    );
  });

  it("tieBreak refuses a key it cannot order: out of bounds or not an integer", () => {
    const at = { due: 0, origin: "a", rank: 1, seq: 1, sub: 0 };
    expect(() => tieBreak({ ...at, rank: 2 ** 19 })).toThrow(/out of the queue's bounds/);
    expect(() => tieBreak({ ...at, seq: 2 ** 32 })).toThrow(/out of the queue's bounds/);
    expect(() => tieBreak({ ...at, sub: 4 })).toThrow(/out of the queue's bounds/);
    expect(() => tieBreak({ ...at, seq: -1 })).toThrow(/out of the queue's bounds/);
    expect(() => tieBreak({ ...at, seq: 1.5 })).toThrow(/out of the queue's bounds/);
    expect(() => new EventHeap<typeof at>().push({ ...at, sub: 9 })).toThrow(/out of the queue's bounds/);
  });
});
