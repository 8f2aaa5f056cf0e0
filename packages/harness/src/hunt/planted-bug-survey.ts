import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type PlantedBugName, plantedBugInfo } from "@kcsim/protocol";
import { repoRoot } from "../cli/paths.js";
import { loadScenarioFile } from "../scenario/load-scenario.js";
import { writeFailureDir } from "./failure-dir.js";
import { hunt } from "./hunt-runner.js";
import type { HuntRunResult } from "./hunt-task.js";
import { replayFailure } from "./replay-failure.js";
import { type ScenarioSize, shrink } from "./shrink.js";

export interface SurveyOptions {
  /** The last seed to try (from seed 1, stopping at the first failure). */
  readonly maxSeeds: number;
  readonly workers?: number;
  /** Trial runs allowed to the shrinker. */
  readonly shrinkTrials: number;
}

/** What hunting one planted bug found: the README table row, and the no-bug control over the same seeds. */
export interface BugSurvey {
  readonly bug: PlantedBugName;
  readonly scenario: string;
  readonly asWritten: boolean;
  readonly expectedChecker: string;
  /** The first failing seed (null: none up to maxSeeds) and how many seeds that took. */
  readonly seed: number | null;
  readonly seedsToFailure: number | null;
  readonly huntWallMs: number;
  /** The checkers that failed in the first failing run. */
  readonly failedChecks: readonly string[];
  readonly replayed: boolean;
  readonly original: ScenarioSize | null;
  readonly shrunk: ScenarioSize | null;
  readonly shrinkTrials: number;
  /** Failing runs with no bug planted over seeds 1..seed (or 1..maxSeeds). */
  readonly controlFailures: number;
  readonly controlRuns: number;
}

/**
 * Hunts one planted bug on its recommended scenario (seeds 1.., stop at the
 * first seed where the bug's checker fails), replays that failure from its
 * directory, shrinks it against that checker, and runs the same seeds
 * without the bug.
 */
export async function surveyPlantedBug(bug: PlantedBugName, options: SurveyOptions): Promise<BugSurvey> {
  const info = plantedBugInfo(bug);
  const base = loadScenarioFile(join(repoRoot(), "scenarios", `${info.scenario}.json`));
  const common = {
    base,
    asWritten: info.asWritten,
    protocol: null,
    fromSeed: 1,
    ...(options.workers !== undefined ? { workers: options.workers } : {}),
  };
  // The bug's own failure: a seed where other checkers fail (a finding of the unbugged model) does not count.
  const byBug = (result: HuntRunResult) => result.failures.some((failure) => failure.check === info.checker);
  const found = await hunt({ ...common, bugs: [bug], toSeed: options.maxSeeds, stopOnFailure: byBug });
  const first = found.failures.find(byBug);
  const row = {
    bug,
    scenario: info.scenario,
    asWritten: info.asWritten,
    expectedChecker: info.checker,
    huntWallMs: found.elapsedMs,
  };
  const lastSeed = first?.seed ?? options.maxSeeds;
  const control = await hunt({ ...common, toSeed: lastSeed, stopOnFailure: false });
  const controlCounts = { controlFailures: control.failures.length, controlRuns: control.runs };
  if (first === undefined) {
    return {
      ...row,
      ...controlCounts,
      seed: null,
      seedsToFailure: null,
      failedChecks: [],
      replayed: false,
      original: null,
      shrunk: null,
      shrinkTrials: 0,
    };
  }
  const dir = mkdtempSync(join(tmpdir(), `kcsim-${bug}-`));
  try {
    const failureDir = writeFailureDir(dir, first);
    const replay = await replayFailure(failureDir);
    const shrunk = await shrink(first.scenario, { seed: first.seed, check: info.checker, maxTrials: options.shrinkTrials });
    return {
      ...row,
      ...controlCounts,
      seed: first.seed,
      seedsToFailure: first.seed,
      failedChecks: first.failures.map((f) => f.check),
      replayed: replay.reproduced,
      original: shrunk.original,
      shrunk: shrunk.shrunk,
      shrinkTrials: shrunk.trials,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** "faults 3→1, nemesis 4→2, members 10→3, 180 s→101 s": only what changed. */
export function describeShrink(original: ScenarioSize, shrunk: ScenarioSize): string {
  const parts: string[] = [];
  const show = (label: string, a: number, b: number, unit = "") => {
    if (a !== b) parts.push(`${label} ${a}${unit}→${b}${unit}`);
  };
  show("faults", original.faults, shrunk.faults);
  show("partitions", original.partitions, shrunk.partitions);
  show("nemesis", original.nemesisSteps, shrunk.nemesisSteps);
  show("members", original.members, shrunk.members);
  show("topic partitions", original.topicPartitions, shrunk.topicPartitions);
  show("duration", Math.round(original.durationMs / 1000), Math.round(shrunk.durationMs / 1000), " s");
  return parts.length === 0 ? "already minimal" : parts.join(", ");
}

/** The README table of surveys, markdown. */
export function surveyTable(surveys: readonly BugSurvey[]): string {
  const lines = [
    "| bug | base scenario | seeds to first failure | wall time | checker | replay | shrunk | no-bug control |",
    "| --- | --- | ---: | ---: | --- | --- | --- | --- |",
  ];
  for (const s of surveys) {
    const scenario = `${s.scenario}${s.asWritten ? " (as written)" : ""}`;
    const caught = s.failedChecks.includes(s.expectedChecker)
      ? s.expectedChecker
      : `${s.expectedChecker} (NOT caught: ${s.failedChecks.join(", ") || "none"})`;
    const shrunk = s.original !== null && s.shrunk !== null ? `${describeShrink(s.original, s.shrunk)} (${s.shrinkTrials} trials)` : "-";
    const control = `${s.controlFailures === 0 ? "clean" : `${s.controlFailures} failing`} over seeds 1..${s.seed ?? s.controlRuns}`;
    lines.push(
      `| ${s.bug} | ${scenario} | ${s.seedsToFailure ?? "none"} | ${(s.huntWallMs / 1000).toFixed(1)} s | ${caught} | ${s.replayed ? "same hash, same checks" : "NOT reproduced"} | ${shrunk} | ${control} |`,
    );
  }
  return `${lines.join("\n")}\n`;
}
