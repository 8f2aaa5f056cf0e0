import type { CheckResult } from "../checkers/checker.js";
import type { SimulationSpec } from "../kernel/simulation-spec.js";
import { type EventsByIndex, signatureOf } from "./failure-signature.js";
import type { HuntFailure } from "./hunt-task.js";

/** The checkers of a judged run that failed, each with its first violation and that violation's signature. */
export function failedChecks(checks: Readonly<Record<string, CheckResult>>, events: EventsByIndex, spec: SimulationSpec): HuntFailure[] {
  return Object.entries(checks)
    .filter(([, check]) => !check.ok)
    .map(([check, result]) => {
      const first = result.violations[0];
      return { check, t: first?.t ?? 0, message: first?.message ?? "", signature: signatureOf(first, events, spec) };
    });
}
