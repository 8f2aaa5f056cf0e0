import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseRecording, RecordingError } from "../../hosts/realtime/recording.js";
import { type ReplayReport, replayRecording } from "../../hosts/realtime/replay.js";
import { loadRegistry } from "../../hosts/worker/load-registry.js";
import { parseFlags } from "../parse-flags.js";
import { resolveUserPath } from "../paths.js";
import { UsageError } from "../usage-error.js";

const pad = (s: string, n: number) => (s.length >= n ? s : s + " ".repeat(n - s.length));

function formatReport(report: ReplayReport, source: string): string {
  const lines = [
    `kcsim replay ${source}`,
    `  ${report.scenario}  seed ${report.seed}  time scale ${report.timeScale}  ${report.entries} recorded entries`,
    `  ${pad("actor", 20)} ${pad("events", 8)} ${pad("received", 18)} ${pad("sent", 18)} verdict`,
  ];
  for (const a of report.actors) {
    lines.push(
      `  ${pad(a.actor, 20)} ${pad(String(a.events), 8)} ${pad(`${a.reproduced}/${a.received}`, 18)} ${pad(`${a.resent}/${a.sent}`, 18)} ${a.equal ? "equal" : `DIFFERS: ${a.firstDifference ?? ""}`}`,
    );
  }
  lines.push(
    report.equal
      ? "  every actor's received messages were reproduced, byte for byte"
      : "  the replay diverged from the recording (see DIFFERS above)",
  );
  return `${lines.join("\n")}\n`;
}

/** `kcsim replay <run-dir | recording.jsonl> [--json]`: re-runs a realtime recording inline, in virtual time. */
export async function replayCommand(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseFlags("replay", argv, { json: { type: "boolean" } });
  if (positionals.length !== 1) throw new UsageError(`replay: expected one run directory or recording file, got ${positionals.length}`);
  const given = resolveUserPath(positionals[0] as string);
  if (!existsSync(given)) throw new UsageError(`replay: ${given}: no such file or directory`);
  const file = statSync(given).isDirectory() ? join(given, "recording.jsonl") : given;
  if (!existsSync(file)) throw new UsageError(`replay: ${given} has no recording.jsonl (only realtime runs with --out record one)`);
  let report: ReplayReport;
  try {
    const recording = parseRecording(readFileSync(file, "utf8"), file);
    const registry = await loadRegistry(recording.header.registryModule).catch((error: unknown) => {
      throw new RecordingError(`${file}: cannot load the actor registry: ${error instanceof Error ? error.message : String(error)}`);
    });
    report = replayRecording(recording, registry);
  } catch (error) {
    if (error instanceof RecordingError) throw new UsageError(`replay: ${error.message}`);
    // Anything else thrown while replaying comes from a recording this build cannot replay.
    throw new UsageError(`replay: ${file}: cannot replay (${error instanceof Error ? error.message : String(error)})`);
  }
  process.stdout.write(values.json ? `${JSON.stringify(report)}\n` : formatReport(report, positionals[0] as string));
  return report.equal ? 0 : 1;
}
