import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CodecError, ConfigError } from "@kcsim/protocol";
import { RecordingError } from "../hosts/realtime/recording.js";
import { OutputError } from "../output/output-error.js";
import { RunDirectoryError } from "../report/run-directory.js";
import { HeapLimitError } from "../run/heap-guard.js";
import { ScenarioError } from "../scenario/scenario-error.js";
import { EXIT_INPUT, EXIT_INTERNAL } from "./exit-codes.js";
import { UsageError } from "./usage-error.js";

/** Errors that mean bad input (a flag, a scenario, a settings value, a file kcsim reads): one line, exit code 2. */
export function isInputError(error: unknown): error is Error {
  return (
    error instanceof UsageError ||
    error instanceof ScenarioError ||
    error instanceof ConfigError ||
    error instanceof CodecError ||
    error instanceof RecordingError ||
    error instanceof RunDirectoryError ||
    error instanceof OutputError
  );
}

/** An error's stack with its causes, for the crash file. */
function fullStack(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error, depth = 0; e !== undefined && depth < 8; depth++) {
    parts.push(e instanceof Error ? (e.stack ?? `${e.name}: ${e.message}`) : String(e));
    e = e instanceof Error ? e.cause : undefined;
    if (e !== undefined) parts.push("caused by:");
  }
  return parts.join("\n");
}

/** Writes what kcsim knows about its own failure to a file; returns its path, or null when even that fails. */
export function writeCrashFile(error: unknown, argv: readonly string[], dir = tmpdir()): string | null {
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const path = join(dir, `kcsim-crash-${stamp}-${process.pid}.txt`);
  const text = [
    `kcsim ${argv.join(" ")}`,
    `node ${process.version} ${process.platform}-${process.arch}`,
    `cwd ${process.cwd()}`,
    "",
    fullStack(error),
    "",
  ].join("\n");
  try {
    writeFileSync(path, text);
    return path;
  } catch {
    return null;
  }
}

/** The first line of an error's message, so nothing a library wraps spills over several lines. */
export function oneLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split("\n").find((line) => line.trim() !== "") ?? (error instanceof Error ? error.name : "unknown error");
}

/**
 * Prints one line for a failed command and returns its exit code: 2 for
 * bad input; 3 for kcsim's own failure, with the path of a file holding the
 * full stack (a run that outgrows the heap says so, without a stack).
 */
export function reportFailure(error: unknown, argv: readonly string[], stderr: (text: string) => void): number {
  if (isInputError(error)) {
    stderr(`kcsim: ${oneLine(error)}\n`);
    return EXIT_INPUT;
  }
  if (error instanceof HeapLimitError) {
    stderr(`kcsim: ${oneLine(error)}\n`);
    return EXIT_INTERNAL;
  }
  const file = writeCrashFile(error, argv);
  const name = error instanceof Error ? error.name : "error";
  stderr(
    `kcsim: internal error (${name}: ${oneLine(error)}); this is a kcsim bug, not your input: ${file === null ? "the stack could not be written" : `the full stack is in ${file}`}\n`,
  );
  return EXIT_INTERNAL;
}
