import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadScenarioFile, ScenarioError, toSimulationSpec, validateScenario } from "../src/index.js";

const base = { name: "s", durationMs: 100, actors: [{ id: "a", kind: "pinger" }] };
const problem = (value: unknown) => {
  try {
    validateScenario(value, "s.json");
  } catch (error) {
    expect(error).toBeInstanceOf(ScenarioError);
    return (error as Error).message;
  }
  throw new Error("accepted");
};

describe("scenario files", () => {
  it("resolve into a simulation spec with defaults (seed 1, codec on, restart policy) and microsecond times", () => {
    const spec = toSimulationSpec(
      validateScenario({ ...base, nemesis: [{ atMs: 5, actor: "a", action: "clock-step", deltaMs: -3 }] }, "s.json"),
    );
    expect(spec.seed).toBe(1);
    expect(spec.useCodec).toBe(true);
    expect(spec.durationUs).toBe(100_000);
    expect(spec.nemesis).toEqual([{ atUs: 5000, actor: "a", control: { action: "clock-step", deltaUs: -3000 } }]);
    expect(toSimulationSpec(validateScenario(base, "s.json"), { seed: 9 }).seed).toBe(9);
  });

  it("reject bad content with one line naming the file, the field and the problem", () => {
    expect(problem({ ...base, durationMs: -1 })).toBe("s.json: durationMs: Expected number to be greater than 0");
    expect(problem({ ...base, faults: [{ name: "f", drop: { probability: 1.5 } }] })).toBe(
      "s.json: faults[0].drop.probability: Expected number to be less or equal to 1",
    );
    expect(problem({ ...base, faults: [{ name: "f", delay: { dist: "zipf" } }] })).toBe(
      "s.json: faults[0].delay: matches none of the allowed shapes",
    );
    expect(problem({ ...base, surprise: 1 })).toMatch(/^s\.json: surprise: Unexpected property/);
    expect(
      problem({
        ...base,
        actors: [
          { id: "a", kind: "x" },
          { id: "a", kind: "y" },
        ],
      }),
    ).toBe("s.json: actors[1].id: duplicate actor id 'a'");
    expect(problem({ ...base, nemesis: [{ atMs: 1, actor: "ghost", action: "crash" }] })).toBe(
      "s.json: nemesis[0].actor: no actor 'ghost'",
    );
    expect(problem({ ...base, partitions: [{ name: "p", a: ["a"], b: ["a*"], direction: "two-way", startMs: 5, endMs: 1 }] })).toBe(
      "s.json: partitions[0].endMs: ends (1) before it starts (5)",
    );
    // Connection-level faults on actors the run does not have: an id, or a glob that matches no actor.
    expect(problem({ ...base, faults: [{ name: "f", from: ["ghost"], drop: { probability: 0.1 } }] })).toBe(
      "s.json: faults[0].from: no actor 'ghost'",
    );
    expect(problem({ ...base, faults: [{ name: "f", to: ["a", "b*"], delay: { dist: "fixed", ms: 5 } }] })).toBe(
      "s.json: faults[0].to: 'b*' matches no actor",
    );
    expect(problem({ ...base, partitions: [{ name: "p", a: ["a"], b: ["ghost"], direction: "two-way", startMs: 1, endMs: 5 }] })).toBe(
      "s.json: partitions[0].b: no actor 'ghost'",
    );
    expect(() =>
      validateScenario({ ...base, faults: [{ name: "f", from: ["client:*"], drop: { probability: 0.1 } }] }, "s.json"),
    ).not.toThrow();
    expect(problem([])).toMatch(/^s\.json: \(top level\)/);
  });

  it("report unreadable files and invalid JSON with a position", () => {
    const dir = mkdtempSync(join(tmpdir(), "kcsim-"));
    const file = join(dir, "broken.json");
    writeFileSync(file, '{\n  "name": "x",,\n}');
    expect(() => loadScenarioFile(file)).toThrow(/broken\.json:2:\d+: invalid JSON/);
    expect(() => loadScenarioFile(join(dir, "missing.json"))).toThrow(/missing\.json: cannot read scenario file \(no such file\)/);
  });
});
