/** A scenario that cannot be run, with one line saying what is wrong and where. */
export class ScenarioError extends Error {
  override readonly name = "ScenarioError";
}
