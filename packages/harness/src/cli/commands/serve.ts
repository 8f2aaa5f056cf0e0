import { existsSync } from "node:fs";
import { relative } from "node:path";
import { CHECKERS } from "../../checkers/registry.js";
import { loadScenarioFile } from "../../scenario/load-scenario.js";
import { KcsimServer } from "../../serve/kcsim-server.js";
import { formatSummary } from "../format-summary.js";
import { integerFlag, parseFlags } from "../parse-flags.js";
import { resolveUserPath, userCwd } from "../paths.js";
import { UsageError } from "../usage-error.js";

/** A run directory that does not exist yet: runs/serve-<scenario>, then -2, -3, ... */
function freshRunDirectory(scenario: string): string {
  const base = resolveUserPath(`runs/serve-${scenario}`);
  if (!existsSync(base)) return base;
  for (let n = 2; ; n++) if (!existsSync(`${base}-${n}`)) return `${base}-${n}`;
}

/** Resolves on the first SIGINT or SIGTERM. */
function interrupted(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (signal: NodeJS.Signals) => {
      process.off("SIGINT", on);
      process.off("SIGTERM", on);
      resolve(signal);
    };
    process.on("SIGINT", on);
    process.on("SIGTERM", on);
  });
}

/**
 * `kcsim serve [scenario] [--port 9092] [--time-scale 1] [--seed N] [--out DIR] [--json]`: the
 * scenario's cluster (default: three brokers, topics auto-created) on the realtime host, broker i
 * listening on 127.0.0.1:port+i, until SIGINT or SIGTERM; then the verdicts, the run directory, and
 * exit code 1 if a checker failed.
 */
export async function serveCommand(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseFlags("serve", argv, {
    port: { type: "string" },
    "time-scale": { type: "string" },
    seed: { type: "string" },
    out: { type: "string" },
    json: { type: "boolean" },
  });
  if (positionals.length > 1) throw new UsageError(`serve: expected at most one scenario file, got ${positionals.length}`);
  const port = integerFlag("serve", "port", values.port) ?? 9092;
  if (port > 65535) throw new UsageError(`serve: --port must be at most 65535, got '${values.port}'`);
  const seed = integerFlag("serve", "seed", values.seed);
  const timeScale = values["time-scale"] === undefined ? 1 : Number(values["time-scale"]);
  if (!(timeScale > 0 && Number.isFinite(timeScale)))
    throw new UsageError(`serve: --time-scale must be a positive number, got '${values["time-scale"]}'`);
  const scenario = positionals[0] === undefined ? undefined : loadScenarioFile(resolveUserPath(positionals[0]));
  const out = values.out === undefined ? freshRunDirectory(scenario?.name ?? "serve") : resolveUserPath(values.out);
  const server = await KcsimServer.start({
    port,
    timeScale,
    out,
    ...(scenario !== undefined ? { scenario } : {}),
    ...(seed !== undefined ? { seed } : {}),
  });
  const shown = relative(userCwd(), out) || out;
  if (!values.json) {
    const nodes = server.ports.map((p, node) => `127.0.0.1:${p} (node ${node})`).join(", ");
    process.stdout.write(
      `kcsim serve ${scenario?.name ?? "serve"}  seed ${seed ?? scenario?.seed ?? 1}  time scale ${timeScale}\n` +
        `  brokers: ${nodes}\n` +
        `  bootstrap.servers=${server.bootstrapServers}\n` +
        "  Ctrl-C (SIGINT) or SIGTERM ends the run, judges it and writes its run directory\n",
    );
  }
  const signal = await interrupted();
  if (!values.json) process.stdout.write(`\n${signal}: stopping\n`);
  const result = await server.stop();
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ ...result.summary, clients: result.clients, out: shown })}\n`);
  } else {
    const descriptions = new Map([...CHECKERS].map(([name, checker]) => [name, checker.description]));
    process.stdout.write(formatSummary(result.summary, descriptions).replace(/^kcsim run /, "kcsim serve "));
    process.stdout.write(`  clients: ${result.clients.length === 0 ? "none connected" : result.clients.join(", ")}\n`);
    process.stdout.write(`  run directory: ${shown} (report.html, history.jsonl, recording.jsonl)\n`);
  }
  return result.ok ? 0 : 1;
}
