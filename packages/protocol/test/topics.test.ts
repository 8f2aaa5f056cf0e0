import { describe, expect, it } from "vitest";
import { distinctAscending, parseTpKey, tpKey } from "../src/index.js";

describe("tpKey", () => {
  it("is `topic-partition`, for any topic and partition number", () => {
    expect(tpKey("orders", 3)).toBe("orders-3");
    expect(tpKey("a-b", 0)).toBe("a-b-0");
    expect(tpKey("t", 4095)).toBe("t-4095");
    expect(tpKey("t", 4096)).toBe("t-4096");
    expect(tpKey("t", -1)).toBe("t--1");
    expect(tpKey("t", 1.5)).toBe("t-1.5");
    expect(tpKey("__proto__", 2)).toBe("__proto__-2");
    expect(parseTpKey(tpKey("a-b", 12))).toEqual({ topic: "a-b", partition: 12 });
  });

  it("gives back equal keys for equal topic-partitions, the first one made for the usual ones", () => {
    const topic = ["intern", "ed"].join("-"); // a topic string made at run time
    const first = tpKey(topic, 7);
    expect(tpKey("intern-ed", 7)).toBe(first);
    expect(new Map([[first, 1]]).get(tpKey(topic, 7))).toBe(1);
    // Past the interning bounds keys are made afresh, and still equal.
    expect(tpKey(topic, 100_000)).toBe(tpKey(topic, 100_000));
  });

  it("keeps making correct keys past the bound on interned topics", () => {
    const keys = Array.from({ length: 5000 }, (_, i) => tpKey(`many-${i}`, i % 10));
    keys.forEach((key, i) => {
      expect(key).toBe(`many-${i}-${i % 10}`);
    });
  });
});

describe("distinctAscending", () => {
  it("hands back a strictly ascending list as it is", () => {
    const list = [0, 3, 7];
    expect(distinctAscending(list)).toBe(list);
    const empty: number[] = [];
    expect(distinctAscending(empty)).toBe(empty);
  });

  it("sorts and dedupes any other list into a new one, as a Set and a numeric sort would", () => {
    const list = [5, 1, 5, 3];
    expect(distinctAscending(list)).toEqual([1, 3, 5]);
    expect(list).toEqual([5, 1, 5, 3]);
    expect(distinctAscending([2, 2])).toEqual([2]);
    const withNaN = [3, Number.NaN, 1];
    expect(distinctAscending(withNaN)).toEqual([...new Set(withNaN)].sort((a, b) => a - b));
  });
});
