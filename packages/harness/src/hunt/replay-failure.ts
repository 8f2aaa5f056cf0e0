import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runScenario } from "../run/run-scenario.js";
import { loadScenarioFile, ScenarioError, toSimulationSpec } from "../scenario/load-scenario.js";
import type { ScenarioFile } from "../scenario/scenario-schema.js";
import { failedChecks } from "./failed-checks.js";
import { HUNT_FILE, type HuntRecord, SCENARIO_FILE } from "./failure-dir.js";
import type { HuntFailure } from "./hunt-task.js";

/** What re-running a hunt failure found, next to what the hunt recorded. */
export interface FailureReplay {
  readonly scenario: string;
  readonly seed: number;
  readonly recordedHash: string;
  readonly historyHash: string;
  readonly recordedFailures: readonly HuntFailure[];
  readonly failures: readonly HuntFailure[];
  /** Same history hash and the same checkers failing: the run happened again, event for event. */
  readonly reproduced: boolean;
}

export function isFailureDir(dir: string): boolean {
  return existsSync(join(dir, HUNT_FILE)) && existsSync(join(dir, SCENARIO_FILE));
}

/** Reads a failure directory's verdict (hunt.json). */
export function readHuntRecord(dir: string): HuntRecord {
  const file = join(dir, HUNT_FILE);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new ScenarioError(`${file}: not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const record = parsed as Partial<HuntRecord> | null;
  if (record === null || typeof record.seed !== "number" || typeof record.historyHash !== "string" || !Array.isArray(record.failures))
    throw new ScenarioError(`${file}: expected {"seed", "historyHash", "failures", ...} as written by kcsim hunt`);
  return record as HuntRecord;
}

/** Re-runs a hunt failure (its exact scenario and seed, inline) and compares it with the recorded run. */
export async function replayFailure(dir: string, out?: string, replayCommand?: string): Promise<FailureReplay> {
  const record = readHuntRecord(dir);
  const scenario: ScenarioFile = loadScenarioFile(join(dir, SCENARIO_FILE));
  const { summary, result } = await runScenario(scenario, {
    host: "inline",
    seed: record.seed,
    ...(out !== undefined ? { out } : {}),
    ...(replayCommand !== undefined ? { replayCommand } : {}),
  });
  const failures = failedChecks(summary.checks, result.events, toSimulationSpec(scenario, { seed: record.seed }));
  const names = (list: readonly HuntFailure[]) => list.map((f) => f.check).join(",");
  return {
    scenario: summary.scenario,
    seed: record.seed,
    recordedHash: record.historyHash,
    historyHash: summary.historyHash,
    recordedFailures: record.failures,
    failures,
    reproduced: summary.historyHash === record.historyHash && names(failures) === names(record.failures),
  };
}
