import { readdirSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_REGISTRY } from "../actors/registry.js";
import { repoRoot } from "../cli/paths.js";
import { InlineHost } from "../hosts/inline-host.js";
import { LockstepHost } from "../hosts/lockstep/lockstep-host.js";
import { loadScenarioFile, toSimulationSpec } from "../scenario/load-scenario.js";
import type { BenchRow, BenchSuite } from "./bench-suite.js";

/**
 * The determinism sweep: every scenario in scenarios/, seeds 1..N
 * (KCSIM_SWEEP_SEEDS, default 20; KCSIM_SWEEP_ONLY=<substring> to pick
 * scenarios), inline against lockstep (one worker per core), history hashes
 * compared. A row per scenario: how many seeds hashed equal.
 */
export const lockstepSweepBench: BenchSuite = {
  name: "lockstep-sweep",
  description: "inline vs lockstep history hashes, every scenario, seeds 1..KCSIM_SWEEP_SEEDS (default 20)",
  async run(): Promise<BenchRow[]> {
    const seeds = Number(process.env.KCSIM_SWEEP_SEEDS ?? 20);
    const only = process.env.KCSIM_SWEEP_ONLY ?? "";
    const dir = join(repoRoot(), "scenarios");
    const rows: BenchRow[] = [];
    for (const file of readdirSync(dir)
      .filter((f) => f.endsWith(".json") && f.includes(only))
      .sort()) {
      const scenario = loadScenarioFile(join(dir, file));
      let equal = 0;
      let inlineMs = 0;
      let lockstepMs = 0;
      const differing: number[] = [];
      for (let seed = 1; seed <= seeds; seed++) {
        const spec = toSimulationSpec(scenario, { seed });
        const inline = new InlineHost(spec, DEFAULT_REGISTRY, { history: { keepEvents: false } }).run();
        const lockstep = await new LockstepHost(spec, { actorsPerWorker: "auto", history: { keepEvents: false } }).run();
        inlineMs += inline.wallMs;
        lockstepMs += lockstep.wallMs;
        if (lockstep.historyHash === inline.historyHash) equal++;
        else differing.push(seed);
      }
      rows.push({
        suite: this.name,
        case: file,
        value: equal,
        unit: `of ${seeds} equal`,
        note: `${spec(scenario).actors} actors; per seed inline ${Math.round(inlineMs / seeds)} ms, lockstep ${Math.round(lockstepMs / seeds)} ms${differing.length > 0 ? `; DIFFER: seeds ${differing.join(", ")}` : ""}`,
      });
    }
    return rows;
  },
};

function spec(scenario: Parameters<typeof toSimulationSpec>[0]): { actors: number } {
  return { actors: toSimulationSpec(scenario).actors.length };
}
