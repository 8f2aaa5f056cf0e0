import { writeFileSync } from "node:fs";
import { drawChaosPlan } from "../../hunt/chaos-generator.js";
import { hunt } from "../../hunt/hunt-runner.js";
import type { HuntRunResult } from "../../hunt/hunt-task.js";
import { formatSeedRanges, parseSeedRanges, rangesOf, type SeedRange, seedCount, seedsLeft, seedsOf } from "../../hunt/seed-ranges.js";
import { shardSeeds } from "../../hunt/seed-shard.js";
import { SWARM_NAMES, SWARMS, type Swarm, swarmFlag } from "../../hunt/swarm-draw.js";
import { prepareHuntDir } from "../../output/output-dir.js";
import { huntJunitXml } from "../../run/junit.js";
import { MAX_HUNT_WORKERS } from "../../scenario/limits.js";
import { loadScenarioFile } from "../../scenario/load-scenario.js";
import { consumerConfigFlag, withConsumerConfig } from "../consumer-config-flag.js";
import { signalExitCode } from "../exit-codes.js";
import { type HuntInterruption, HuntReporter } from "../hunt-reporter.js";
import { choiceFlag, integerFlag, parseFlags } from "../parse-flags.js";
import { resolveUserPath, shownPath } from "../paths.js";
import { plantedBugFlag, plantedBugList } from "../planted-bug-flags.js";
import { queueFlag } from "../queue-flag.js";
import { shardFlag } from "../shard-flag.js";
import { UsageError } from "../usage-error.js";

/** The queue side of hunting, loaded only for --queue: BullMQ and ioredis take longer to load than a local hunt takes to start. */
const queueHunts = () => import("../queue-hunt.js");

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
    // The seeds left are listed whole (a shard's included), so --seeds, --shard and --out are given anew.
    if (arg === "--seeds" || arg === "--out" || arg === "--shard") i++;
    else if (!["--seeds=", "--out=", "--shard="].some((flag) => arg.startsWith(flag))) kept.push(arg);
  }
  return ["pnpm kcsim hunt", ...kept.map(shellWord), "--seeds", formatSeedRanges(left), "--out", shellWord(shownPath(outDir))].join(" ");
}

/**
 * `kcsim hunt <scenario | --swarm | --swarm-data | --swarm-migration> [--seeds A..B] [--workers N] [--keep-going] [--out DIR] [--json]
 *  [--as-written] [--protocol P] [--bug NAME] [--consumer-config NAME=VALUE]... [--shard I/N] [--history]
 *  [--queue redis://HOST:PORT[/DB]]` (or `--list-bugs`, or `--queue URL --resume ID`): runs every seed with a drawn fault
 * schedule (and with --swarm a drawn group configuration, with
 * --swarm-data a drawn group, producers and brokers, with --swarm-migration
 * a drawn group migrated between the protocols; with
 * --as-written the scenario's own faults) on all cores, or with --queue on
 * the `kcsim worker`s of a BullMQ queue, and reports each failing seed with
 * its parameters and the command that replays it.
 */
export async function huntCommand(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseFlags("hunt", argv, {
    seeds: { type: "string" },
    swarm: { type: "boolean" },
    "swarm-data": { type: "boolean" },
    "swarm-migration": { type: "boolean" },
    workers: { type: "string" },
    "keep-going": { type: "boolean" },
    out: { type: "string" },
    json: { type: "boolean" },
    "as-written": { type: "boolean" },
    protocol: { type: "string" },
    bug: { type: "string" },
    "list-bugs": { type: "boolean" },
    "consumer-config": { type: "string", multiple: true },
    shard: { type: "string" },
    history: { type: "boolean" },
    queue: { type: "string" },
    resume: { type: "string" },
    junit: { type: "string" },
  });
  if (values["list-bugs"]) {
    process.stdout.write(plantedBugList());
    return 0;
  }
  const queue = queueFlag("hunt", values.queue);
  if (values.resume !== undefined) {
    if (queue === null) throw new UsageError("hunt: --resume needs --queue (the Redis the hunt was submitted to)");
    const extra = Object.keys(values).find((flag) => !["queue", "resume", "out", "json"].includes(flag));
    if (extra !== undefined || positionals.length > 0)
      throw new UsageError(
        `hunt: --resume reattaches to the hunt as submitted: only --out and --json go with it, not ${extra === undefined ? `'${positionals[0]}'` : `--${extra}`}`,
      );
    const { resumeQueueHunt } = await queueHunts();
    return resumeQueueHunt(queue, values.resume, values.out === undefined ? null : resolveUserPath(values.out), values.json === true);
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
  const swarms = SWARMS.filter((kind) => values[SWARM_NAMES[kind]] === true);
  if (swarms.length > 1) throw new UsageError(`hunt: give one of ${swarms.map(swarmFlag).join(", ")}, not more`);
  const swarm: Swarm | null = swarms[0] ?? null;
  if (values["as-written"] && swarm !== null)
    throw new UsageError("hunt: --as-written needs a scenario (it runs the scenario's own faults)");
  if (swarm !== null && positionals.length > 0) throw new UsageError(`hunt: give a scenario or ${swarmFlag(swarm)}, not both`);
  if (swarm === null && positionals.length !== 1)
    throw new UsageError("hunt: expected one scenario file (or --swarm, --swarm-data or --swarm-migration)");
  const consumerConfig = consumerConfigFlag("hunt", values["consumer-config"]);
  if (swarm !== null && Object.keys(consumerConfig).length > 0)
    throw new UsageError(`hunt: --consumer-config needs a scenario, not ${swarmFlag(swarm)}`);
  const base = swarm ?? withConsumerConfig(loadScenarioFile(resolveUserPath(positionals[0] as string)), consumerConfig);
  const asWritten = values["as-written"] === true;
  const shard = shardFlag("hunt", values.shard);
  if (queue !== null && shard !== null)
    throw new UsageError("hunt: --shard splits a local hunt; a --queue hunt is spread over its workers already");
  if (queue !== null && workers !== undefined) throw new UsageError("hunt: --workers sizes a local pool; each kcsim worker sizes its own");
  if (queue !== null && seeds.length > 1) throw new UsageError("hunt: --queue takes one range of seeds (A..B)");
  if (queue !== null && values.junit !== undefined)
    throw new UsageError("hunt: --junit goes with a local hunt (a --queue hunt prints --json)");
  const withHistory = values.history === true;
  const first = seeds[0] as SeedRange;
  const last = seeds[seeds.length - 1] as SeedRange;
  const label = typeof base === "string" ? SWARM_NAMES[base] : base.name;
  const suffix = `${protocol === null ? "" : `-${protocol}`}${bug === null ? "" : `-${bug}`}`;
  const outDir = resolveUserPath(values.out ?? `runs/hunt-${label}${suffix}-${first.from}-${last.to}`);
  // The output directory and the first plan are checked before any worker starts, so a hunt that cannot run fails fast.
  prepareHuntDir("hunt: --out", outDir);
  // With --as-written no plan is drawn (the scenario itself was validated when it was loaded).
  if (!asWritten) drawChaosPlan(first.from, base);
  const stopOnFailure = values["keep-going"] !== true;
  const bugs = bug !== null ? [bug] : [];
  if (queue !== null) {
    const template = { base, asWritten, protocol, ...(bugs.length > 0 ? { bugs } : {}), ...(withHistory ? { withHistory } : {}) };
    const { submitQueueHunt } = await queueHunts();
    return submitQueueHunt(queue, { label, fromSeed: first.from, toSeed: first.to, template, stopOnFailure, outDir }, values.json === true);
  }
  const total = shard === null ? seedCount(seeds) : Math.ceil(seedCount(seeds) / shard.count);
  const reporter = new HuntReporter({ label, seeds, shard, total, outDir, json: values.json === true });
  const junit = values.junit === undefined ? null : resolveUserPath(values.junit);
  // Every seed's verdict, for --junit (without the scenarios the runs carry: a hunt may run thousands).
  const verdicts: HuntRunResult[] = [];
  const interruption = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (interruption.signal.aborted) process.exit(signalExitCode(signal)); // a second Ctrl-C does not wait
    interruption.abort(signal);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  let outcome: Awaited<ReturnType<typeof hunt>>;
  try {
    outcome = await hunt({
      base,
      asWritten,
      protocol,
      ...(bugs.length > 0 ? { bugs } : {}),
      fromSeed: first.from,
      toSeed: last.to,
      seeds,
      ...(shard !== null ? { shard } : {}),
      ...(withHistory ? { withHistory } : {}),
      signal: interruption.signal,
      stopOnFailure,
      ...(workers !== undefined ? { workers } : {}),
      onResult: (result, done) => {
        if (junit !== null) verdicts.push({ ...result, scenario: { name: result.scenario.name, durationMs: result.scenario.durationMs } });
        reporter.onResult(result, done);
      },
    });
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    reporter.stopProgress();
  }
  let stopped: HuntInterruption | null = null;
  if (interruption.signal.aborted) {
    // A shard resumes its own seeds: the seeds left are those of this shard that did not run.
    const left =
      shard === null
        ? seedsLeft(seeds, reporter.finished)
        : rangesOf([...shardSeeds(seedsOf(seeds), shard)].filter((seed) => !reporter.finished.has(seed)));
    stopped = {
      signal: interruption.signal.reason as NodeJS.Signals,
      left,
      resume: left.length === 0 ? null : resumeCommand(argv, left, outDir),
    };
  }
  if (junit !== null) writeFileSync(junit, huntJunitXml(label, verdicts, reporter.replays, outcome.elapsedMs));
  return reporter.finish(outcome, {}, stopped);
}
