import { relative } from "node:path";
import { runScenario } from "../../run/run-scenario.js";
import type { GroupProtocol } from "../../scenario/expand-groups.js";
import { loadScenarioFile } from "../../scenario/load-scenario.js";
import { integerFlag, parseFlags } from "../parse-flags.js";
import { resolveUserPath, userCwd } from "../paths.js";
import { UsageError } from "../usage-error.js";

/** One protocol's line of the comparison (the JSON field names are part of the CLI's contract). */
export interface CompareRow {
  readonly protocol: GroupProtocol;
  readonly rebalances: number;
  readonly rounds: number;
  readonly timeToStableMs: number;
  readonly peakUnowned: number;
  readonly unownedPartitionSeconds: number;
  readonly pausedMembers: number;
}

const PROTOCOLS: readonly GroupProtocol[] = ["eager", "cooperative", "consumer"];

/** Runs the scenario once per protocol (same seed) and reads its first group's metrics. */
export async function compareProtocols(
  path: string,
  seed: number | undefined,
): Promise<{ scenario: string; seed: number; rows: CompareRow[] }> {
  const scenario = loadScenarioFile(path);
  if ((scenario.groups ?? []).length === 0) throw new UsageError(`compare: ${path} has no consumer group to compare`);
  const rows: CompareRow[] = [];
  let usedSeed = seed ?? scenario.seed ?? 1;
  for (const protocol of PROTOCOLS) {
    const { summary } = await runScenario(scenario, { host: "inline", protocol, ...(seed !== undefined ? { seed } : {}) });
    usedSeed = summary.seed;
    const group = summary.metrics.groups[0];
    if (group === undefined) throw new UsageError(`compare: ${path}: no group metrics under ${protocol}`);
    rows.push({
      protocol,
      rebalances: group.rebalances,
      rounds: group.rounds,
      timeToStableMs: group.maxTimeToStableMs,
      peakUnowned: group.peakUnowned,
      unownedPartitionSeconds: group.unownedPartitionSeconds,
      pausedMembers: group.pausedMembers,
    });
  }
  return { scenario: scenario.name, seed: usedSeed, rows };
}

/** One line of the table: each cell padded to its column, the last one not (no trailing spaces). */
const tableLine = (cells: readonly string[], widths: readonly number[]) =>
  cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] as number))).join(" ");

/** `kcsim compare <scenario> [--seed N] [--json]`: eager vs cooperative vs the consumer protocol. */
export async function compareCommand(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseFlags("compare", argv, { seed: { type: "string" }, json: { type: "boolean" } });
  if (positionals.length !== 1) throw new UsageError(`compare: expected exactly one scenario file, got ${positionals.length}`);
  const path = resolveUserPath(positionals[0] as string);
  const result = await compareProtocols(path, integerFlag("compare", "seed", values.seed));
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ rows: result.rows })}\n`);
    return 0;
  }
  const header = ["protocol", "rebalances", "rounds", "time to stable ms", "peak unowned", "unowned partition-s", "paused members"];
  const widths = [12, 11, 7, 18, 13, 20, 14];
  const lines = [`kcsim compare ${relative(userCwd(), path) || path}  seed ${result.seed}`, tableLine(header, widths)];
  for (const row of result.rows) {
    const cells = [
      row.protocol,
      row.rebalances,
      row.rounds,
      row.timeToStableMs,
      row.peakUnowned,
      row.unownedPartitionSeconds,
      row.pausedMembers,
    ];
    lines.push(tableLine(cells.map(String), widths));
  }
  process.stdout.write(`${lines.join("\n")}\n`);
  return 0;
}
