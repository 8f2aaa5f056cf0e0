import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { shrink } from "../src/hunt/shrink.js";
import { runScenario } from "../src/run/run-scenario.js";
import { groupMembers } from "../src/scenario/expand-groups.js";
import { loadScenarioFile, toSimulationSpec, validateScenario } from "../src/scenario/load-scenario.js";
import type { GroupSpec, ScenarioFile } from "../src/scenario/scenario-schema.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const staticRestart = (): ScenarioFile => loadScenarioFile(join(root, "scenarios", "static-restart.json"));
const firstGroup = (scenario: ScenarioFile): GroupSpec => scenario.groups?.[0] as GroupSpec;
const withGroup = (scenario: ScenarioFile, changes: Partial<GroupSpec>): ScenarioFile => ({
  ...scenario,
  groups: [{ ...firstGroup(scenario), ...changes }],
});
const problem = (scenario: ScenarioFile): string => {
  try {
    validateScenario(scenario, "s.json");
  } catch (error) {
    return (error as Error).message;
  }
  return "accepted";
};

describe("withoutMembers: members left out by number, the others unchanged", () => {
  it("runs every other member under its own id and start time", () => {
    const base = staticRestart();
    const spec = toSimulationSpec(withGroup(base, { withoutMembers: [1, 4] }));
    const members = spec.actors.filter((actor) => actor.id.startsWith("member-"));
    const full = toSimulationSpec(base).actors.filter((actor) => actor.id.startsWith("member-"));
    expect(members.map((m) => m.id)).toEqual(["member-2", "member-3", "member-5"]);
    // Each remaining member is the very actor the full scenario had: same settings, same start (staggerMs 100).
    for (const member of members) expect(member).toEqual(full.find((m) => m.id === member.id));
    expect(members.map((m) => m.startAtUs)).toEqual([100_000, 200_000, 400_000]);
  });

  it("is refused in one line when it names no member, leaves out all, or leaves out a replaced member", () => {
    const base = staticRestart();
    expect(problem(withGroup(base, { withoutMembers: [6] }))).toBe(
      "s.json: groups[0].withoutMembers[0]: member 6 does not exist (the group numbers 5 members)",
    );
    expect(problem(withGroup(base, { withoutMembers: [1, 2, 3, 4, 5] }))).toBe(
      "s.json: groups[0].withoutMembers: leaves out every member of the group",
    );
    expect(problem(withGroup(base, { withoutMembers: [2], replacements: [{ member: 2, atMs: 5000, protocol: "eager" }] }))).toBe(
      "s.json: groups[0].replacements[0].member: member 2 is left out (withoutMembers)",
    );
    // A nemesis step for a member that is left out names an actor the run does not have.
    expect(problem(withGroup(base, { withoutMembers: [3] }))).toBe("s.json: nemesis[0].actor: no actor 'member-3'");
  });
});

describe("shrink leaves members out by identity", () => {
  it("keeps only member-3, whose static restart the planted bug needs, under its own number", async () => {
    // static-restart closes, crashes and restarts member-3 of 5; with the planted bug its rejoin bumps the epoch.
    // Fewer members by count keeps member-3 (3 of 5); leaving out by identity then drops member-1 and member-2.
    const failing: ScenarioFile = { ...staticRestart(), durationMs: 60_000, bugs: ["static-rejoin-bumps-epoch"] };
    const result = await shrink(failing, { seed: 1, check: "static-replacement-no-bump", maxTrials: 40 });
    const group = firstGroup(result.scenario);
    expect(groupMembers(group).map((m) => m.id)).toEqual(["member-3"]);
    expect(group.withoutMembers).toEqual([1, 2]);
    expect(result.shrunk.members).toBe(1);
    expect(new Set((result.scenario.nemesis ?? []).map((step) => step.actor))).toEqual(new Set(["member-3"]));
    // The shrunk scenario is valid and still fails the same checker.
    validateScenario(result.scenario, "shrunk.json");
    const rerun = await runScenario(result.scenario, { host: "inline", seed: 1 });
    expect(rerun.summary.checks["static-replacement-no-bump"]?.ok).toBe(false);
  }, 120_000);
});
