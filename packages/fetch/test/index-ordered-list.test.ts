import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { IndexOrderedList } from "../src/producer/index-ordered-list.js";

interface Item {
  readonly index: number;
}

describe("IndexOrderedList", () => {
  it("keeps its items by index through adds and deletes, and rotates from any start as a sort by rotated index would", () => {
    const pool: Item[] = Array.from({ length: 24 }, (_, index) => ({ index }));
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 23 })), { maxLength: 80 }),
        fc.integer({ min: 0, max: 30 }),
        (ops, start) => {
          const list = new IndexOrderedList<Item>();
          const model = new Set<Item>();
          for (const [adding, at] of ops) {
            const item = pool[at] as Item;
            if (adding) expect(list.add(item)).toBe(!model.has(item));
            else expect(list.delete(item)).toBe(model.has(item));
            if (adding) model.add(item);
            else model.delete(item);
            expect(list.has(item)).toBe(adding);
          }
          const sorted = [...model].sort((a, b) => a.index - b.index);
          expect(list.items()).toEqual(sorted);
          expect(list.size).toBe(model.size);
          const count = pool.length;
          const s = start % count;
          const rotated = [...model].sort((a, b) => ((a.index - s + count) % count) - ((b.index - s + count) % count));
          expect(list.rotatedFrom(s)).toEqual(rotated);
        },
      ),
    );
  });

  it("does not take an equal index for the same item", () => {
    const list = new IndexOrderedList<Item>();
    const a = { index: 3 };
    list.add(a);
    expect(list.has({ index: 3 })).toBe(false);
    expect(list.delete({ index: 3 })).toBe(false);
    expect(list.items()).toEqual([a]);
  });
});
