import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseRecording, RecordingError } from "../../hosts/realtime/recording.js";
import { type ReplayReport, replayRecording } from "../../hosts/realtime/replay.js";
import { loadRegistry } from "../../hosts/worker/load-registry.js";
import { type FailureReplay, isFailureDir, replayFailure } from "../../hunt/replay-failure.js";
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

function formatFailureReplay(replay: FailureReplay, source: string): string {
  const lines = [`kcsim replay ${source}`, `  ${replay.scenario}  seed ${replay.seed}`];
  lines.push(
    `  history hash ${replay.historyHash} (${replay.historyHash === replay.recordedHash ? "same as recorded" : `recorded ${replay.recordedHash}`})`,
  );
  for (const f of replay.failures) lines.push(`  FAIL ${f.check}: at ${f.t} us: ${f.message}`);
  if (replay.failures.length === 0) lines.push("  every checker passed");
  lines.push(
    replay.reproduced
      ? "  reproduced: the same run, event for event, and the same checkers fail"
      : replay.historyHash === replay.recordedHash
        ? "  same run, event for event, but a different verdict: the checkers changed since the hunt"
        : "  NOT reproduced: the run differs from the hunt's",
  );
  return `${lines.join("\n")}\n`;
}

/**
 * `kcsim replay <run-dir | recording.jsonl | hunt-failure-dir> [--json] [--out DIR]`:
 * re-runs a realtime recording inline in virtual time, or re-runs a hunt
 * failure (scenario.json + hunt.json) with its seed and compares the verdict.
 */
export async function replayCommand(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseFlags("replay", argv, { json: { type: "boolean" }, out: { type: "string" } });
  if (positionals.length !== 1) throw new UsageError(`replay: expected one run directory or recording file, got ${positionals.length}`);
  const given = resolveUserPath(positionals[0] as string);
  if (!existsSync(given)) throw new UsageError(`replay: ${given}: no such file or directory`);
  if (statSync(given).isDirectory() && isFailureDir(given)) {
    const out = values.out === undefined ? undefined : resolveUserPath(values.out);
    const replay = await replayFailure(given, out, `pnpm kcsim replay ${positionals[0] as string}`);
    process.stdout.write(values.json ? `${JSON.stringify(replay)}\n` : formatFailureReplay(replay, positionals[0] as string));
    return replay.failures.length === 0 ? 0 : 1;
  }
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
