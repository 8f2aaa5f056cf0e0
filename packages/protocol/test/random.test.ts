import { describe, expect, it } from "vitest";
import { exponential, normal, pareto, streamFor } from "../src/index.js";

const draws = (seed: number, name: string, n: number) => {
  const s = streamFor(seed, name);
  return Array.from({ length: n }, () => s.next());
};

describe("seeded random streams", () => {
  it("give the same sequence for the same seed and name", () => {
    expect(draws(42, "member-1", 50)).toEqual(draws(42, "member-1", 50));
  });

  it("give independent sequences per actor and per seed", () => {
    expect(draws(42, "member-1", 10)).not.toEqual(draws(42, "member-2", 10));
    expect(draws(42, "member-1", 10)).not.toEqual(draws(43, "member-1", 10));
    expect(draws(2 ** 40, "a", 10)).not.toEqual(draws(0, "a", 10));
  });

  it("draw uniforms in [0,1) with the right mean, and distributions with their means", () => {
    const s = streamFor(7, "stats");
    const n = 50_000;
    let sum = 0;
    let normalSum = 0;
    let expSum = 0;
    let paretoSum = 0;
    for (let i = 0; i < n; i++) {
      const u = s.next();
      expect(u).toBeGreaterThanOrEqual(0);
      expect(u).toBeLessThan(1);
      sum += u;
      normalSum += normal(s.next, 10, 2);
      expSum += exponential(s.next, 5);
      paretoSum += pareto(s.next, 1, 3); // mean 1.5
    }
    expect(sum / n).toBeCloseTo(0.5, 2);
    expect(normalSum / n).toBeCloseTo(10, 1);
    expect(expSum / n).toBeGreaterThan(4.85);
    expect(expSum / n).toBeLessThan(5.15);
    expect(paretoSum / n).toBeGreaterThan(1.45);
    expect(paretoSum / n).toBeLessThan(1.55);
  });

  it("rejects a seed that is not a non-negative safe integer", () => {
    expect(() => streamFor(-1, "a")).toThrow(RangeError);
    expect(() => streamFor(1.5, "a")).toThrow(RangeError);
  });
});
