import { assignorBench } from "./assignor-bench.js";
import type { BenchRow, BenchSuite } from "./bench-suite.js";
import { inlineHostBench } from "./inline-host-bench.js";
import { routerBench } from "./router-bench.js";

/** Every benchmark suite; `pnpm bench [suite ...]` runs the named ones (default: all). */
const SUITES: readonly BenchSuite[] = [inlineHostBench, routerBench, assignorBench];

async function main(names: readonly string[]): Promise<number> {
  const unknown = names.filter((name) => !SUITES.some((suite) => suite.name === name));
  if (unknown.length > 0) {
    process.stderr.write(`bench: unknown suite '${unknown[0]}' (known: ${SUITES.map((s) => s.name).join(", ")})\n`);
    return 2;
  }
  const chosen = names.length === 0 ? SUITES : SUITES.filter((suite) => names.includes(suite.name));
  const rows: BenchRow[] = [];
  process.stdout.write("| suite | case | value | unit | note |\n|---|---|---:|---|---|\n");
  for (const suite of chosen) {
    for (const row of await suite.run()) {
      rows.push(row);
      process.stdout.write(`| ${row.suite} | ${row.case} | ${row.value.toLocaleString("en-US")} | ${row.unit} | ${row.note} |\n`);
    }
  }
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
