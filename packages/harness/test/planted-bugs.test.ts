import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type JsonValue, type Observation, PLANTED_BUG_NAMES, type PlantedBugName, plantedBugInfo } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { convergenceDeadlineUs } from "../src/checkers/converges.js";
import { staticReplacementNoBump } from "../src/checkers/static-replacement-no-bump.js";
import type { HistoryEvent } from "../src/history/history-event.js";
import { writeFailureDir } from "../src/hunt/failure-dir.js";
import { hunt } from "../src/hunt/hunt-runner.js";
import { replayFailure } from "../src/hunt/replay-failure.js";
import { runHuntTask } from "../src/hunt/run-hunt-task.js";
import { scenarioStory } from "../src/hunt/scenario-story.js";
import { type ScenarioSize, shrink, sizeOf } from "../src/hunt/shrink.js";
import { loadScenarioFile, ScenarioError, toSimulationSpec, validateScenario } from "../src/scenario/load-scenario.js";
import type { ScenarioFile } from "../src/scenario/scenario-schema.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const scenario = (name: string): ScenarioFile => loadScenarioFile(join(root, "scenarios", `${name}.json`));

function kcsim(...args: string[]) {
  const out = spawnSync(process.execPath, [join(root, "packages/harness/bundle/cli.js"), ...args], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, INIT_CWD: root },
  });
  return { code: out.status, stdout: out.stdout, stderr: out.stderr };
}

const smaller = (a: ScenarioSize, b: ScenarioSize) =>
  b.faults + b.partitions + b.nemesisSteps + b.members + b.topicPartitions <
    a.faults + a.partitions + a.nemesisSteps + a.members + a.topicPartitions || b.durationMs < a.durationMs;

describe("planted bugs: plumbing", () => {
  it("validates the scenario's bugs field with one line naming it and the known bugs", () => {
    const base = scenario("static-restart");
    expect(() => validateScenario({ ...base, bugs: ["static-rejoin-bumps-epoch", "nope"] }, "s.json")).toThrow(ScenarioError);
    expect(() => validateScenario({ ...base, bugs: ["nope"] }, "s.json")).toThrow(
      /^s\.json: bugs\[0\]: unknown planted bug 'nope' \(known: assign-before-revoke, .*\)$/,
    );
  });

  it("gives each bug only to the actors of its kind, through their configs", () => {
    const spec = toSimulationSpec({
      ...scenario("static-restart"),
      bugs: ["static-rejoin-bumps-epoch", "stale-member-keeps-heartbeating"],
    });
    const bugsOf = (id: string) => (spec.actors.find((a) => a.id === id)?.config as { plantedBugs?: JsonValue } | undefined)?.plantedBugs;
    expect(bugsOf("coordinator-0")).toEqual(["static-rejoin-bumps-epoch"]);
    expect(bugsOf("member-1")).toEqual(["stale-member-keeps-heartbeating"]);
    const clean = toSimulationSpec(scenario("static-restart"));
    expect(clean.actors.every((a) => !JSON.stringify(a.config).includes("plantedBugs"))).toBe(true);
  });

  it("records a recommended hunt target that exists for every bug", () => {
    for (const name of PLANTED_BUG_NAMES) expect(() => scenario(plantedBugInfo(name).scenario)).not.toThrow();
  });
});

describe("static-replacement-no-bump", () => {
  const obs = (t: number, o: Record<string, JsonValue>): HistoryEvent => ({ t, ev: "obs", actor: "coordinator-0", o: o as Observation });
  const group = (t: number, groupEpoch: number) =>
    obs(t, { type: "gc.group", groupId: "g", protocol: "consumer", groupEpoch, assignmentEpoch: groupEpoch, state: "STABLE", members: 3 });
  const replaced = (t: number) =>
    obs(t, { type: "gc.member-removed", groupId: "g", memberId: "old", instanceId: "i-1", memberEpoch: -2, reason: "static-replaced" });
  const target = (t: number) => obs(t, { type: "gc.target", groupId: "g", assignmentEpoch: 6 });
  const spec = toSimulationSpec(scenario("static-restart"));

  it("flags a bump reported by the replacement's own operation", () => {
    const result = staticReplacementNoBump.check([group(1, 5), group(9, 6), replaced(9)], spec);
    expect(result.ok).toBe(false);
    expect(result.violations[0]?.message).toMatch(/bumped the group epoch 5 -> 6/);
  });

  it("ignores a replacement with no bump, and a bump by an earlier operation of the same batch", () => {
    expect(staticReplacementNoBump.check([group(1, 5), replaced(9)], spec).ok).toBe(true);
    expect(staticReplacementNoBump.check([group(1, 5), group(9, 6), target(9), replaced(9)], spec).ok).toBe(true);
    expect(staticReplacementNoBump.check([group(1, 5), group(8, 6), replaced(9)], spec).ok).toBe(true);
  });
});

/**
 * A fast subset, each hunted as written on its recommended scenario
 * (shortened where the bug shows early): the hunt run fails the expected
 * checker, its failure directory replays to the same hash and checks, a
 * few shrink trials give a smaller scenario still failing that checker,
 * and the same seed without the bug is clean.
 */
const FAST: readonly { bug: PlantedBugName; durationMs: number; shrinkTrials: number }[] = [
  { bug: "static-rejoin-bumps-epoch", durationMs: 60_000, shrinkTrials: 4 },
  // Its member is slow until 120 s: the clean run must see it heal and converge.
  { bug: "stale-member-keeps-heartbeating", durationMs: 240_000, shrinkTrials: 2 },
  { bug: "keep-partitions-after-fenced", durationMs: 100_000, shrinkTrials: 4 },
  // Never shortened: converges judges a group that never settles only once the run passes its bound (436 s here).
  { bug: "forget-timers-after-failover", durationMs: 450_000, shrinkTrials: 2 },
];

describe("planted bugs: hunt, replay, shrink, control", () => {
  for (const { bug, durationMs, shrinkTrials } of FAST) {
    it(`${bug} is found by ${plantedBugInfo(bug).checker}, replays and shrinks; the clean run passes`, async () => {
      const info = plantedBugInfo(bug);
      expect(info.asWritten).toBe(true);
      const base = { ...scenario(info.scenario), durationMs };
      const found = await runHuntTask({ base, seed: 1, asWritten: true, protocol: null, bugs: [bug] });
      expect(found.failures.map((f) => f.check)).toContain(info.checker);
      expect(found.scenario.bugs).toEqual([bug]);

      const dir = writeFailureDir(mkdtempSync(join(tmpdir(), "kcsim-bug-")), found);
      const replay = await replayFailure(dir);
      expect(replay.historyHash).toBe(found.historyHash);
      expect(replay.failures.map((f) => f.check)).toEqual(found.failures.map((f) => f.check));
      expect(replay.reproduced).toBe(true);

      const shrunk = await shrink(found.scenario, { seed: 1, check: info.checker, maxTrials: shrinkTrials });
      expect(smaller(sizeOf(found.scenario), shrunk.shrunk)).toBe(true);
      expect(shrunk.scenario.bugs).toEqual([bug]);

      const clean = await runHuntTask({ base, seed: 1, asWritten: true, protocol: null });
      expect(clean.failures).toEqual([]);
    }, 180_000);
  }

  it("skip-fencing-on-session-expiry: a drawn seed whose group never settles runs on to converges' bound and fails it", async () => {
    // Drawn faults on session-timeout (180 s, healing by 72 s): with the bug, seed 6's group still has a fenced-in
    // member when the plan ends, before the bound (heal + 45 s session + 300 s rebalance + 5 x 5 s heartbeats + 30 s).
    const info = plantedBugInfo("skip-fencing-on-session-expiry");
    const base = scenario(info.scenario);
    expect(info.asWritten).toBe(false);
    const found = await runHuntTask({ base, seed: 6, asWritten: false, protocol: null, bugs: ["skip-fencing-on-session-expiry"] });
    expect(found.failures.map((f) => f.check)).toEqual(["converges"]);
    const spec = toSimulationSpec({ ...found.scenario, durationMs: base.durationMs }, { seed: 6 });
    const deadlineUs = convergenceDeadlineUs(spec);
    expect(deadlineUs).not.toBeNull();
    expect(found.scenario.durationMs).toBe(Math.ceil((deadlineUs ?? 0) / 1000));
    expect(found.parameters.extendedToMs).toBe(found.scenario.durationMs);
    expect(found.failures[0]?.t).toBe(deadlineUs);
    const replay = await replayFailure(writeFailureDir(mkdtempSync(join(tmpdir(), "kcsim-bug-")), found));
    expect(replay.reproduced).toBe(true);
    expect(replay.historyHash).toBe(found.historyHash);

    // Shrunk, the faults heal earlier and the bound moves with them: the run ends just past the shrunk run's own violation.
    const shrunk = await shrink(found.scenario, { seed: 6, check: "converges", maxTrials: 40 });
    const shrunkDeadline = convergenceDeadlineUs(toSimulationSpec(shrunk.scenario, { seed: 6 }));
    expect(shrunk.violation.t).toBe(shrunkDeadline);
    expect(shrunk.violation.t).toBeLessThan(found.failures[0]?.t ?? 0);
    expect(shrunk.scenario.durationMs).toBe(Math.ceil(shrunk.violation.t / 1_000_000) * 1000 + 1000);
    expect(shrunk.violation.message).toMatch(/never reached STABLE/);
    expect(shrunk.scenario.description).toBe("session-timeout seed 6, shrunk by kcsim shrink to what still fails converges.");
    expect(scenarioStory(shrunk.scenario)).toEqual(["at 50757 ms: member-3 restarts"]);

    // The hunt counts the runs it took on past their plan (seed 5 settles within its plan even with the bug).
    const outcome = await hunt({
      base,
      asWritten: false,
      protocol: null,
      fromSeed: 5,
      toSeed: 6,
      workers: 1,
      bugs: ["skip-fencing-on-session-expiry"],
      stopOnFailure: false,
    });
    expect(outcome.extended).toBe(1);
    expect(outcome.failures.map((f) => f.seed)).toEqual([6]);

    // Without the bug the group settles within the plan's 180 s: judged there, not run on.
    const clean = await runHuntTask({ base, seed: 6, asWritten: false, protocol: null });
    expect(clean.failures).toEqual([]);
    expect(clean.scenario.durationMs).toBe(base.durationMs);
    expect(clean.parameters.extendedToMs).toBeUndefined();
    // A scenario hunted as written runs as long as it is written, its converges left not judged.
    const asWritten = await runHuntTask({ base, seed: 6, asWritten: true, protocol: null, bugs: ["skip-fencing-on-session-expiry"] });
    expect(asWritten.scenario.durationMs).toBe(base.durationMs);
    expect(asWritten.failures.map((f) => f.check)).not.toContain("converges");
  }, 180_000);

  it("assign-before-revoke is found over drawn fault plans by the pool; the same seeds are clean without it", async () => {
    const info = plantedBugInfo("assign-before-revoke");
    const base = scenario(info.scenario);
    const options = { base, asWritten: false, protocol: null, fromSeed: 1, toSeed: 3, workers: 1 };
    const found = await hunt({ ...options, bugs: ["assign-before-revoke"], stopOnFailure: true });
    const first = found.failures[0];
    expect(first?.failures.map((f) => f.check)).toContain(info.checker);
    expect(first?.scenario.bugs).toEqual(["assign-before-revoke"]);
    const control = await hunt({ ...options, toSeed: first?.seed ?? 2, stopOnFailure: false });
    expect(control.failures).toEqual([]);
  }, 180_000);
});

describe("kcsim hunt --list-bugs / --bug", () => {
  it("lists one bug a line, the name first, with its checker", () => {
    const { code, stdout } = kcsim("hunt", "--list-bugs");
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split("\n");
    expect(lines.map((line) => line.split(/\s+/)[0])).toEqual([...PLANTED_BUG_NAMES]);
    for (const name of PLANTED_BUG_NAMES) expect(stdout).toContain(`caught by ${plantedBugInfo(name).checker}`);
  });

  it("plants the bug in every run and records it in the failure's scenario.json, so replay needs no flag", () => {
    const out = mkdtempSync(join(tmpdir(), "kcsim-hunt-bug-"));
    const args = ["scenarios/static-restart.json", "--as-written", "--seeds", "1", "--workers", "1", "--json", "--out", out];
    const { code, stdout } = kcsim("hunt", ...args, "--bug", "static-rejoin-bumps-epoch");
    expect(code).toBe(1);
    const report = JSON.parse(stdout) as { failures: { seed: number; check: string; replay: string }[] };
    expect(report.failures.map((f) => f.check)).toContain("static-replacement-no-bump");
    const written = JSON.parse(readFileSync(join(out, "seed-1", "scenario.json"), "utf8")) as ScenarioFile;
    expect(written.bugs).toEqual(["static-rejoin-bumps-epoch"]);
  }, 180_000);

  it("answers an unknown bug with one line and exit code 2", () => {
    const { code, stdout, stderr } = kcsim("hunt", "scenarios/static-restart.json", "--bug", "no-such-bug");
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr.trim().split("\n")).toHaveLength(1);
    expect(stderr).toMatch(/^kcsim: hunt: --bug: unknown planted bug 'no-such-bug' \(known: /);
  });
});
