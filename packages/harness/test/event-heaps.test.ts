import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type ArmedTimer, compareKeys, type EventKey } from "../src/index.js";
import { EventHeap } from "../src/kernel/event-heap.js";
import { TimerHeap } from "../src/kernel/timer-heap.js";

/** A key from small ranges, so equal due times and ranks (the tie-breaks) are common. */
const key = fc.record({
  due: fc.integer({ min: 0, max: 30 }),
  rank: fc.integer({ min: 0, max: 4 }),
  seq: fc.integer({ min: 0, max: 1_000_000 }),
});

type Op = { push: { due: number; rank: number; seq: number } } | { pop: true } | { remove: number };

const ops = fc.array(
  fc.oneof(
    { weight: 5, arbitrary: key.map((k): Op => ({ push: k })) },
    { weight: 3, arbitrary: fc.constant<Op>({ pop: true }) },
    { weight: 2, arbitrary: fc.nat().map((n): Op => ({ remove: n })) },
  ),
  { maxLength: 400 },
);

describe("the event heaps", () => {
  it("EventHeap pops in key order whatever the pushes and pops (against a sorted array)", () => {
    fc.assert(
      fc.property(ops, (script) => {
        const heap = new EventHeap<EventKey>();
        const reference: EventKey[] = [];
        let unique = 0;
        for (const op of script) {
          if ("remove" in op) continue;
          if ("push" in op) {
            const item: EventKey = { ...op.push, origin: "a", sub: unique++ };
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
        let unique = 0;
        for (const op of script) {
          if ("push" in op) {
            const timer = { ...op.push, origin: "a", sub: unique++, slot: -1 } as unknown as ArmedTimer;
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
});
