import { join } from "node:path";
import { failureDirName, writeFailureDir } from "../hunt/failure-dir.js";
import { formatFindings, groupFindings } from "../hunt/findings.js";
import { HuntProgress } from "../hunt/hunt-progress.js";
import type { HuntOutcome } from "../hunt/hunt-runner.js";
import type { HuntRunResult } from "../hunt/hunt-task.js";
import { formatSeedRanges, type SeedRange } from "../hunt/seed-ranges.js";
import type { Shard } from "../hunt/seed-shard.js";
import { EXIT_OK, EXIT_VIOLATION, signalExitCode } from "./exit-codes.js";
import { oneLine } from "./fail.js";
import { shownPath } from "./paths.js";

function bugReport(result: HuntRunResult, replay: string): string {
  const lines = [`FAIL seed ${result.seed}`];
  for (const f of result.failures) lines.push(`  ${f.check}: at ${f.t} us: ${f.message}`);
  for (const [key, value] of Object.entries(result.parameters)) {
    if (Array.isArray(value)) {
      lines.push(`  ${key}:`);
      for (const item of value) lines.push(`    - ${String(item)}`);
    } else lines.push(`  ${key}: ${JSON.stringify(value)}`);
  }
  lines.push(`  replay: ${replay}`);
  return `${lines.join("\n")}\n`;
}

export interface HuntReporterOptions {
  /** The scenario's name, or the swarm's ("swarm", "swarm-data", "swarm-migration"). */
  readonly label: string;
  /** The seeds asked for (before any shard). */
  readonly seeds: readonly SeedRange[];
  readonly shard: Shard | null;
  /** How many runs the hunt will make at most (the progress bar's end). */
  readonly total: number;
  /** Where failure directories go. */
  readonly outDir: string;
  readonly json: boolean;
  /** When the hunt started, in epoch ms, if before this command (a resumed queue hunt): runs/s count from then. */
  readonly startedAt?: number;
}

/** How an interrupted hunt ended: the signal, the seeds it did not run, and the command that runs them. */
export interface HuntInterruption {
  readonly signal: NodeJS.Signals;
  readonly left: readonly SeedRange[];
  readonly resume: string | null;
}

/**
 * What a hunt shows and writes, wherever its runs happen (a local pool or
 * a queue's workers): each failure printed and written to its directory as
 * found, the progress, and at the end the summary line, the findings
 * grouped by signature, or the --json object.
 */
export class HuntReporter {
  readonly #options: HuntReporterOptions;
  readonly #progress: HuntProgress;
  /** The replay command of each failing seed. */
  readonly replays = new Map<number, string>();
  /** Seeds whose result came back (an interrupted hunt resumes with the others). */
  readonly finished = new Set<number>();
  #failed = 0;
  #unwritten = 0;

  constructor(options: HuntReporterOptions) {
    this.#options = options;
    const since = options.startedAt === undefined ? performance.now() : performance.now() - (Date.now() - options.startedAt);
    this.#progress = new HuntProgress(options.total, !options.json && process.stderr.isTTY === true, undefined, undefined, since);
  }

  /** One finished run; `workersSeen` is shown in the progress of a queue hunt. */
  onResult(result: HuntRunResult, done: number, workersSeen?: number): void {
    this.finished.add(result.seed);
    if (result.failures.length > 0) {
      this.#failed++;
      // Reported first, then written, as soon as it is found: a failure is never lost to a directory that cannot be
      // written, and a long hunt stopped early keeps what it found.
      const dir = join(this.#options.outDir, failureDirName(result.seed));
      const replay = `pnpm kcsim replay ${shownPath(dir)}`;
      this.replays.set(result.seed, replay);
      if (!this.#options.json) this.#progress.log(bugReport(result, replay));
      try {
        writeFailureDir(this.#options.outDir, result);
      } catch (error) {
        this.#unwritten++;
        process.stderr.write(
          `kcsim: hunt: could not write ${shownPath(dir)} (${oneLine(error)}); seed ${result.seed} replays from its seed\n`,
        );
      }
    }
    this.#progress.update(done, this.#failed, workersSeen);
  }

  /** Stops the progress display (before printing anything else). */
  stopProgress(): void {
    this.#progress.stop();
  }

  /** Prints the summary (or the --json object, with `extra` fields) and returns the exit code. */
  finish(outcome: HuntOutcome, extra: Readonly<Record<string, unknown>> = {}, interruption: HuntInterruption | null = null): number {
    this.#progress.stop();
    const { label, seeds, shard } = this.#options;
    const replayOf = (seed: number) => this.replays.get(seed) ?? "";
    const findings = groupFindings(outcome.failures);
    if (this.#options.json) {
      const json = {
        runs: outcome.runs,
        failures: outcome.failures.flatMap((result) =>
          result.failures.map((f) => ({
            seed: result.seed,
            check: f.check,
            message: f.message,
            replay: replayOf(result.seed),
            parameters: result.parameters,
            signature: f.signature,
          })),
        ),
        findings: findings.map((finding) => ({ ...finding, count: finding.seeds.length, replay: replayOf(finding.example.seed) })),
        elapsedMs: Math.round(outcome.elapsedMs),
        runsPerSecond: Number((outcome.runs / (outcome.elapsedMs / 1000)).toFixed(2)),
        simulatedSecondsPerSecond: Number((outcome.simulatedMs / outcome.elapsedMs).toFixed(1)),
        workers: outcome.workers,
        extendedRuns: outcome.extended,
        // A shard says which seeds it ran, so a CI matrix can check that its shards covered the range.
        ...(shard !== null ? { shard: { index: shard.index, count: shard.count, seeds: outcome.seeds } } : {}),
        ...(interruption !== null
          ? { interrupted: interruption.signal, seedsLeft: formatSeedRanges(interruption.left), resume: interruption.resume }
          : {}),
        ...extra,
      };
      process.stdout.write(`${JSON.stringify(json)}\n`);
    } else {
      process.stdout.write(
        `hunt ${label}: ${outcome.runs} ${outcome.runs === 1 ? "run" : "runs"} of seeds ${formatSeedRanges(seeds)}${shard === null ? "" : ` (shard ${shard.index}/${shard.count})`}, ` +
          `${outcome.failures.length} failing, ` +
          (outcome.extended > 0 ? `${outcome.extended} run on to converges' bound, ` : "") +
          `${(outcome.elapsedMs / 1000).toFixed(1)} s on ${outcome.workers} ${outcome.workers === 1 ? "worker" : "workers"} (${(outcome.simulatedMs / outcome.elapsedMs).toFixed(0)}x real time)\n`,
      );
      process.stdout.write(formatFindings(findings));
      if (interruption !== null) {
        process.stdout.write(
          `hunt interrupted by ${interruption.signal}: ${outcome.runs} of ${this.#options.total} runs finished; ` +
            `the seeds left: ${formatSeedRanges(interruption.left) || "none"}\n`,
        );
        if (interruption.resume !== null) process.stdout.write(`resume: ${interruption.resume}\n`);
      }
    }
    if (this.#unwritten > 0) process.stderr.write(`kcsim: hunt: ${this.#unwritten} failure directories could not be written (see above)\n`);
    if (interruption !== null) return signalExitCode(interruption.signal);
    return outcome.failures.length === 0 ? EXIT_OK : EXIT_VIOLATION;
  }
}
