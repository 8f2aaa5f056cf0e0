import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_REGISTRY } from "../../actors/registry.js";
import { parseRecording, type Recording, RecordingError } from "../../hosts/realtime/recording.js";
import { type ReplayReport, replayRecording } from "../../hosts/realtime/replay.js";
import { loadRegistry } from "../../hosts/worker/load-registry.js";
import { HUNT_FILE, SCENARIO_FILE } from "../../hunt/failure-dir.js";
import { type FailureReplay, isFailureDir, replayFailure } from "../../hunt/replay-failure.js";
import type { ActorRegistry } from "../../kernel/actor-registry.js";
import { EXIT_OK, EXIT_VIOLATION } from "../exit-codes.js";
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

/** The history hash a run directory's summary.json records, or null when it has none to compare. */
function summaryHash(dir: string): string | null {
  const file = join(dir, "summary.json");
  if (!existsSync(file)) return null;
  try {
    const summary = JSON.parse(readFileSync(file, "utf8")) as { historyHash?: unknown };
    return typeof summary.historyHash === "string" ? summary.historyHash : null;
  } catch {
    throw new UsageError(`replay: ${file}: not valid JSON`);
  }
}

/**
 * The actor registry to replay with. A recording names the module its run
 * loaded actors from, but a run directory may come from anyone: kcsim
 * loads no module because a file says so, only one given with --registry.
 */
async function registryFor(recording: Recording, file: string, given: string | undefined): Promise<ActorRegistry> {
  const named = recording.header.registryModule;
  if (given === undefined) {
    if (named === null) return DEFAULT_REGISTRY;
    throw new UsageError(
      `replay: ${file} was recorded with actors from the module ${named}; kcsim does not load a module a recording names: pass --registry <module> to replay it with a module you trust`,
    );
  }
  return loadRegistry(resolveUserPath(given)).catch((error: unknown) => {
    throw new UsageError(
      `replay: --registry ${given}: cannot load an actor registry (${error instanceof Error ? error.message.split("\n")[0] : String(error)})`,
    );
  });
}

/** Reads and checks a recording file: complete, and (in a run directory) the one its summary.json belongs to. */
function readRecording(file: string, dir: string | null): Recording {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new UsageError(`replay: ${file}: cannot read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  let recording: Recording;
  try {
    recording = parseRecording(text, file);
  } catch (error) {
    if (error instanceof RecordingError) throw new UsageError(`replay: ${error.message}`);
    throw error;
  }
  const expected = dir === null ? null : summaryHash(dir);
  if (expected !== null && recording.end !== null && recording.end.historyHash !== expected) {
    throw new UsageError(
      `replay: ${file} belongs to another run than ${join(dir as string, "summary.json")} (history hash ${recording.end.historyHash.slice(0, 12)}... vs ${expected.slice(0, 12)}...)`,
    );
  }
  return recording;
}

/**
 * `kcsim replay <run-dir | recording.jsonl | hunt-failure-dir> [--json] [--out DIR] [--registry MODULE]`:
 * re-runs a realtime recording inline in virtual time, or re-runs a hunt
 * failure (scenario.json + hunt.json) with its seed and compares the verdict.
 */
export async function replayCommand(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseFlags("replay", argv, {
    json: { type: "boolean" },
    out: { type: "string" },
    registry: { type: "string" },
  });
  if (positionals.length !== 1) throw new UsageError(`replay: expected one run directory or recording file, got ${positionals.length}`);
  const given = resolveUserPath(positionals[0] as string);
  if (!existsSync(given)) throw new UsageError(`replay: ${given}: no such file or directory`);
  const isDir = statSync(given).isDirectory();
  if (isDir && isFailureDir(given)) {
    const out = values.out === undefined ? undefined : resolveUserPath(values.out);
    const replay = await replayFailure(given, out, `pnpm kcsim replay ${positionals[0] as string}`);
    process.stdout.write(values.json ? `${JSON.stringify(replay)}\n` : formatFailureReplay(replay, positionals[0] as string));
    return replay.failures.length === 0 ? EXIT_OK : EXIT_VIOLATION;
  }
  if (isDir) {
    const partial = [HUNT_FILE, SCENARIO_FILE].filter((name) => existsSync(join(given, name)));
    if (partial.length === 1) {
      throw new UsageError(
        `replay: ${given} is a half-written hunt failure directory: it has ${partial[0]} but no ${partial[0] === HUNT_FILE ? SCENARIO_FILE : HUNT_FILE}`,
      );
    }
  }
  const file = isDir ? join(given, "recording.jsonl") : given;
  if (!existsSync(file)) {
    throw new UsageError(
      `replay: ${given} is neither a hunt failure directory (${SCENARIO_FILE} + ${HUNT_FILE}) nor a realtime run directory (recording.jsonl, written by run --host realtime --out)`,
    );
  }
  const recording = readRecording(file, isDir ? given : null);
  const registry = await registryFor(recording, file, values.registry);
  let report: ReplayReport;
  try {
    report = replayRecording(recording, registry);
  } catch (error) {
    if (error instanceof RecordingError) throw new UsageError(`replay: ${error.message}`);
    // Anything else thrown while replaying comes from a recording this build cannot replay.
    throw new UsageError(`replay: ${file}: cannot replay (${error instanceof Error ? error.message.split("\n")[0] : String(error)})`);
  }
  process.stdout.write(values.json ? `${JSON.stringify(report)}\n` : formatReport(report, positionals[0] as string));
  return report.equal ? EXIT_OK : EXIT_VIOLATION;
}
