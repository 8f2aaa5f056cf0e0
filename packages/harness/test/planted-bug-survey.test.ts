import { describe, expect, it } from "vitest";
import { surveyPlantedBug } from "../src/hunt/planted-bug-survey.js";

describe("the planted-bug survey (the README's planted-bugs table)", () => {
  it("stops at the first seed where the bug's own checker fails, not at a finding of the unbugged model", async () => {
    // Drawn faults on session-timeout: seed 3 fails committed-offsets-monotonic with or without the bug (the retransmitted
    // commit, a behaviour of Kafka's own); the bug's checker, converges, first fails at seed 6 (run on to its bound).
    const survey = await surveyPlantedBug("skip-fencing-on-session-expiry", { maxSeeds: 6, workers: 1, shrinkTrials: 1 });
    expect(survey.expectedChecker).toBe("converges");
    expect(survey.seed).toBe(6);
    expect(survey.failedChecks).toEqual(["converges"]);
    expect(survey.replayed).toBe(true);
    expect(survey.controlRuns).toBe(6);
    expect(survey.controlFailures).toBe(1);
  }, 180_000);

  it("replays and shrinks the bug's failure against its checker", async () => {
    const survey = await surveyPlantedBug("static-rejoin-bumps-epoch", { maxSeeds: 3, workers: 1, shrinkTrials: 2 });
    expect(survey.seed).toBe(1);
    expect(survey.failedChecks).toContain("static-replacement-no-bump");
    expect(survey.replayed).toBe(true);
    expect(survey.shrinkTrials).toBeGreaterThan(0);
    expect(survey.controlFailures).toBe(0);
  }, 120_000);
});
