import { drawChaosPlan } from "./chaos-generator.js";
import { EMPTY_SIGNATURE } from "./failure-signature.js";
import type { HuntRunResult, HuntTask } from "./hunt-task.js";

/** The checker name a hunt reports when a run itself threw (a harness or scenario error, not a protocol verdict). */
export const RUN_ERROR_CHECK = "run-error";

/**
 * A run that threw instead of finishing is a failure of its own kind: it is
 * recorded with the scenario it was given, so the hunt goes on and the seed
 * can be replayed, instead of one bad seed losing every result so far.
 */
export function runErrorResult(task: HuntTask, error: unknown): HuntRunResult {
  const plan =
    task.asWritten && typeof task.base !== "string"
      ? { scenario: { ...task.base, seed: task.seed }, parameters: {} }
      : drawChaosPlan(task.seed, task.base);
  const scenario = task.protocol === null ? plan.scenario : { ...plan.scenario, protocol: task.protocol };
  const message = error instanceof Error ? error.message : String(error);
  return {
    seed: task.seed,
    historyHash: "",
    failures: [{ check: RUN_ERROR_CHECK, t: 0, message: message.split("\n")[0] ?? message, signature: EMPTY_SIGNATURE }],
    parameters: task.protocol === null ? plan.parameters : { ...plan.parameters, protocol: task.protocol },
    scenario,
    virtualMs: 0,
    wallMs: 0,
  };
}
