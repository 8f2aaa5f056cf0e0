import type { CheckResult } from "../checkers/checker.js";
import { loadScenarioFile } from "../scenario/load-scenario.js";
import type { ScenarioFile } from "../scenario/scenario-schema.js";
import { KcsimServer, type ProcessFault } from "./kcsim-server.js";

/** How to start a cluster for a test suite. */
export interface StartClusterOptions {
  /** A scenario file's path or a scenario object; default: three brokers with auto-created topics. */
  readonly scenario?: string | ScenarioFile;
  /** The first broker's port (broker i on port + i); default 0: free ports, so suites can run side by side. */
  readonly port?: number;
  /** Real seconds per virtual second (default 1). */
  readonly timeScale?: number;
  readonly seed?: number;
  /** Where stop() writes the run directory (history, report.html, recording); default: none. */
  readonly out?: string;
}

/** The verdicts stop() returns: each checker's result over everything the clients did. */
export interface ClusterVerdicts {
  /** Whether every checker passed. */
  readonly ok: boolean;
  readonly checks: Readonly<Record<string, CheckResult>>;
  /** One line per failed checker: its name and first violation. */
  readonly failures: readonly string[];
  readonly historyHash: string;
  /** The run directory written, or null. */
  readonly out: string | null;
  /** The real clients (client ids) that connected, as actor ids (`client:<client.id>`). */
  readonly clients: readonly string[];
}

export interface RunningCluster {
  /** `host:port,host:port,...`: what a client's bootstrap.servers (KafkaJS's `brokers`, joined) takes. */
  readonly bootstrapServers: string;
  /** The same, one entry per broker (KafkaJS's `brokers` option). */
  readonly brokers: readonly string[];
  /**
   * Applies a process fault ("crash", "restart", "pause", "resume") to one of the scenario's simulated actors now:
   * a coordinator's crash once the test's consumers have settled, for instance, rather than at a scenario time that a
   * loaded machine may reach in the middle of a rebalance. An unknown actor, or a stopped cluster, is a one-line error.
   */
  nemesis(actor: string, action: ProcessFault): Promise<void>;
  /** Ends the run and judges it. */
  stop(): Promise<ClusterVerdicts>;
}

/**
 * A simulated Kafka cluster for a test suite: the scenario's brokers,
 * coordinators, simulated members and faults on the real clock, listening
 * on 127.0.0.1, so the code under test connects with its own Kafka client.
 * `stop()` ends the run and returns the checkers' verdicts on what every
 * client did (membership, commits, consumption, no loss).
 */
export async function startCluster(scenarioOrOptions: string | ScenarioFile | StartClusterOptions = {}): Promise<RunningCluster> {
  const options: StartClusterOptions =
    typeof scenarioOrOptions === "string" || "name" in scenarioOrOptions ? { scenario: scenarioOrOptions } : scenarioOrOptions;
  const scenario = typeof options.scenario === "string" ? loadScenarioFile(options.scenario) : options.scenario;
  const server = await KcsimServer.start({
    port: options.port ?? 0,
    ...(scenario !== undefined ? { scenario } : {}),
    ...(options.timeScale !== undefined ? { timeScale: options.timeScale } : {}),
    ...(options.seed !== undefined ? { seed: options.seed } : {}),
    ...(options.out !== undefined ? { out: options.out } : {}),
  });
  return {
    bootstrapServers: server.bootstrapServers,
    brokers: server.bootstrapServers.split(","),
    nemesis: (actor, action) => server.nemesis(actor, action),
    async stop() {
      const result = await server.stop();
      const failures = Object.entries(result.summary.checks)
        .filter(([, check]) => !check.ok)
        .map(([name, check]) => `${name}: ${check.violations[0]?.message ?? "failed"}`);
      return {
        ok: result.ok,
        checks: result.summary.checks,
        failures,
        historyHash: result.summary.historyHash,
        out: result.out,
        clients: result.clients,
      };
    },
  };
}
