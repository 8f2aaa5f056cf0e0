import type { JsonValue } from "@kcsim/protocol";
import type { ScenarioFile } from "../scenario/scenario-schema.js";

/**
 * One drawn run of a hunt: the scenario it runs (the base scenario with a
 * drawn fault schedule, or a whole swarm-drawn scenario) and the drawn
 * parameters, printed like a bug report when the run fails.
 */
export interface ChaosPlan {
  readonly seed: number;
  readonly scenario: ScenarioFile;
  readonly parameters: Readonly<Record<string, JsonValue>>;
}
