import { join } from "node:path";
import type { ConfigValue } from "@kcsim/protocol";
import { DEFAULT_REGISTRY } from "../actors/registry.js";
import type { Checker, Violation } from "../checkers/checker.js";
import type { EventLog } from "../history/event-log.js";
import type { HistoryEvent } from "../history/history-event.js";
import type { HostName } from "../hosts/run-host.js";
import type { LogLevel } from "../hosts/worker/actor-logs.js";
import { loadRegistry, withDefaultActors } from "../hosts/worker/load-registry.js";
import type { ActorsPerWorker } from "../hosts/worker/shard-plan.js";
import type { ActorRegistry } from "../kernel/actor-registry.js";
import { REPORT_FILE } from "../report/write-report.js";
import { type RunSummary, runScenario } from "../run/run-scenario.js";
import type { GroupProtocol } from "../scenario/expand-groups.js";
import { validateScenario } from "../scenario/load-scenario.js";
import type { ScenarioFile } from "../scenario/scenario-schema.js";

/** How to run a scenario (every field optional: one seed, inline, kcsim's checkers and actors). */
export interface SimulateOptions {
  /** The run seed (default: the scenario's, else 1). */
  readonly seed?: number;
  /** inline (default: one thread, virtual time), lockstep (worker threads, the same history) or realtime (the real clock). */
  readonly host?: HostName;
  /** Write the run directory here: history.jsonl, summary.json, spec.json and report.html. */
  readonly out?: string;
  /** Run every group under this protocol. */
  readonly protocol?: GroupProtocol;
  /** Consumer settings for every member (Kafka's names), over the scenario's. */
  readonly consumerConfig?: Readonly<Record<string, ConfigValue>>;
  /** Checkers of your own: they judge the run next to the scenario's. */
  readonly checkers?: readonly Checker[];
  /** Actor kinds of your own, defined in this process: the inline host only. */
  readonly actors?: ActorRegistry;
  /** A built module (path) exporting `registry`, a Map of your actor kinds: every host (workers import it). */
  readonly actorsModule?: string;
  /** Worker hosts: actors per worker thread (default 1), or "auto". */
  readonly actorsPerWorker?: ActorsPerWorker;
  /** Realtime: real seconds per virtual second (default 1). */
  readonly timeScale?: number;
  /** pino logs of the actors, one file per actor under `<out>/logs` (default silent). */
  readonly logLevel?: LogLevel;
}

/** What a run found. */
export interface Simulation {
  /** Every checker passed. */
  readonly ok: boolean;
  /** The checkers that failed, each with its first violations (time, message, history events). */
  readonly failures: readonly { readonly check: string; readonly violations: readonly Violation[] }[];
  /** Seed, host, history hash, every verdict and the metrics: what `kcsim run --json` prints. */
  readonly summary: RunSummary;
  /** The history (one JSON-able event per routing decision, observation and process event), as an array built on first use. */
  readonly events: readonly HistoryEvent[];
  /** The same events read back one at a time from the run's compact binary history (a long run's array is large). */
  readonly log: EventLog;
  /** report.html, when `out` was given. */
  readonly report: string | null;
}

/** A consumer setting map as a scenario's group carries it. */
function withConsumerConfig(scenario: ScenarioFile, config: Readonly<Record<string, ConfigValue>> | undefined): ScenarioFile {
  if (config === undefined || Object.keys(config).length === 0) return scenario;
  return {
    ...scenario,
    groups: (scenario.groups ?? []).map((group) => ({ ...group, consumer: { ...(group.consumer ?? {}), ...config } })),
  };
}

/**
 * Runs a scenario (a file loaded with loadScenarioFile, or one built with
 * defineScenario) and judges it: kcsim's checkers for the scenario, plus
 * any of your own. Bad input throws a ScenarioError with one line saying
 * what and where.
 */
export async function simulate(scenario: ScenarioFile, options: SimulateOptions = {}): Promise<Simulation> {
  const registry =
    options.actors !== undefined
      ? withDefaultActors(options.actors)
      : options.actorsModule !== undefined
        ? await loadRegistry(options.actorsModule)
        : DEFAULT_REGISTRY;
  const valid = validateScenario(withConsumerConfig(scenario, options.consumerConfig), scenario.name, registry);
  const { summary, result } = await runScenario(valid, {
    host: options.host ?? "inline",
    ...(options.seed !== undefined ? { seed: options.seed } : {}),
    ...(options.protocol !== undefined ? { protocol: options.protocol } : {}),
    ...(options.out !== undefined ? { out: options.out } : {}),
    ...(options.checkers !== undefined ? { checkers: options.checkers } : {}),
    hostOptions: {
      ...(options.actors !== undefined ? { registry: options.actors } : {}),
      ...(options.actorsModule !== undefined ? { registryModule: options.actorsModule } : {}),
      ...(options.actorsPerWorker !== undefined ? { actorsPerWorker: options.actorsPerWorker } : {}),
      ...(options.timeScale !== undefined ? { timeScale: options.timeScale } : {}),
      logs: { level: options.logLevel ?? "silent", dir: options.out === undefined ? null : join(options.out, "logs") },
    },
  });
  const failures = Object.entries(summary.checks)
    .filter(([, check]) => !check.ok)
    .map(([check, result]) => ({ check, violations: result.violations }));
  return {
    ok: failures.length === 0,
    failures,
    summary,
    get events() {
      return result.events;
    },
    log: result.log,
    report: options.out === undefined ? null : join(options.out, REPORT_FILE),
  };
}
