import { validateScenario } from "../scenario/load-scenario.js";
import type { ScenarioFile } from "../scenario/scenario-schema.js";

/**
 * A scenario built in code: the same shape as a scenario file (typed, so an
 * editor completes it), validated at once, so a mistake throws a
 * ScenarioError naming the field instead of failing later in a run.
 */
export function defineScenario(scenario: ScenarioFile): ScenarioFile {
  // The actor kinds of your own are known only when simulate() is given them: checked there.
  return validateScenario(scenario, scenario.name === undefined || scenario.name === "" ? "scenario" : scenario.name, null);
}
