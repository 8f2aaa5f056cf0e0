import { readdirSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_REGISTRY } from "../actors/registry.js";
import { repoRoot } from "../cli/paths.js";
import { InlineHost } from "../hosts/inline-host.js";
import { LockstepHost } from "../hosts/lockstep/lockstep-host.js";
import { loadScenarioFile, toSimulationSpec } from "../scenario/load-scenario.js";
import type { ScenarioFile } from "../scenario/scenario-schema.js";
import { benchCount, benchDeadline } from "./bench-setting.js";
import type { BenchRow, BenchSuite } from "./bench-suite.js";

interface Tally {
  readonly file: string;
  readonly scenario: ScenarioFile;
  readonly actors: number;
  readonly seeds: number[];
  readonly differing: number[];
  inlineMs: number;
  lockstepMs: number;
}

/**
 * The determinism sweep: every scenario in scenarios/, inline against
 * lockstep (one worker per core), history hashes compared. A row per
 * scenario: which seeds ran and how many hashed equal.
 *
 * - KCSIM_SWEEP_SEEDS: last seed (default 20); KCSIM_SWEEP_FIRST_SEED: first (default 1).
 * - KCSIM_SWEEP_ONLY=<substring>: only the scenarios whose file name contains it.
 * - KCSIM_SWEEP_UNTIL=<ISO time>: start no new seed round after it (the sweep
 *   takes ~9 minutes per seed over all scenarios on 2 loaded cores).
 *
 * Seeds run round by round (seed 1 of every scenario, then seed 2, ...), so a
 * sweep cut short by its deadline still covers every scenario evenly. Every
 * run prints a progress line on stderr.
 */
export const lockstepSweepBench: BenchSuite = {
  name: "lockstep-sweep",
  description: "inline vs lockstep history hashes, every scenario, seeds KCSIM_SWEEP_FIRST_SEED..KCSIM_SWEEP_SEEDS (default 1..20)",
  async run(): Promise<BenchRow[]> {
    // Seeds, which may be 0 (as `kcsim hunt --seeds` takes them).
    const last = benchCount("KCSIM_SWEEP_SEEDS", 20, { min: 0 });
    const first = benchCount("KCSIM_SWEEP_FIRST_SEED", 1, { min: 0 });
    const only = process.env.KCSIM_SWEEP_ONLY ?? "";
    const until = benchDeadline("KCSIM_SWEEP_UNTIL") ?? Number.POSITIVE_INFINITY;
    const dir = join(repoRoot(), "scenarios");
    const scenarios = readdirSync(dir)
      .filter((f) => f.endsWith(".json") && f.includes(only))
      .sort()
      .map((file) => ({ file, scenario: loadScenarioFile(join(dir, file)) }));
    // KafkaJS's real client code runs on the inline host only (the worker hosts refuse it): nothing to compare.
    const runsKafkaJS = (scenario: ScenarioFile) => (scenario.groups ?? []).some((g) => g.client === "kafkajs");
    const inlineOnly = scenarios.filter(({ scenario }) => runsKafkaJS(scenario)).map(({ file }) => file);
    const tallies: Tally[] = scenarios
      .filter(({ scenario }) => !runsKafkaJS(scenario))
      .map(({ file, scenario }) => ({
        file,
        scenario,
        actors: toSimulationSpec(scenario).actors.length,
        seeds: [],
        differing: [],
        inlineMs: 0,
        lockstepMs: 0,
      }));
    for (let seed = first; seed <= last && Date.now() < until; seed++) {
      for (const tally of tallies) {
        const spec = toSimulationSpec(tally.scenario, { seed });
        const inline = new InlineHost(spec, DEFAULT_REGISTRY, { history: { keepEvents: false } }).run();
        const lockstep = await new LockstepHost(spec, { actorsPerWorker: "auto", history: { keepEvents: false } }).run();
        tally.inlineMs += inline.wallMs;
        tally.lockstepMs += lockstep.wallMs;
        tally.seeds.push(seed);
        const equal = lockstep.historyHash === inline.historyHash;
        if (!equal) tally.differing.push(seed);
        process.stderr.write(
          `sweep ${new Date().toISOString()} ${tally.file} seed ${seed}: ${equal ? "equal" : `DIFFER inline ${inline.historyHash} lockstep ${lockstep.historyHash}`} (inline ${Math.round(inline.wallMs)} ms, lockstep ${Math.round(lockstep.wallMs)} ms)\n`,
        );
      }
    }
    const skipped: BenchRow[] = inlineOnly.map((file) => ({
      suite: this.name,
      case: file,
      value: 0,
      unit: "not compared",
      note: "KafkaJS clients run on the inline host only",
    }));
    const compared = tallies.map((t) => {
      const ran = t.seeds.length;
      const range = ran === 0 ? "none" : `${t.seeds[0]}..${t.seeds[ran - 1]}`;
      return {
        suite: this.name,
        case: t.file,
        value: ran - t.differing.length,
        unit: `of ${ran} equal`,
        note: `seeds ${range}; ${t.actors} actors; per seed inline ${Math.round(t.inlineMs / Math.max(1, ran))} ms, lockstep ${Math.round(t.lockstepMs / Math.max(1, ran))} ms${t.differing.length > 0 ? `; DIFFER: seeds ${t.differing.join(", ")}` : ""}`,
      };
    });
    return [...compared, ...skipped];
  },
};
