import { relative } from "node:path";
import { CHECKERS } from "../../checkers/registry.js";
import { runScenario } from "../../run/run-scenario.js";
import { loadScenarioFile } from "../../scenario/load-scenario.js";
import { formatSummary } from "../format-summary.js";
import { choiceFlag, integerFlag, parseFlags } from "../parse-flags.js";
import { DEFAULT_SCENARIO, repoRoot, resolveUserPath, userCwd } from "../paths.js";
import { UsageError } from "../usage-error.js";

/** `kcsim run [scenario] [--seed N] [--host inline|lockstep] [--out DIR] [--json] [--no-codec]` */
export async function runCommand(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseFlags("run", argv, {
    seed: { type: "string" },
    host: { type: "string" },
    out: { type: "string" },
    json: { type: "boolean" },
    "no-codec": { type: "boolean" },
  });
  if (positionals.length > 1) throw new UsageError(`run: expected at most one scenario file, got ${positionals.length}`);
  const path = positionals[0] === undefined ? resolveUserPath(`${repoRoot()}/${DEFAULT_SCENARIO}`) : resolveUserPath(positionals[0]);
  const seed = integerFlag("run", "seed", values.seed);
  const host = choiceFlag("run", "host", values.host, ["inline", "lockstep"] as const, "inline");
  const scenario = loadScenarioFile(path);
  const shownPath = relative(userCwd(), path) || path;
  const replayCommand = `pnpm kcsim run ${shownPath} --seed ${seed ?? scenario.seed ?? 1} --host ${host}`;
  const { summary } = await runScenario(scenario, {
    host,
    replayCommand,
    ...(seed !== undefined ? { seed } : {}),
    ...(values.out !== undefined ? { out: resolveUserPath(values.out) } : {}),
    ...(values["no-codec"] ? { useCodec: false } : {}),
  });
  if (values.json) {
    process.stdout.write(`${JSON.stringify(summary)}\n`);
  } else {
    const descriptions = new Map([...CHECKERS].map(([name, checker]) => [name, checker.description]));
    process.stdout.write(formatSummary(summary, descriptions));
  }
  return Object.values(summary.checks).every((check) => check.ok) ? 0 : 1;
}
