import { writeFileSync } from "node:fs";
import { drawChaosPlan } from "../../hunt/chaos-generator.js";
import { writeFailureDir } from "../../hunt/failure-dir.js";
import { HuntProgress } from "../../hunt/hunt-progress.js";
import { hunt } from "../../hunt/hunt-runner.js";
import type { HuntRunResult } from "../../hunt/hunt-task.js";
import { huntJunitXml } from "../../run/junit.js";
import { loadScenarioFile } from "../../scenario/load-scenario.js";
import { consumerConfigFlag, withConsumerConfig } from "../consumer-config-flag.js";
import { choiceFlag, integerFlag, parseFlags } from "../parse-flags.js";
import { resolveUserPath, shownPath } from "../paths.js";
import { plantedBugFlag, plantedBugList } from "../planted-bug-flags.js";
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
    junit: { type: "string" },
  });
  if (values["list-bugs"]) {
    process.stdout.write(plantedBugList());
    return 0;
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
  const label = base === null ? "swarm" : base.name;
  const suffix = `${protocol === null ? "" : `-${protocol}`}${bug === null ? "" : `-${bug}`}`;
  const outDir = resolveUserPath(values.out ?? `runs/hunt-${label}${suffix}-${seeds.from}-${seeds.to}`);
  // Validate the first plan before spinning up workers, so a scenario that cannot be hunted fails fast
  // (with --as-written no plan is drawn: the scenario itself was validated when it was loaded).
  if (!asWritten) drawChaosPlan(seeds.from, base);
  const total = seeds.to - seeds.from + 1;
  const progress = new HuntProgress(total, !values.json && process.stderr.isTTY === true);
  let failed = 0;
  const replays = new Map<number, string>();
  const junit = values.junit === undefined ? null : resolveUserPath(values.junit);
  // Every seed's verdict, for --junit (without the scenarios the runs carry: a hunt may run thousands).
  const verdicts: HuntRunResult[] = [];
  const outcome = await hunt({
    base,
    asWritten,
    protocol,
    ...(bug !== null ? { bugs: [bug] } : {}),
    fromSeed: seeds.from,
    toSeed: seeds.to,
    stopOnFailure: values["keep-going"] !== true,
    ...(workers !== undefined ? { workers } : {}),
    onResult: (result, done) => {
      if (junit !== null) verdicts.push({ ...result, scenario: { name: result.scenario.name, durationMs: result.scenario.durationMs } });
      if (result.failures.length > 0) {
        failed++;
        // Written (and, without --json, reported) as soon as it is found: a long hunt stopped early keeps what it found.
        const dir = writeFailureDir(outDir, result);
        const replay = `pnpm kcsim replay ${shownPath(dir)}`;
        replays.set(result.seed, replay);
        if (!values.json) progress.log(bugReport(result, replay));
      }
      progress.update(done, failed);
    },
  });
  progress.stop();
  if (junit !== null) writeFileSync(junit, huntJunitXml(label, verdicts, replays, outcome.elapsedMs));
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
    };
    process.stdout.write(`${JSON.stringify(json)}\n`);
  } else {
    process.stdout.write(
      `hunt ${label}: ${outcome.runs} runs of seeds ${seeds.from}..${seeds.to}, ${outcome.failures.length} failing, ` +
        `${(outcome.elapsedMs / 1000).toFixed(1)} s on ${outcome.workers} workers (${(outcome.simulatedMs / outcome.elapsedMs).toFixed(0)}x real time)\n`,
    );
  }
  return outcome.failures.length === 0 ? 0 : 1;
}
