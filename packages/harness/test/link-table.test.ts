import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LinkState, LinkTable } from "../src/router/link-state.js";

const ACTORS = ["a", "b", "c", "d"];

describe("LinkTable", () => {
  it("gives one LinkState per directed link, whether the sender's rank is given or not, whatever the lookup order", () => {
    const lookup = fc.record({ from: fc.nat(3), to: fc.nat(3), ranked: fc.boolean() });
    fc.assert(
      fc.property(fc.array(lookup, { maxLength: 60 }), (lookups) => {
        const table = new LinkTable(7);
        const seen = new Map<string, LinkState>();
        for (const { from, to, ranked } of lookups) {
          const sender = ACTORS[from] as string;
          const receiver = ACTORS[to] as string;
          const link = table.get(sender, receiver, ranked ? from : -1);
          expect(link.name).toBe(`${sender}>${receiver}`);
          const name = `${sender}>${receiver}`;
          const first = seen.get(name);
          if (first === undefined) seen.set(name, link);
          else expect(link).toBe(first);
        }
      }),
    );
  });

  it("does not take a rank given for another sender for that sender's", () => {
    const table = new LinkTable(7);
    const ab = table.get("a", "b", 0);
    const cb = table.get("c", "b", 0);
    expect(cb).not.toBe(ab);
    expect(cb.name).toBe("c>b");
    expect(table.get("a", "b", 0)).toBe(ab);
  });

  it("draws the same numbers through draw() and through random()", () => {
    const one = new LinkState("a>b", 42);
    const other = new LinkState("a>b", 42);
    for (let message = 0; message < 5; message++) {
      one.next();
      other.next();
      for (let i = 0; i < 4; i++) expect(one.draw()).toBe(other.random());
    }
  });
});
