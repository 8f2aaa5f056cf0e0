import { isPlantedBugName, PLANTED_BUG_NAMES, type PlantedBugName } from "@kcsim/protocol";
import { type BugSurvey, surveyPlantedBug, surveyTable } from "../hunt/planted-bug-survey.js";
import { BenchSettingError, benchCount } from "./bench-setting.js";

/**
 * The README's planted-bug table, on demand (minutes per bug):
 * `pnpm build && node packages/harness/dist/bench/planted-bugs-table.js [bug ...]`.
 * For each bug (default: all) it hunts seeds 1..KCSIM_BUG_SEEDS (default 30)
 * on the bug's recommended scenario, stops at the first seed where the
 * bug's checker fails (a seed failing only others does not count), replays
 * and shrinks it (KCSIM_SHRINK_TRIALS trials, default 30), and runs the
 * same seeds with no bug as the control. Prints one JSON line per bug on
 * stderr as it goes, then the markdown table.
 */
async function main(args: readonly string[]): Promise<number> {
  const unknown = args.find((name) => !isPlantedBugName(name));
  if (unknown !== undefined) {
    process.stderr.write(`planted-bugs-table: unknown bug '${unknown}' (known: ${PLANTED_BUG_NAMES.join(", ")})\n`);
    return 2;
  }
  const bugs = args.length === 0 ? PLANTED_BUG_NAMES : (args as readonly PlantedBugName[]);
  let maxSeeds: number;
  let shrinkTrials: number;
  try {
    maxSeeds = benchCount("KCSIM_BUG_SEEDS", 30);
    shrinkTrials = benchCount("KCSIM_SHRINK_TRIALS", 30);
  } catch (error) {
    if (!(error instanceof BenchSettingError)) throw error;
    process.stderr.write(`planted-bugs-table: ${error.message}\n`);
    return 2;
  }
  const surveys: BugSurvey[] = [];
  for (const bug of bugs) {
    const survey = await surveyPlantedBug(bug, { maxSeeds, shrinkTrials });
    surveys.push(survey);
    process.stderr.write(`${JSON.stringify(survey)}\n`);
  }
  process.stdout.write(surveyTable(surveys));
  return surveys.every((s) => s.seed !== null && s.failedChecks.includes(s.expectedChecker) && s.replayed && s.controlFailures === 0)
    ? 0
    : 1;
}

process.exitCode = await main(process.argv.slice(2));
