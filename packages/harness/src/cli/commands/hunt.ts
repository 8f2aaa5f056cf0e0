import { drawChaosPlan } from "../../hunt/chaos-generator.js";
import { hunt } from "../../hunt/hunt-runner.js";
import { shardSeeds } from "../../hunt/seed-shard.js";
import { loadScenarioFile } from "../../scenario/load-scenario.js";
import { consumerConfigFlag, withConsumerConfig } from "../consumer-config-flag.js";
import { HuntReporter } from "../hunt-reporter.js";
import { choiceFlag, integerFlag, parseFlags } from "../parse-flags.js";
import { resolveUserPath } from "../paths.js";
import { plantedBugFlag, plantedBugList } from "../planted-bug-flags.js";
import { queueFlag } from "../queue-flag.js";
import { resumeQueueHunt, submitQueueHunt } from "../queue-hunt.js";
import { shardFlag } from "../shard-flag.js";
import { UsageError } from "../usage-error.js";

/** "A..B" (inclusive) or a single seed. */
function parseSeeds(value: string | undefined): { from: number; to: number } {
  if (value === undefined) return { from: 1, to: 100 };
  const match = /^(\d+)(?:\.\.(\d+))?$/.exec(value);
  if (match === null) throw new UsageError(`hunt: --seeds must be A..B or a single seed, got '${value}'`);
  const from = Number(match[1]);
  const to = match[2] === undefined ? from : Number(match[2]);
  if (to < from) throw new UsageError(`hunt: --seeds ${value}: the range ends before it starts`);
  return { from, to };
}

/**
 * `kcsim hunt <scenario | --swarm> [--seeds A..B] [--workers N] [--keep-going] [--out DIR] [--json]
 *  [--as-written] [--protocol P] [--bug NAME] [--consumer-config NAME=VALUE]... [--shard I/N] [--history]
 *  [--queue redis://HOST:PORT[/DB]]` (or `--list-bugs`, or `--queue URL --resume ID`): runs every seed with a drawn fault
 * schedule (and with --swarm a drawn group configuration; with
 * --as-written the scenario's own faults) on all cores, or with --queue on
 * the `kcsim worker`s of a BullMQ queue, and reports each failing seed with
 * its parameters and the command that replays it.
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
    shard: { type: "string" },
    history: { type: "boolean" },
    queue: { type: "string" },
    resume: { type: "string" },
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
    return resumeQueueHunt(queue, values.resume, values.out === undefined ? null : resolveUserPath(values.out), values.json === true);
  }
  const bug = plantedBugFlag("hunt", values.bug);
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
  const seeds = parseSeeds(values.seeds);
  const workers = integerFlag("hunt", "workers", values.workers, 1);
  const shard = shardFlag("hunt", values.shard);
  if (queue !== null && shard !== null)
    throw new UsageError("hunt: --shard splits a local hunt; a --queue hunt is spread over its workers already");
  if (queue !== null && workers !== undefined) throw new UsageError("hunt: --workers sizes a local pool; each kcsim worker sizes its own");
  const withHistory = values.history === true;
  const label = base === null ? "swarm" : base.name;
  const suffix = `${protocol === null ? "" : `-${protocol}`}${bug === null ? "" : `-${bug}`}`;
  const outDir = resolveUserPath(values.out ?? `runs/hunt-${label}${suffix}-${seeds.from}-${seeds.to}`);
  // Validate the first plan before spinning up workers, so a scenario that cannot be hunted fails fast.
  drawChaosPlan(seeds.from, base);
  const stopOnFailure = values["keep-going"] !== true;
  const bugs = bug !== null ? [bug] : [];
  if (queue !== null) {
    const template = { base, asWritten, protocol, ...(bugs.length > 0 ? { bugs } : {}), ...(withHistory ? { withHistory } : {}) };
    return submitQueueHunt(queue, { label, fromSeed: seeds.from, toSeed: seeds.to, template, stopOnFailure, outDir }, values.json === true);
  }
  const reporter = new HuntReporter({
    label,
    fromSeed: seeds.from,
    toSeed: seeds.to,
    shard,
    total: shardSeeds(seeds.from, seeds.to, shard).length,
    outDir,
    json: values.json === true,
  });
  const outcome = await hunt({
    base,
    asWritten,
    protocol,
    ...(bugs.length > 0 ? { bugs } : {}),
    fromSeed: seeds.from,
    toSeed: seeds.to,
    ...(shard !== null ? { shard } : {}),
    ...(withHistory ? { withHistory } : {}),
    stopOnFailure,
    ...(workers !== undefined ? { workers } : {}),
    onResult: (result, done) => reporter.onResult(result, done),
  });
  return reporter.finish(outcome);
}
