import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { HuntRunResult } from "./hunt-task.js";

/** What a failure directory records besides the scenario: enough to replay and judge it again. */
export interface HuntRecord {
  readonly seed: number;
  readonly historyHash: string;
  readonly failures: HuntRunResult["failures"];
  readonly parameters: HuntRunResult["parameters"];
}

export const SCENARIO_FILE = "scenario.json";
export const HUNT_FILE = "hunt.json";
/** Written only when the hunt was asked for histories (--history). */
export const HISTORY_FILE = "history.jsonl";

/** Writes a failing run's exact scenario and verdict (and its history, when it has one) to `<dir>/seed-<seed>`; returns that directory. */
export function writeFailureDir(outDir: string, result: HuntRunResult): string {
  const dir = join(outDir, `seed-${result.seed}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, SCENARIO_FILE), `${JSON.stringify(result.scenario, null, 2)}\n`);
  const record: HuntRecord = {
    seed: result.seed,
    historyHash: result.historyHash,
    failures: result.failures,
    parameters: result.parameters,
  };
  writeFileSync(join(dir, HUNT_FILE), `${JSON.stringify(record, null, 2)}\n`);
  if (result.history !== undefined) writeFileSync(join(dir, HISTORY_FILE), result.history);
  return dir;
}
