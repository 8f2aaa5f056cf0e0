import { join, relative } from "node:path";
import { drawChaosPlan } from "../../hunt/chaos-generator.js";
import { failureDirName, writeFailureDir } from "../../hunt/failure-dir.js";
import { HuntProgress } from "../../hunt/hunt-progress.js";
import { type HuntOutcome, hunt } from "../../hunt/hunt-runner.js";
import type { HuntRunResult } from "../../hunt/hunt-task.js";
import { formatSeedRanges, parseSeedRanges, type SeedRange, seedCount, seedsLeft } from "../../hunt/seed-ranges.js";
import { prepareHuntDir } from "../../output/output-dir.js";
import { MAX_HUNT_WORKERS } from "../../scenario/limits.js";
import { loadScenarioFile } from "../../scenario/load-scenario.js";
import { consumerConfigFlag, withConsumerConfig } from "../consumer-config-flag.js";
import { EXIT_OK, EXIT_VIOLATION, signalExitCode } from "../exit-codes.js";
import { oneLine } from "../fail.js";
import { choiceFlag, integerFlag, parseFlags } from "../parse-flags.js";
import { resolveUserPath, userCwd } from "../paths.js";
import { plantedBugFlag, plantedBugList } from "../planted-bug-flags.js";
import { UsageError } from "../usage-error.js";

/** A path as the user can type it: relative to where they ran kcsim unless that climbs out of it. */
function shownPath(dir: string): string {
  const rel = relative(userCwd(), dir);
  return rel === "" || rel.startsWith("..") ? dir : rel;
}

/** "A..B" (inclusive), a single seed, or a list of both. */
function parseSeeds(value: string | undefined): readonly SeedRange[] {
  if (value === undefined) return [{ from: 1, to: 100 }];
  const ranges = parseSeedRanges(value);
  if (typeof ranges === "string") throw new UsageError(`hunt: --seeds ${ranges}`);
  return ranges;
}

/** An argument as a shell reads it back. */
function shellWord(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`;
}

/** The command that runs the seeds an interrupted hunt left, into the same output directory. */
function resumeCommand(argv: readonly string[], left: readonly SeedRange[], outDir: string): string {
  const kept: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--seeds" || arg === "--out") i++;
    else if (!arg.startsWith("--seeds=") && !arg.startsWith("--out=")) kept.push(arg);
  }
  return ["pnpm kcsim hunt", ...kept.map(shellWord), "--seeds", formatSeedRanges(left), "--out", shellWord(shownPath(outDir))].join(" ");
}

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

/**
 * `kcsim hunt <scenario | --swarm> [--seeds A..B] [--workers N] [--keep-going] [--out DIR] [--json]
 *  [--as-written] [--protocol P] [--bug NAME] [--consumer-config NAME=VALUE]...` (or `--list-bugs`): runs every seed with a drawn fault
 * schedule (and with --swarm a drawn group configuration; with
 * --as-written the scenario's own faults) on all cores, and reports each
 * failing seed with its parameters and the command that replays it.
 */
export async function huntCommand(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseFlags("hunt", argv, {
    seeds: { type: "string" },
    swarm: { type: "boolean" },
    workers: { type: "string" },
    "keep-going": { type: "boolean" },
    out: { type: "string" },
    json: { type: "boolean" },
    "as-written": { type: "boolean" },
    protocol: { type: "string" },
    bug: { type: "string" },
    "list-bugs": { type: "boolean" },
    "consumer-config": { type: "string", multiple: true },
  });
  if (values["list-bugs"]) {
    process.stdout.write(plantedBugList());
    return 0;
  }
  const bug = plantedBugFlag("hunt", values.bug);
  const seeds = parseSeeds(values.seeds);
  const workers = integerFlag("hunt", "workers", values.workers, 1);
  if (workers !== undefined && workers > MAX_HUNT_WORKERS)
    throw new UsageError(`hunt: --workers ${workers}: more than the limit of ${MAX_HUNT_WORKERS} pool threads`);
  const protocol =
    values.protocol === undefined
      ? null
      : choiceFlag("hunt", "protocol", values.protocol, ["eager", "cooperative", "consumer"] as const, "consumer");
  if (values["as-written"] && values.swarm) throw new UsageError("hunt: --as-written needs a scenario (it runs the scenario's own faults)");
  if (values.swarm && positionals.length > 0) throw new UsageError("hunt: give a scenario or --swarm, not both");
  if (!values.swarm && positionals.length !== 1) throw new UsageError("hunt: expected one scenario file (or --swarm)");
  const consumerConfig = consumerConfigFlag("hunt", values["consumer-config"]);
  if (values.swarm && Object.keys(consumerConfig).length > 0) throw new UsageError("hunt: --consumer-config needs a scenario, not --swarm");
  const base = values.swarm ? null : withConsumerConfig(loadScenarioFile(resolveUserPath(positionals[0] as string)), consumerConfig);
  const asWritten = values["as-written"] === true;
  const first = seeds[0] as SeedRange;
  const last = seeds[seeds.length - 1] as SeedRange;
  const label = base === null ? "swarm" : base.name;
  const suffix = `${protocol === null ? "" : `-${protocol}`}${bug === null ? "" : `-${bug}`}`;
  const outDir = resolveUserPath(values.out ?? `runs/hunt-${label}${suffix}-${first.from}-${last.to}`);
  // The output directory and the first plan are checked before any worker starts, so a hunt that cannot run fails fast.
  prepareHuntDir("hunt: --out", outDir);
  drawChaosPlan(first.from, base);
  const total = seedCount(seeds);
  const progress = new HuntProgress(total, !values.json && process.stderr.isTTY === true);
  let failed = 0;
  let unwritten = 0;
  const finished = new Set<number>();
  const replays = new Map<number, string>();
  const interruption = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (interruption.signal.aborted) process.exit(signalExitCode(signal)); // a second Ctrl-C does not wait
    interruption.abort(signal);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  let outcome: HuntOutcome;
  try {
    outcome = await hunt({
      base,
      asWritten,
      protocol,
      ...(bug !== null ? { bugs: [bug] } : {}),
      fromSeed: first.from,
      toSeed: last.to,
      seeds,
      signal: interruption.signal,
      stopOnFailure: values["keep-going"] !== true,
      ...(workers !== undefined ? { workers } : {}),
      onResult: (result, done) => {
        finished.add(result.seed);
        if (result.failures.length > 0) {
          failed++;
          // Reported first, then written: a failure found is never lost to a directory that cannot be written.
          const dir = join(outDir, failureDirName(result.seed));
          const replay = `pnpm kcsim replay ${shownPath(dir)}`;
          replays.set(result.seed, replay);
          if (!values.json) progress.log(bugReport(result, replay));
          try {
            writeFailureDir(outDir, result);
          } catch (error) {
            unwritten++;
            process.stderr.write(
              `kcsim: hunt: could not write ${shownPath(dir)} (${oneLine(error)}); seed ${result.seed} replays from its seed\n`,
            );
          }
        }
        progress.update(done, failed);
      },
    });
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    progress.stop();
  }
  const stoppedBy = interruption.signal.aborted ? (interruption.signal.reason as NodeJS.Signals) : null;
  const left = stoppedBy === null ? [] : seedsLeft(seeds, finished);
  const resume = left.length === 0 ? null : resumeCommand(argv, left, outDir);
  const failures = outcome.failures.map((result) => ({ result, replay: replays.get(result.seed) ?? "" }));
  if (values.json) {
    const json = {
      runs: outcome.runs,
      failures: failures.flatMap(({ result, replay }) =>
        result.failures.map((f) => ({ seed: result.seed, check: f.check, message: f.message, replay, parameters: result.parameters })),
      ),
      elapsedMs: Math.round(outcome.elapsedMs),
      runsPerSecond: Number((outcome.runs / (outcome.elapsedMs / 1000)).toFixed(2)),
      simulatedSecondsPerSecond: Number((outcome.simulatedMs / outcome.elapsedMs).toFixed(1)),
      workers: outcome.workers,
      ...(stoppedBy !== null ? { interrupted: stoppedBy, seedsLeft: formatSeedRanges(left), resume } : {}),
    };
    process.stdout.write(`${JSON.stringify(json)}\n`);
  } else {
    process.stdout.write(
      `hunt ${label}: ${outcome.runs} runs of seeds ${formatSeedRanges(seeds)}, ${outcome.failures.length} failing, ` +
        `${(outcome.elapsedMs / 1000).toFixed(1)} s on ${outcome.workers} workers (${(outcome.simulatedMs / outcome.elapsedMs).toFixed(0)}x real time)\n`,
    );
    if (stoppedBy !== null) {
      process.stdout.write(
        `hunt interrupted by ${stoppedBy}: ${outcome.runs} of ${total} runs finished; the seeds left: ${formatSeedRanges(left) || "none"}\n`,
      );
      if (resume !== null) process.stdout.write(`resume: ${resume}\n`);
    }
  }
  if (unwritten > 0) process.stderr.write(`kcsim: hunt: ${unwritten} failure directories could not be written (see above)\n`);
  if (stoppedBy !== null) return signalExitCode(stoppedBy);
  return outcome.failures.length === 0 ? EXIT_OK : EXIT_VIOLATION;
}
