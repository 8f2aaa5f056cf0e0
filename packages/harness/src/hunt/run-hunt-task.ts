import { runScenario } from "../run/run-scenario.js";
import { drawChaosPlan } from "./chaos-generator.js";
import type { HuntRunResult, HuntTask } from "./hunt-task.js";

/** Runs one hunt task inline (in a pool worker or in this thread) and reports what failed. */
export async function runHuntTask(task: HuntTask): Promise<HuntRunResult> {
  const drawn =
    task.asWritten && task.base !== null
      ? { seed: task.seed, scenario: { ...task.base, seed: task.seed }, parameters: {} }
      : drawChaosPlan(task.seed, task.base);
  // The protocol and the planted bugs go into the scenario itself, so the failure's scenario.json replays on its own.
  const withProtocol = task.protocol === null ? drawn : { ...drawn, scenario: { ...drawn.scenario, protocol: task.protocol } };
  const bugs = [...new Set([...(drawn.scenario.bugs ?? []), ...(task.bugs ?? [])])];
  const plan = bugs.length === 0 ? withProtocol : { ...withProtocol, scenario: { ...withProtocol.scenario, bugs } };
  const started = performance.now();
  const { summary } = await runScenario(plan.scenario, { host: "inline", seed: task.seed });
  const failures = Object.entries(summary.checks)
    .filter(([, check]) => !check.ok)
    .map(([check, result]) => ({ check, t: result.violations[0]?.t ?? 0, message: result.violations[0]?.message ?? "" }));
  return {
    seed: task.seed,
    historyHash: summary.historyHash,
    failures,
    parameters: {
      ...plan.parameters,
      ...(task.protocol !== null ? { protocol: task.protocol } : {}),
      ...(bugs.length > 0 ? { bugs } : {}),
    },
    scenario: plan.scenario,
    virtualMs: summary.metrics.virtualMs,
    wallMs: performance.now() - started,
  };
}
