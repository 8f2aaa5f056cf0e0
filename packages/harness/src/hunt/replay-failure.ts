import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runScenario } from "../run/run-scenario.js";
import { MAX_SEED } from "../scenario/limits.js";
import { loadScenarioFile, parseJsonText, ScenarioError, toSimulationSpec } from "../scenario/load-scenario.js";
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

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** Reads a failure directory's verdict (hunt.json), checked like any other input: a seed kcsim can run, failures it can name. */
export function readHuntRecord(dir: string): HuntRecord {
  const file = join(dir, HUNT_FILE);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new ScenarioError(`${file}: cannot read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  const record = parseJsonText(text, file);
  const shape = `expected {"seed", "historyHash", "failures": [{"check", "t", "message"}], "parameters"} as written by kcsim hunt`;
  if (!isObject(record) || typeof record.historyHash !== "string" || !Array.isArray(record.failures))
    throw new ScenarioError(`${file}: ${shape}`);
  const seed = record.seed;
  if (typeof seed !== "number" || !Number.isSafeInteger(seed) || seed < 0 || seed > MAX_SEED)
    throw new ScenarioError(`${file}: seed: must be an integer from 0 to ${MAX_SEED}, got ${JSON.stringify(seed)}`);
  record.failures.forEach((failure: unknown, i: number) => {
    if (!isObject(failure) || typeof failure.check !== "string" || typeof failure.t !== "number" || typeof failure.message !== "string")
      throw new ScenarioError(`${file}: failures[${i}]: ${shape}`);
  });
  if (record.parameters !== undefined && !isObject(record.parameters)) throw new ScenarioError(`${file}: parameters: ${shape}`);
  return { parameters: {}, ...record } as unknown as HuntRecord;
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
  const failures = failedChecks(summary.checks, result.log, toSimulationSpec(scenario, { seed: record.seed }));
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
