import { availableParallelism } from "node:os";
import { join } from "node:path";
import { repoRoot } from "../cli/paths.js";
import { drawMutationCases, shippedScenarios } from "../fuzz/mutation-cases.js";
import { fuzzMutations, uncleanReason } from "../fuzz/mutation-fuzzer.js";
import type { BenchSuite } from "./bench-suite.js";

const CASES = 5_000;

/**
 * The mutation fuzzer with a longer budget than the suite's test (which
 * runs 500 cases with 1.5 s runs): 5,000 one-field mutations of the
 * shipped scenarios, each run for up to 10 s of virtual time.
 */
export const mutationFuzzBench: BenchSuite = {
  name: "mutation-fuzz",
  description: "5,000 one-field mutations of the shipped scenarios: every outcome a one-line refusal or a verdict",
  async run() {
    const started = performance.now();
    const cases = drawMutationCases(shippedScenarios(join(repoRoot(), "scenarios")), CASES, 18);
    const results = await fuzzMutations(cases, {
      workers: availableParallelism(),
      capDurationMs: 10_000,
      timeoutMs: 120_000,
      heapMb: 1024,
    });
    const unclean = results.filter((r) => uncleanReason(r) !== null);
    for (const r of unclean) process.stderr.write(`mutation-fuzz: ${r.label}: ${uncleanReason(r)?.split("\n")[0]}\n`);
    const rejected = results.filter((r) => r.outcome.kind === "rejected").length;
    const seconds = (performance.now() - started) / 1000;
    return [
      {
        suite: "mutation-fuzz",
        case: `${CASES} one-field mutations, runs capped at 10 s virtual`,
        value: unclean.length,
        unit: "unclean outcomes",
        note: `${rejected} refused in one line, ${CASES - rejected - unclean.length} judged; ${seconds.toFixed(0)} s`,
      },
    ];
  },
};
