import { availableParallelism } from "node:os";
import { describe, expect, it } from "vitest";
import { huntWorkers, SEEDS_PER_WORKER } from "../src/hunt/hunt-runner.js";

describe("huntWorkers: how many worker threads a hunt starts", () => {
  it("by default gives each worker at least SEEDS_PER_WORKER seeds, up to one per core", () => {
    expect(huntWorkers(undefined, 1)).toBe(1);
    expect(huntWorkers(undefined, SEEDS_PER_WORKER)).toBe(1);
    expect(huntWorkers(undefined, SEEDS_PER_WORKER + 1)).toBe(Math.min(2, availableParallelism()));
    expect(huntWorkers(undefined, 10_000)).toBe(availableParallelism());
  });

  it("starts the number asked for, never more than the seeds", () => {
    expect(huntWorkers(3, 2)).toBe(2);
    expect(huntWorkers(2, 20)).toBe(2);
    expect(huntWorkers(1, 1_000)).toBe(1);
  });
});
