import { join } from "node:path";
import { DEFAULT_REGISTRY } from "../actors/registry.js";
import type { Checker, CheckResult } from "../checkers/checker.js";
import { CHECKERS, DATA_CHECKERS, DEFAULT_CHECKERS, GROUP_CHECKERS } from "../checkers/registry.js";
import type { HistoryFollower, HistoryOptions } from "../history/history.js";
import type { HistoryEvent } from "../history/history-event.js";
import { type HostName, type HostOptions, runInHost } from "../hosts/run-host.js";
import { loadRegistry, withDefaultActors } from "../hosts/worker/load-registry.js";
import type { ActorRegistry } from "../kernel/actor-registry.js";
import type { RunResult } from "../kernel/run-result.js";
import type { SimulationSpec } from "../kernel/simulation-spec.js";
import type { RunMetrics } from "../metrics/run-metrics.js";
import { LineFile } from "../output/line-file.js";
import { prepareRunDir } from "../output/output-dir.js";
import { ScenarioError, type SpecOverrides, toSimulationSpec } from "../scenario/load-scenario.js";
import type { ScenarioFile } from "../scenario/scenario-schema.js";
import { judgeFinished, RunJudge } from "./run-judge.js";
import { writeRunDirectory } from "./write-run-directory.js";

export type { HostName, HostOptions } from "../hosts/run-host.js";

/** Events a judged-only run keeps by default for checkers that read the whole history (about 14 chaos-eos runs' worth). */
const KEPT_EVENTS_LIMIT = 500_000;

export interface RunOptions extends SpecOverrides {
  readonly host: HostName;
  /** Directory for history.jsonl, summary.json, command.txt, spec.json and report.html. */
  readonly out?: string;
  /** The command that replays this run, recorded with it. */
  readonly replayCommand?: string;
  /** Worker hosts: actors per worker, time scale, logs; custom actors (a registry inline, a module path on every host). */
  readonly hostOptions?: HostOptions;
  /** Checkers of the caller's own, registered for this run: they judge it besides the scenario's (or the default) ones. */
  readonly checkers?: readonly Checker[];
  /**
   * Judge the run as it goes without recording its history: nothing encoded or hashed (the summary's
   * historyHash is empty) and no log (5 to 30% of a run); when only kcsim's streaming checkers judge it, no
   * message sized either unless a bandwidth fault needs it (the metrics' bytes are 0; 7 to 9% more). Hunts use
   * it, and run a failing seed again with its history. A checker that reads the whole history afterwards (the
   * exactly-once family) is handed the events themselves, kept as they were recorded. Only on the inline host
   * and without `out`; otherwise the history is recorded as usual.
   */
  readonly judgedOnly?: boolean;
  /** Each history line (JSON, the header's first) as the run records it: what `out` writes to history.jsonl. */
  readonly onLine?: (line: string) => void;
  /** Events a judged-only run keeps for checkers that read the whole history (default 500,000); past it, it runs again recorded. */
  readonly keptEventsLimit?: number;
}

/** What `kcsim run --json` prints: later issues add fields, never rename these. */
export interface RunSummary {
  readonly scenario: string;
  readonly seed: number;
  readonly host: HostName;
  /** The SHA-256 of the run's history (hex); empty when the run was judged without recording it (RunOptions.judgedOnly). */
  readonly historyHash: string;
  readonly checks: Readonly<Record<string, CheckResult>>;
  readonly metrics: RunMetrics;
  readonly replay: string;
  /** A realtime run interrupted (SIGINT, SIGTERM) before its end: the virtual ms it stopped at; it is judged up to then. */
  readonly interruptedAtMs?: number;
}

/** Judges a run's events (an array, or a finished run's `events`) with the named checkers, in one pass for the streaming ones. */
export function judge(
  result: Pick<RunResult, "events">,
  spec: SimulationSpec,
  names: readonly string[],
  checkers: ReadonlyMap<string, Checker> = CHECKERS,
): Record<string, CheckResult> {
  const judgeRun = new RunJudge(spec, names, checkers);
  const events = result.events;
  judgeRun.pass.acceptAll(events);
  return judgeRun.checks(() => events);
}

/** kcsim's checkers and the caller's, by name; a caller's checker may not take a name kcsim uses. */
export function checkersWith(custom: readonly Checker[] = []): ReadonlyMap<string, Checker> {
  const all = new Map(CHECKERS);
  for (const checker of custom) {
    if (all.has(checker.name)) throw new ScenarioError(`checker '${checker.name}' is registered twice (kcsim has one of that name)`);
    all.set(checker.name, checker);
  }
  return all;
}

export async function runSpec(
  spec: SimulationSpec,
  host: HostName,
  history: HistoryOptions = {},
  hostOptions: HostOptions = {},
): Promise<RunResult & { readonly recordingText?: string }> {
  const { result, recording } = await runInHost(spec, host, hostOptions, history);
  if (recording !== null) Object.defineProperty(result, "recordingText", { value: recording, enumerable: true });
  return result;
}

/** Runs a validated scenario in a host, judges it, and writes the run directory when asked. */
export async function runScenario(scenario: ScenarioFile, options: RunOptions): Promise<{ summary: RunSummary; result: RunResult }> {
  const spec = toSimulationSpec(scenario, options);
  const checkers = checkersWith(options.checkers);
  const listed =
    scenario.checkers ??
    (scenario.groups === undefined ? DEFAULT_CHECKERS : [...GROUP_CHECKERS, ...(scenario.producers === undefined ? [] : DATA_CHECKERS)]);
  const checkerNames = [...listed, ...(options.checkers ?? []).map((c) => c.name).filter((name) => !listed.includes(name))];
  for (const name of checkerNames)
    if (!checkers.has(name))
      throw new ScenarioError(`${scenario.name}: checkers: unknown checker '${name}' (known: ${[...checkers.keys()].join(", ")})`);
  // Created, writable and cleared of an earlier run's files before the run, so nothing is lost after it.
  if (options.out !== undefined) prepareRunDir("--out", options.out);
  // A realtime run's recording streams into the run directory, so an interrupted run keeps it.
  const hostOptions: HostOptions =
    options.out !== undefined && options.host === "realtime"
      ? { ...options.hostOptions, recordingFile: join(options.out, "recording.jsonl") }
      : (options.hostOptions ?? {});
  // Judged as the history is recorded; its JSON lines stream to history.jsonl (when asked for), never held whole.
  const judgeRun = new RunJudge(spec, checkerNames, checkers);
  const historyFile = options.out === undefined ? null : new LineFile(join(options.out, "history.jsonl"));
  const onLine =
    historyFile === null
      ? options.onLine
      : options.onLine === undefined
        ? historyFile.write
        : (line: string) => {
            historyFile.write(line);
            options.onLine?.(line);
          };
  const recorded = options.judgedOnly !== true || options.host !== "inline" || onLine !== undefined;
  // Judged only, with a checker that reads the whole history afterwards: it gets the events themselves, kept as
  // recorded, up to a bound; a longer run is run again with its history recorded (a hunt's runs stay far below it).
  let kept: HistoryEvent[] | null = !recorded && !judgeRun.streamsAll ? [] : null;
  let overflowed = false;
  const keptLimit = options.keptEventsLimit ?? KEPT_EVENTS_LIMIT;
  const follower: HistoryFollower =
    kept === null
      ? judgeRun.pass
      : {
          accept: (event: HistoryEvent, index: number) => {
            if (kept !== null) {
              if (kept.length < keptLimit) kept.push(event);
              else {
                kept = null;
                overflowed = true;
              }
            }
            judgeRun.pass.accept(event, index);
          },
        };
  // Nothing reads a judged-only run's message sizes when its events go to kcsim's streaming checkers alone.
  const unsized = !recorded && kept === null && (options.checkers ?? []).length === 0;
  let result: RunResult & { readonly recordingText?: string };
  try {
    result = await runSpec(
      spec,
      options.host,
      {
        follower,
        ...(onLine !== undefined ? { onLine } : {}),
        ...(recorded ? {} : { recorded: false }),
      },
      unsized ? { ...hostOptions, unsizedMessages: true } : hostOptions,
    );
  } catch (error) {
    historyFile?.abandon();
    throw error;
  }
  const settingsError = judgeRun.settingsError;
  if (settingsError !== null) {
    historyFile?.abandon();
    throw settingsError;
  }
  historyFile?.close();
  if (overflowed) return runScenario(scenario, { ...options, judgedOnly: false });
  // An interrupted run is judged as the shorter run it was, not against the end it never reached (again, from its log).
  const judged =
    result.interruptedAtUs === undefined
      ? { spec, checks: judgeRun.checks(() => kept ?? result.log.toArray()), metrics: judgeRun.metrics(result) }
      : {
          spec: { ...spec, durationUs: result.interruptedAtUs },
          ...judgeFinished(result, { ...spec, durationUs: result.interruptedAtUs }, checkerNames, checkers),
        };
  const summary: RunSummary = {
    scenario: spec.scenario,
    seed: spec.seed,
    host: options.host,
    historyHash: result.historyHash,
    checks: judged.checks,
    metrics: judged.metrics,
    replay: options.replayCommand ?? "",
    ...(result.interruptedAtUs !== undefined ? { interruptedAtMs: result.interruptedAtUs / 1000 } : {}),
  };
  // history.jsonl is already in place (streamed as the run went).
  if (options.out !== undefined)
    writeRunDirectory(options.out, null, summary, spec, result, {
      rerunWith: await registryOf(options.hostOptions ?? {}),
      descriptions: new Map((options.checkers ?? []).map((c) => [c.name, c.description])),
    });
  return { summary, result };
}

/** The actor kinds a run used, as this thread can build them (the report re-runs the spec with them). */
async function registryOf(options: HostOptions): Promise<ActorRegistry> {
  if (options.registry !== undefined) return withDefaultActors(options.registry);
  return options.registryModule === undefined || options.registryModule === null ? DEFAULT_REGISTRY : loadRegistry(options.registryModule);
}
