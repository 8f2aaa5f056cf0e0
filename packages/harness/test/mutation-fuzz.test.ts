import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { drawMutationCases, shippedScenarios } from "../src/fuzz/mutation-cases.js";
import { fuzzMutations, uncleanReason } from "../src/fuzz/mutation-fuzzer.js";
import { fieldPaths, mutate } from "../src/fuzz/scenario-mutations.js";
import { root } from "./kcsim-cli.js";

const scenarios = shippedScenarios(join(root, "scenarios"));

describe("scenario mutations", () => {
  it("reach every field, and a '__proto__' value or key stays data", () => {
    const value = { a: [1, { b: 2 }], c: "x" };
    expect(fieldPaths(value)).toEqual([["a"], ["a", 0], ["a", 1], ["a", 1, "b"], ["c"]]);
    expect(mutate(value, ["a", 1, "b"], "delete")).toEqual({ a: [1, {}], c: "x" });
    expect(mutate(value, ["a", 0], "delete")).toEqual({ a: [{ b: 2 }], c: "x" });
    expect(JSON.stringify(mutate(value, ["c"], "__proto__"))).toBe('{"a":[1,{"b":2}],"c":"__proto__"}');
    expect(value).toEqual({ a: [1, { b: 2 }], c: "x" });
  });
});

describe("the mutation fuzzer", () => {
  /**
   * 500 one-field mutations drawn by fast-check across every shipped
   * scenario (delete, null, -1, 0, 1e9, 1e308, "x", [], {}, "__proto__"),
   * each loaded and validated as `kcsim run` does and, when valid, run
   * inline for up to 1.5 s of virtual time in a worker with a 512 MB heap.
   * Every outcome must be clean: a one-line refusal (exit code 2) or a
   * verdict with no settings error among its violations; no crash, no
   * hang, no out-of-memory abort. `pnpm bench mutation-fuzz` runs 5,000
   * with 10 s runs.
   */
  it("gets a clean outcome from 500 mutated scenarios: a one-line refusal or a verdict, in bounded time", async () => {
    const cases = drawMutationCases(scenarios, 500, 18);
    expect(new Set(cases.map((c) => c.scenarioName)).size).toBe(scenarios.length);
    const results = await fuzzMutations(cases, { workers: 2, capDurationMs: 1_500, timeoutMs: 60_000, heapMb: 512 });
    const unclean = results.flatMap((r) => {
      const reason = uncleanReason(r);
      return reason === null ? [] : [`${r.label}: ${reason}`];
    });
    expect(unclean).toEqual([]);
    const kinds = results.map((r) => r.outcome.kind);
    expect(kinds.filter((k) => k === "rejected").length).toBeGreaterThan(100);
    expect(kinds.filter((k) => k === "verdict").length).toBeGreaterThan(20);
  }, 600_000);
});
