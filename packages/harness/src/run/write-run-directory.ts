import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RunResult } from "../kernel/run-result.js";
import type { SimulationSpec } from "../kernel/simulation-spec.js";
import { writeRunReport } from "../report/write-report.js";
import type { RunSummary } from "./run-scenario.js";

/**
 * Writes a judged run's directory: history.jsonl (its header and lines),
 * summary.json, command.txt, spec.json, report.html, and recording.jsonl
 * for a realtime run (which replays from it, not from its seed).
 */
export function writeRunDirectory(
  out: string,
  lines: readonly string[],
  summary: RunSummary,
  spec: SimulationSpec,
  result: RunResult & { readonly recordingText?: string },
): void {
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, "history.jsonl"), `${lines.join("\n")}\n`);
  writeFileSync(join(out, "summary.json"), `${JSON.stringify(summary, null, 2)}\n`);
  writeFileSync(join(out, "command.txt"), `${summary.replay}\n`);
  if (result.recordingText !== undefined) writeFileSync(join(out, "recording.jsonl"), result.recordingText);
  // The resolved spec: fault windows and group topology for the report (kcsim report DIR reads it too).
  writeFileSync(join(out, "spec.json"), `${JSON.stringify(spec)}\n`);
  writeRunReport(out, { header: { scenario: spec.scenario, seed: spec.seed }, spec, summary }, result.events);
}
