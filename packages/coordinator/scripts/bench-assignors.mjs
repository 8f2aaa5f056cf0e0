// Warm median times of the server assignors on Kafka's benchmark shapes.
// Usage: npx tsc -b && node packages/coordinator/scripts/bench-assignors.mjs [name filter]
// Each case runs in this one process; on a loaded machine, run with a filter per case.
import { assignorBenchmarkCases, measureAssignorBenchmarkCase } from "../dist/index.js";

const filter = process.argv[2] ?? "";
for (const benchmarkCase of assignorBenchmarkCases()) {
  if (!benchmarkCase.name.includes(filter)) continue;
  const large = benchmarkCase.shape.memberCount >= 10_000;
  const heavy = large && benchmarkCase.shape.subscriptionType === "heterogeneous";
  const timing = measureAssignorBenchmarkCase(benchmarkCase, heavy ? 10 : large ? 50 : 300, heavy ? 21 : 51);
  const kafka = benchmarkCase.kafkaMs === null ? "n/a" : `${benchmarkCase.kafkaMs} ms`;
  console.log(
    `${benchmarkCase.name.padEnd(78)} median ${timing.medianMs.toFixed(3).padStart(8)} ms  min ${timing.minMs.toFixed(3).padStart(8)} ms  (Kafka ${kafka})`,
  );
}
