import { availableParallelism } from "node:os";
import { join } from "node:path";
import { Piscina } from "piscina";
import { repoRoot } from "../cli/paths.js";
import { hunt } from "../hunt/hunt-runner.js";
import type { HuntRunResult, HuntTask } from "../hunt/hunt-task.js";
import { entryPoint } from "../kernel/built-module.js";
import { loadScenarioFile } from "../scenario/load-scenario.js";
import { benchCount } from "./bench-setting.js";
import { type BenchRow, type BenchSuite, round } from "./bench-suite.js";

/** Seeds 1..N of kafkajs-chaos (KCSIM_KAFKAJS_HUNT_SEEDS, default 100). */
const seedCount = () => benchCount("KCSIM_KAFKAJS_HUNT_SEEDS", 100);

const failedChecks = (result: HuntRunResult) =>
  result.failures
    .map((f) => f.check)
    .sort()
    .join(",");

/**
 * KafkaJS in virtual time, hunted: seeds 1..100 of kafkajs-chaos with drawn
 * fault plans (three KafkaJS 2.2.4 consumers, their real code) on all
 * cores, then every failing seed run again from the exact scenario its
 * failure directory would hold, on the same pool: a failure replays when
 * its history hash and its failing checkers are the same.
 */
export const kafkajsHuntBench: BenchSuite = {
  name: "kafkajs-hunt",
  description: "100 seeds of kafkajs-chaos (KafkaJS in virtual time) hunted, every failure replayed",
  async run(): Promise<BenchRow[]> {
    const lastSeed = seedCount();
    const base = loadScenarioFile(join(repoRoot(), "scenarios", "kafkajs-chaos.json"));
    const workers = availableParallelism();
    const outcome = await hunt({ base, asWritten: false, protocol: null, fromSeed: 1, toSeed: lastSeed, workers, stopOnFailure: false });
    const pool = new Piscina<HuntTask, HuntRunResult>({
      filename: entryPoint("hunt-worker"),
      minThreads: workers,
      maxThreads: workers,
      execArgv: [],
    });
    const started = performance.now();
    let replays: HuntRunResult[];
    try {
      replays = await Promise.all(
        outcome.failures.map((failure) => pool.run({ base: failure.scenario, seed: failure.seed, asWritten: true, protocol: null })),
      );
    } finally {
      await pool.destroy();
    }
    const replayMs = performance.now() - started;
    const same = replays.filter((replay, i) => {
      const failure = outcome.failures[i] as HuntRunResult;
      return replay.historyHash === failure.historyHash && failedChecks(replay) === failedChecks(failure);
    });
    const byCheck = new Map<string, number[]>();
    for (const failure of outcome.failures)
      for (const f of failure.failures) byCheck.set(f.check, [...(byCheck.get(f.check) ?? []), failure.seed]);
    // Each checker with how many seeds failed it, and which when they are few.
    const checks = [...byCheck]
      .map(([check, seeds]) => `${check} ${seeds.length}${seeds.length <= 5 ? ` (seeds ${seeds.join(", ")})` : ""}`)
      .join(", ");
    const what = `seeds 1..${lastSeed} of kafkajs-chaos, drawn faults, ${outcome.workers} workers`;
    return [
      {
        suite: "kafkajs-hunt",
        case: "failing seeds",
        value: outcome.failures.length,
        unit: `of ${outcome.runs} runs`,
        note: `${what}, ${(outcome.elapsedMs / 1000).toFixed(0)} s (${round(outcome.runs / (outcome.elapsedMs / 1000))} runs/s); checkers: ${checks || "none"}`,
      },
      {
        suite: "kafkajs-hunt",
        case: "failures that replay",
        value: same.length,
        unit: `of ${outcome.failures.length}`,
        note: `same history hash and failing checkers, from each failure's scenario and seed (${(replayMs / 1000).toFixed(0)} s)`,
      },
    ];
  },
};
