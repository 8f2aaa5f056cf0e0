import { describe, expect, it } from "vitest";
import { inTurn } from "../src/bench/bench-suite.js";

describe("a pair of measurements taken in turn", () => {
  it("runs the first side first in even rounds and the second in odd ones, and gives the results in the pair's order", async () => {
    const calls: string[] = [];
    const side = (name: string) => async () => {
      calls.push(name);
      return name;
    };
    const results = [];
    for (let round = 0; round < 3; round++) results.push(await inTurn(round, side("a"), side("b")));
    expect(calls).toEqual(["a", "b", "b", "a", "a", "b"]);
    expect(results).toEqual([
      ["a", "b"],
      ["a", "b"],
      ["a", "b"],
    ]);
  });
});
