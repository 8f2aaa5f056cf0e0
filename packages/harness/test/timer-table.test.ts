import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ArmedTimer } from "../src/index.js";
import { TimerTable } from "../src/kernel/timer-table.js";

/** An entry of a name, kept or not (only the flag matters to the table). */
function entry(name: string, kept: boolean): ArmedTimer {
  return { kind: "timer", due: 0, origin: "a", rank: 0, seq: 1, sub: 0, to: "a", name, slot: -1, behind: false, kept } as ArmedTimer;
}

/** A few names, so the same ones come back and fill, hit and leave the remembered pair. */
const name = fc.constantFrom("app", "bg", "hb", "t-1", "t-2");
const step = fc.oneof(
  fc.record({ op: fc.constant("get" as const), name }),
  fc.record({ op: fc.constant("set" as const), name, kept: fc.boolean() }),
  fc.record({ op: fc.constant("delete" as const), name }),
  fc.record({ op: fc.constant("clear" as const) }),
);

describe("a cell's timer table", () => {
  it("answers every lookup as a Map would, whatever it remembers", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 80 }), (steps) => {
        const table = new TimerTable();
        const reference = new Map<string, ArmedTimer>();
        for (const s of steps) {
          switch (s.op) {
            case "get":
              expect(table.get(s.name)).toBe(reference.get(s.name));
              break;
            case "set": {
              const made = entry(s.name, s.kept);
              table.set(s.name, made);
              reference.set(s.name, made);
              break;
            }
            case "delete":
              table.delete(s.name);
              reference.delete(s.name);
              break;
            case "clear":
              table.clear();
              reference.clear();
              break;
          }
          for (const n of ["app", "bg", "hb", "t-1", "t-2"]) expect(table.get(n)).toBe(reference.get(n));
          expect([...table.values()]).toEqual([...reference.values()]);
        }
      }),
      { numRuns: 300 },
    );
  });
});
