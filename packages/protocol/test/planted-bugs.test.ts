import { describe, expect, it } from "vitest";
import { isPlantedBugName, PLANTED_BUG_NAMES, PLANTED_BUGS, PlantedBugs } from "../src/index.js";

describe("planted bugs", () => {
  it("has at least eight uniquely named bugs, each with a kind, a checker and a hunt target", () => {
    expect(PLANTED_BUGS.length).toBeGreaterThanOrEqual(8);
    expect(new Set(PLANTED_BUG_NAMES).size).toBe(PLANTED_BUGS.length);
    for (const bug of PLANTED_BUGS) {
      expect(bug.name).toMatch(/^[a-z][a-z-]+$/);
      expect(bug.description).not.toMatch(/\n/);
      expect(bug.checker).not.toBe("");
      expect(bug.scenario).not.toBe("");
    }
    expect(isPlantedBugName("accept-stale-commit")).toBe(true);
    expect(isPlantedBugName("no-such-bug")).toBe(false);
  });

  it("reads an actor config's plantedBugs field, and nothing when it is absent", () => {
    expect(PlantedBugs.ofConfig({ broker: {} }).size).toBe(0);
    expect(PlantedBugs.fromField(undefined)).toBe(PlantedBugs.NONE);
    const bugs = PlantedBugs.ofConfig({ plantedBugs: ["accept-stale-commit"] });
    expect(bugs.has("accept-stale-commit")).toBe(true);
    expect(bugs.has("assign-before-revoke")).toBe(false);
  });

  it("rejects a field that is not a list of known bug names, naming the field", () => {
    expect(() => PlantedBugs.fromField("accept-stale-commit")).toThrow(/config 'plantedBugs' must be a list/);
    expect(() => PlantedBugs.fromField(["accept-stale-commit", "bogus"])).toThrow(/unknown bug "bogus" \(known: assign-before-revoke/);
  });
});
