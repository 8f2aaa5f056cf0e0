import type { CheckResult } from "../checkers/checker.js";
import { CHECKERS, DATA_CHECKERS, DEFAULT_CHECKERS, GROUP_CHECKERS } from "../checkers/registry.js";
import { type HostName, type HostOptions, runInHost } from "../hosts/run-host.js";
import type { RunResult } from "../kernel/run-result.js";
import type { SimulationSpec } from "../kernel/simulation-spec.js";
import { type RunMetrics, runMetrics } from "../metrics/run-metrics.js";
import { ScenarioError, type SpecOverrides, toSimulationSpec } from "../scenario/load-scenario.js";
import type { ScenarioFile } from "../scenario/scenario-schema.js";
import { writeRunDirectory } from "./write-run-directory.js";

export type { HostName, HostOptions } from "../hosts/run-host.js";

export interface RunOptions extends SpecOverrides {
  readonly host: HostName;
  /** Directory for history.jsonl, summary.json, command.txt, spec.json and report.html. */
  readonly out?: string;
  /** The command that replays this run, recorded with it. */
  readonly replayCommand?: string;
  /** Worker hosts: actors per worker, time scale, logs. */
  readonly hostOptions?: HostOptions;
}

/** What `kcsim run --json` prints: later issues add fields, never rename these. */
export interface RunSummary {
  readonly scenario: string;
  readonly seed: number;
  readonly host: HostName;
  readonly historyHash: string;
  readonly checks: Readonly<Record<string, CheckResult>>;
  readonly metrics: RunMetrics;
  readonly replay: string;
}

export function judge(result: RunResult, spec: SimulationSpec, names: readonly string[]): Record<string, CheckResult> {
  const checks: Record<string, CheckResult> = {};
  for (const name of names) {
    const checker = CHECKERS.get(name);
    if (checker === undefined) throw new ScenarioError(`unknown checker '${name}' (known: ${[...CHECKERS.keys()].join(", ")})`);
    checks[name] = checker.check(result.events, spec);
  }
  return checks;
}

export async function runSpec(
  spec: SimulationSpec,
  host: HostName,
  onLine?: (line: string) => void,
  hostOptions: HostOptions = {},
): Promise<RunResult & { readonly recordingText?: string }> {
  const history = onLine === undefined ? {} : { onLine };
  const { result, recording } = await runInHost(spec, host, hostOptions, history);
  return recording === null ? result : { ...result, recordingText: recording };
}

/** Runs a validated scenario in a host, judges it, and writes the run directory when asked. */
export async function runScenario(scenario: ScenarioFile, options: RunOptions): Promise<{ summary: RunSummary; result: RunResult }> {
  const spec = toSimulationSpec(scenario, options);
  const checkerNames =
    scenario.checkers ??
    (scenario.groups === undefined ? DEFAULT_CHECKERS : [...GROUP_CHECKERS, ...(scenario.producers === undefined ? [] : DATA_CHECKERS)]);
  for (const name of checkerNames)
    if (!CHECKERS.has(name))
      throw new ScenarioError(`${scenario.name}: checkers: unknown checker '${name}' (known: ${[...CHECKERS.keys()].join(", ")})`);
  const lines: string[] = [];
  const result = await runSpec(spec, options.host, options.out === undefined ? undefined : (line) => lines.push(line), options.hostOptions);
  const summary: RunSummary = {
    scenario: spec.scenario,
    seed: spec.seed,
    host: options.host,
    historyHash: result.historyHash,
    checks: judge(result, spec, checkerNames),
    metrics: runMetrics(result, spec),
    replay: options.replayCommand ?? "",
  };
  if (options.out !== undefined) writeRunDirectory(options.out, lines, summary, spec, result);
  return { summary, result };
}
