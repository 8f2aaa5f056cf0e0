import { assignorBenchmarkCases, measureAssignorBenchmarkCase } from "@kcsim/coordinator";
import type { BenchRow, BenchSuite } from "./bench-suite.js";
import { round } from "./bench-suite.js";

/**
 * The KIP-848 server assignors on the inputs of Kafka's
 * ServerSideAssignorBenchmark (100 topics; 1,000 members x 10,000 partitions
 * and 10,000 x 100,000), warm medians, against Kafka's own Java assignors
 * measured on this machine kind (trunk, warm JIT).
 */
export const assignorBench: BenchSuite = {
  name: "assignors",
  description: "server-side assignors per call (warm median) vs Kafka's Java assignors",
  async run(): Promise<BenchRow[]> {
    const rows: BenchRow[] = [];
    for (const benchmarkCase of assignorBenchmarkCases()) {
      const large = benchmarkCase.shape.memberCount >= 10_000;
      const heavy = large && benchmarkCase.shape.subscriptionType === "heterogeneous";
      const timing = measureAssignorBenchmarkCase(benchmarkCase, heavy ? 10 : large ? 50 : 300, heavy ? 21 : 51);
      const kafka = benchmarkCase.kafkaMs;
      rows.push({
        suite: this.name,
        case: benchmarkCase.name,
        value: round(timing.medianMs, 3),
        unit: "ms",
        note:
          kafka === null
            ? "Kafka: not measured"
            : kafka >= timing.medianMs
              ? `Kafka ${kafka} ms: ${round(kafka / timing.medianMs, 2)}x faster`
              : `Kafka ${kafka} ms: ${round(timing.medianMs / kafka, 2)}x slower`,
      });
    }
    return rows;
  },
};
