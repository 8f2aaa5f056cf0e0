import "../run/tune-v8-many-runs.js";
import { assignorBench } from "./assignor-bench.js";
import { BenchSettingError } from "./bench-setting.js";
import type { BenchRow, BenchSuite } from "./bench-suite.js";
import { bigRunBench } from "./big-run-bench.js";
import { compressionBench } from "./compression-bench.js";
import { e2eBench } from "./e2e-bench.js";
import { fetchBytesBench } from "./fetch-bytes-bench.js";
import { groupJoinBench } from "./group-join-bench.js";
import { huntBench } from "./hunt-bench.js";
import { inlineHostBench } from "./inline-host-bench.js";
import { kafkajsHuntBench } from "./kafkajs-hunt-bench.js";
import { lockstepBench } from "./lockstep-bench.js";
import { lockstepSweepBench } from "./lockstep-sweep-bench.js";
import { mutationFuzzBench } from "./mutation-fuzz-bench.js";
import { queueHuntBench } from "./queue-hunt-bench.js";
import { realtimeCpuBench } from "./realtime-cpu-bench.js";
import { routerBench } from "./router-bench.js";
import { routerThroughputBench } from "./router-throughput-bench.js";
import { serveBench } from "./serve-bench.js";
import { startupBench } from "./startup-bench.js";
import { workerCostBench } from "./worker-cost-bench.js";

/** Every benchmark suite; `pnpm bench [suite ...]` runs the named ones (default: all but the on-demand ones). */
const SUITES: readonly BenchSuite[] = [
  compressionBench,
  startupBench,
  inlineHostBench,
  routerBench,
  assignorBench,
  routerThroughputBench,
  lockstepBench,
  realtimeCpuBench,
  workerCostBench,
  lockstepSweepBench,
  groupJoinBench,
  fetchBytesBench,
  e2eBench,
  huntBench,
  mutationFuzzBench,
  queueHuntBench,
  serveBench,
  kafkajsHuntBench,
  bigRunBench,
];

/**
 * Suites that take too long for the default run (the determinism sweep: an
 * hour or more; group-join: 1,000 members x 10,000 partitions, over a
 * minute; mutation-fuzz: 5,000 mutated scenarios, ten minutes and more;
 * kafkajs-hunt: 100 seeds of KafkaJS in virtual time and their replays,
 * about a quarter of an hour); run them by name.
 */
const ON_DEMAND: ReadonlySet<BenchSuite> = new Set([lockstepSweepBench, groupJoinBench, mutationFuzzBench, kafkajsHuntBench, bigRunBench]);

async function main(names: readonly string[]): Promise<number> {
  const unknown = names.filter((name) => !SUITES.some((suite) => suite.name === name));
  if (unknown.length > 0) {
    process.stderr.write(`bench: unknown suite '${unknown[0]}' (known: ${SUITES.map((s) => s.name).join(", ")})\n`);
    return 2;
  }
  const chosen =
    names.length === 0 ? SUITES.filter((suite) => !ON_DEMAND.has(suite)) : SUITES.filter((suite) => names.includes(suite.name));
  const rows: BenchRow[] = [];
  process.stdout.write("| suite | case | value | unit | note |\n|---|---|---:|---|---|\n");
  for (const suite of chosen) {
    let suiteRows: BenchRow[];
    try {
      suiteRows = await suite.run();
    } catch (error) {
      // A bad setting (KCSIM_HUNT_BENCH_SEEDS=abc, ...): one line; the rows already printed stand.
      if (!(error instanceof BenchSettingError)) throw error;
      process.stderr.write(`bench: ${error.message}\n`);
      return 2;
    }
    for (const row of suiteRows) {
      rows.push(row);
      process.stdout.write(`| ${row.suite} | ${row.case} | ${row.value.toLocaleString("en-US")} | ${row.unit} | ${row.note} |\n`);
    }
  }
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
