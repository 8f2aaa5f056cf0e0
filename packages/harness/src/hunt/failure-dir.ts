import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { writeAtomic } from "../output/atomic-write.js";
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

/** The directory a hunt writes a failing seed to, inside its output directory. */
export function failureDirName(seed: number): string {
  return `seed-${seed}`;
}

/** Writes a failing run's exact scenario and verdict to `<dir>/seed-<seed>` (and its history, when it has one; each file whole or not at all); returns that directory. */
export function writeFailureDir(outDir: string, result: HuntRunResult): string {
  const dir = join(outDir, failureDirName(result.seed));
  mkdirSync(dir, { recursive: true });
  writeAtomic(join(dir, SCENARIO_FILE), `${JSON.stringify(result.scenario, null, 2)}\n`);
  const record: HuntRecord = {
    seed: result.seed,
    historyHash: result.historyHash,
    failures: result.failures,
    parameters: result.parameters,
  };
  writeAtomic(join(dir, HUNT_FILE), `${JSON.stringify(record, null, 2)}\n`);
  if (result.history !== undefined) writeAtomic(join(dir, HISTORY_FILE), result.history);
  return dir;
}
