import { existsSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { CHECKERS } from "../../checkers/registry.js";
import { HOST_NAMES } from "../../hosts/run-host.js";
import { LOG_LEVELS } from "../../hosts/worker/actor-logs.js";
import { loadRegistry } from "../../hosts/worker/load-registry.js";
import { parseActorsPerWorker } from "../../hosts/worker/shard-plan.js";
import { REPORT_FILE } from "../../report/write-report.js";
import { runJunitXml } from "../../run/junit.js";
import { type RunSummary, runScenario } from "../../run/run-scenario.js";
import { loadScenarioFile } from "../../scenario/load-scenario.js";
import { consumerConfigFlag, withConsumerConfig } from "../consumer-config-flag.js";
import { signalExitCode, verdictExitCode } from "../exit-codes.js";
import { formatSummary } from "../format-summary.js";
import { choiceFlag, integerFlag, parseFlags } from "../parse-flags.js";
import { DEFAULT_SCENARIO, repoRoot, resolveUserPath, shownPath, userCwd } from "../paths.js";
import { UsageError } from "../usage-error.js";

/**
 * `kcsim run [scenario] [--seed N] [--host inline|lockstep|realtime] [--actors-per-worker N|auto]
 * [--time-scale X] [--log-level L] [--protocol P] [--consumer-config NAME=VALUE]... [--actors MODULE] [--out DIR] [--junit FILE] [--json] [--no-codec]`
 */
export async function runCommand(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseFlags("run", argv, {
    seed: { type: "string" },
    host: { type: "string" },
    out: { type: "string" },
    json: { type: "boolean" },
    "no-codec": { type: "boolean" },
    "actors-per-worker": { type: "string" },
    "time-scale": { type: "string" },
    "log-level": { type: "string" },
    protocol: { type: "string" },
    "consumer-config": { type: "string", multiple: true },
    actors: { type: "string" },
    junit: { type: "string" },
  });
  if (positionals.length > 1) throw new UsageError(`run: expected at most one scenario file, got ${positionals.length}`);
  const path = positionals[0] === undefined ? resolveUserPath(`${repoRoot()}/${DEFAULT_SCENARIO}`) : resolveUserPath(positionals[0]);
  const seed = integerFlag("run", "seed", values.seed);
  const host = choiceFlag("run", "host", values.host, HOST_NAMES, "inline");
  const protocol =
    values.protocol === undefined
      ? undefined
      : choiceFlag("run", "protocol", values.protocol, ["eager", "cooperative", "consumer"] as const, "consumer");
  const logLevel = choiceFlag("run", "log-level", values["log-level"], LOG_LEVELS, "silent");
  const actorsPerWorker = values["actors-per-worker"] === undefined ? undefined : parseActorsPerWorker(values["actors-per-worker"]);
  if (actorsPerWorker === null)
    throw new UsageError(`run: --actors-per-worker must be a positive integer or auto, got '${values["actors-per-worker"]}'`);
  const timeScale = values["time-scale"] === undefined ? undefined : Number(values["time-scale"]);
  if (timeScale !== undefined && !(timeScale > 0 && Number.isFinite(timeScale)))
    throw new UsageError(`run: --time-scale must be a positive number, got '${values["time-scale"]}'`);
  if (host === "inline" && actorsPerWorker !== undefined)
    throw new UsageError("run: --actors-per-worker applies to the worker hosts (--host lockstep or realtime), not inline");
  if (host !== "realtime" && timeScale !== undefined) throw new UsageError("run: --time-scale applies to --host realtime only");
  const out = values.out === undefined ? undefined : resolveUserPath(values.out);
  const actorsModule = values.actors === undefined ? undefined : resolveUserPath(values.actors);
  if (actorsModule !== undefined && !existsSync(actorsModule)) throw new UsageError(`run: --actors ${values.actors}: no such file`);
  const consumerConfig = consumerConfigFlag("run", values["consumer-config"]);
  const scenario = withConsumerConfig(loadScenarioFile(path, await loadRegistry(actorsModule ?? null)), consumerConfig);
  const consumerConfigArgs =
    (values["consumer-config"] ?? []).map((flag) => ` --consumer-config ${flag}`).join("") +
    (values.actors === undefined ? "" : ` --actors ${values.actors}`);
  const scenarioShown = relative(userCwd(), path) || path;
  // A realtime run is not a function of its seed: it replays from the recording in its run directory.
  const replayCommand =
    host !== "realtime"
      ? `pnpm kcsim run ${scenarioShown} --seed ${seed ?? scenario.seed ?? 1} --host ${host}${protocol === undefined ? "" : ` --protocol ${protocol}`}${consumerConfigArgs}`
      : out !== undefined
        ? `pnpm kcsim replay ${relative(userCwd(), out) || out}`
        : "(a realtime run replays from its recording: run it with --out DIR, then kcsim replay DIR)";
  // A realtime run is waited on, not computed: Ctrl-C (or SIGTERM) ends it cleanly, keeping its recording and summary.
  // The virtual hosts end at once on a signal; their files are written whole or not at all.
  const interruption = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (interruption.signal.aborted) process.exit(signalExitCode(signal)); // a second Ctrl-C does not wait
    interruption.abort(signal);
  };
  if (host === "realtime") {
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
  }
  let summary: RunSummary;
  try {
    ({ summary } = await runScenario(scenario, {
      host,
      replayCommand,
      hostOptions: {
        logs: { level: logLevel, dir: out === undefined ? null : join(out, "logs") },
        ...(actorsPerWorker !== undefined ? { actorsPerWorker } : {}),
        ...(timeScale !== undefined ? { timeScale } : {}),
        ...(actorsModule !== undefined ? { registryModule: actorsModule } : {}),
        ...(host === "realtime" ? { signal: interruption.signal } : {}),
      },
      ...(seed !== undefined ? { seed } : {}),
      ...(protocol !== undefined ? { protocol } : {}),
      ...(out !== undefined ? { out } : {}),
      ...(values["no-codec"] ? { useCodec: false } : {}),
    }));
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
  const descriptions = new Map([...CHECKERS].map(([name, checker]) => [name, checker.description]));
  if (values.junit !== undefined) writeFileSync(resolveUserPath(values.junit), runJunitXml(summary, descriptions));
  if (values.json) {
    process.stdout.write(`${JSON.stringify(summary)}\n`);
  } else {
    const written = out === undefined ? null : { dir: shownPath(out), report: shownPath(join(out, REPORT_FILE)) };
    process.stdout.write(formatSummary(summary, descriptions, written));
  }
  if (interruption.signal.aborted) {
    const kept = out === undefined ? "" : `; the recording and summary are in ${relative(userCwd(), out) || out}`;
    process.stderr.write(
      `kcsim: run interrupted by ${String(interruption.signal.reason)} at ${summary.interruptedAtMs ?? 0} ms of virtual time${kept}\n`,
    );
    return signalExitCode(interruption.signal.reason as NodeJS.Signals);
  }
  return verdictExitCode(summary.checks);
}
