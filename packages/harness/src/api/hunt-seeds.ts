import { writeFailureDir } from "../hunt/failure-dir.js";
import { hunt } from "../hunt/hunt-runner.js";
import type { HuntFailure } from "../hunt/hunt-task.js";
import type { Swarm } from "../hunt/swarm-draw.js";
import type { GroupProtocol } from "../scenario/expand-groups.js";
import type { ScenarioFile } from "../scenario/scenario-schema.js";

export interface HuntSeedsOptions {
  /** The seeds, both ends included. */
  readonly seeds: readonly [from: number, to: number];
  /** Run the scenario's own faults with each seed (default: draw a fault schedule from each seed). */
  readonly asWritten?: boolean;
  readonly protocol?: GroupProtocol;
  /** Planted bugs (PLANTED_BUGS) to enable in every run. */
  readonly bugs?: readonly string[];
  /** Worker threads (default: one per core). */
  readonly workers?: number;
  /** Run every seed instead of stopping at the first failure. */
  readonly keepGoing?: boolean;
  /** Write each failure's directory (scenario.json, hunt.json) under this one, as `kcsim hunt --out` does. */
  readonly out?: string;
}

/** A failing seed: the exact scenario it ran (replay or shrink it), what failed, and its directory when `out` was given. */
export interface HuntedFailure {
  readonly seed: number;
  readonly failures: readonly HuntFailure[];
  readonly scenario: ScenarioFile;
  readonly dir: string | null;
}

/**
 * Runs many seeds of a scenario (or a swarm: the whole system drawn from
 * each seed: `"group"` as `kcsim hunt --swarm` draws it, which `null` means
 * too, `"data"` as `--swarm-data` and `"migration"` as `--swarm-migration`
 * do) on all cores, as `kcsim hunt` does, and returns the failing seeds in
 * order.
 */
export async function huntSeeds(
  scenario: ScenarioFile | Swarm | null,
  options: HuntSeedsOptions,
): Promise<{ readonly runs: number; readonly failures: readonly HuntedFailure[] }> {
  const [fromSeed, toSeed] = options.seeds;
  const outcome = await hunt({
    base: scenario ?? "group",
    asWritten: options.asWritten ?? false,
    protocol: options.protocol ?? null,
    fromSeed,
    toSeed,
    stopOnFailure: options.keepGoing !== true,
    ...(options.bugs !== undefined ? { bugs: options.bugs } : {}),
    ...(options.workers !== undefined ? { workers: options.workers } : {}),
  });
  return {
    runs: outcome.runs,
    failures: outcome.failures.map((result) => ({
      seed: result.seed,
      failures: result.failures,
      scenario: result.scenario,
      dir: options.out === undefined ? null : writeFailureDir(options.out, result),
    })),
  };
}
