import { join } from "node:path";
import type { ActorRegistry } from "../kernel/actor-registry.js";
import type { RunResult } from "../kernel/run-result.js";
import type { SimulationSpec } from "../kernel/simulation-spec.js";
import { writeAtomic } from "../output/atomic-write.js";
import { writeRunReport } from "../report/write-report.js";
import type { RunSummary } from "./run-scenario.js";

/** What the report needs beyond the run: the actor kinds to re-run it with, and custom checkers' descriptions. */
export interface RunDirectoryOptions {
  readonly rerunWith?: ActorRegistry;
  readonly descriptions?: ReadonlyMap<string, string>;
}

/**
 * Writes a judged run's directory (prepared beforehand by prepareRunDir):
 * history.jsonl (its header and lines; `lines` null when the run streamed
 * it there already, as `kcsim run --out` does), summary.json, command.txt,
 * spec.json, report.html, and recording.jsonl for a realtime run whose
 * recording was not streamed there (it replays from it, not from its seed).
 * Each file is written atomically.
 */
export function writeRunDirectory(
  out: string,
  lines: readonly string[] | null,
  summary: RunSummary,
  spec: SimulationSpec,
  result: RunResult & { readonly recordingText?: string },
  options: RunDirectoryOptions = {},
): void {
  if (lines !== null) writeAtomic(join(out, "history.jsonl"), `${lines.join("\n")}\n`);
  writeAtomic(join(out, "summary.json"), `${JSON.stringify(summary, null, 2)}\n`);
  writeAtomic(join(out, "command.txt"), `${summary.replay}\n`);
  if (result.recordingText !== undefined) writeAtomic(join(out, "recording.jsonl"), result.recordingText);
  // The resolved spec: fault windows and group topology for the report (kcsim report DIR reads it too).
  writeAtomic(join(out, "spec.json"), `${JSON.stringify(spec)}\n`);
  writeRunReport(
    out,
    {
      header: { scenario: spec.scenario, seed: spec.seed },
      spec,
      summary,
      ...(options.rerunWith !== undefined ? { rerunWith: options.rerunWith } : {}),
      ...(options.descriptions !== undefined ? { descriptions: options.descriptions } : {}),
    },
    result.log,
  );
}
