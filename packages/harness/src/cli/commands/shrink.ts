import { existsSync } from "node:fs";
import { join, relative } from "node:path";
import { CHECKERS } from "../../checkers/registry.js";
import { HUNT_FILE, SCENARIO_FILE } from "../../hunt/failure-dir.js";
import { readHuntRecord } from "../../hunt/replay-failure.js";
import { scenarioStory } from "../../hunt/scenario-story.js";
import { type ScenarioSize, shrink } from "../../hunt/shrink.js";
import { writeAtomic } from "../../output/atomic-write.js";
import { loadScenarioFile } from "../../scenario/load-scenario.js";
import { integerFlag, parseFlags } from "../parse-flags.js";
import { resolveUserPath, userCwd } from "../paths.js";
import { UsageError } from "../usage-error.js";

const describe = (s: ScenarioSize) =>
  `${s.choices} fault choices, ${s.faults} faults, ${s.partitions} partitions, ${s.nemesisSteps} nemesis steps, ${s.members} members, ${s.topicPartitions} topic partitions, ${s.durationMs / 1000} s`;

/**
 * `kcsim shrink <failure-dir> [--check NAME] [--max-trials N] [--json]`:
 * reduces a hunt's failing run to a smaller scenario that still fails the
 * same checker with the same seed, and writes it next to the original.
 */
export async function shrinkCommand(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseFlags("shrink", argv, {
    check: { type: "string" },
    "max-trials": { type: "string" },
    json: { type: "boolean" },
  });
  if (positionals.length !== 1) throw new UsageError("shrink: expected one failure directory (written by kcsim hunt)");
  const dir = resolveUserPath(positionals[0] as string);
  if (!existsSync(join(dir, SCENARIO_FILE))) throw new UsageError(`shrink: ${dir} has no ${SCENARIO_FILE}`);
  if (!existsSync(join(dir, HUNT_FILE)))
    throw new UsageError(`shrink: ${dir} has no ${HUNT_FILE} (give a failure directory written by kcsim hunt)`);
  const record = readHuntRecord(dir);
  const check = values.check ?? record.failures[0]?.check;
  if (check === undefined) throw new UsageError(`shrink: ${dir}: the run failed no checker; give --check`);
  if (!CHECKERS.has(check))
    throw new UsageError(
      `shrink: ${values.check === undefined ? `${dir}: hunt.json names` : "--check:"} no checker '${check}' (known: ${[...CHECKERS.keys()].join(", ")})`,
    );
  const scenario = loadScenarioFile(join(dir, SCENARIO_FILE));
  const maxTrials = integerFlag("shrink", "max-trials", values["max-trials"], 1);
  const result = await shrink(scenario, { seed: record.seed, check, ...(maxTrials !== undefined ? { maxTrials } : {}) });
  const out = join(dir, "shrunk.json");
  writeAtomic(out, `${JSON.stringify(result.scenario, null, 2)}\n`);
  const shown = relative(userCwd(), out) || out;
  const story = scenarioStory(result.scenario);
  if (values.json) {
    process.stdout.write(
      `${JSON.stringify({ check, seed: record.seed, original: result.original, shrunk: result.shrunk, trials: result.trials, violation: result.violation, story, file: shown })}\n`,
    );
  } else {
    process.stdout.write(
      `kcsim shrink: ${check} still fails with seed ${record.seed} after ${result.trials} trials\n` +
        `  from: ${describe(result.original)}\n  to:   ${describe(result.shrunk)}\n` +
        `  ${check}: at ${result.violation.t} us: ${result.violation.message}\n` +
        (story.length === 0
          ? "  left: no fault, partition or nemesis step\n"
          : `  left:\n${story.map((line) => `    - ${line}\n`).join("")}`) +
        `  written to ${shown}; run it with: pnpm kcsim run ${shown} --seed ${record.seed}\n`,
    );
  }
  return 0;
}
