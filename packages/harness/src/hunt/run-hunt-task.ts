import { runScenario, runSpec } from "../run/run-scenario.js";
import { toSimulationSpec } from "../scenario/load-scenario.js";
import type { ScenarioFile } from "../scenario/scenario-schema.js";
import { drawChaosPlan } from "./chaos-generator.js";
import { failedChecks } from "./failed-checks.js";
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
  const { summary, result } = await runScenario(plan.scenario, { host: "inline", seed: task.seed });
  const failures = failedChecks(summary.checks, result.log, toSimulationSpec(plan.scenario, { seed: task.seed }));
  const wallMs = performance.now() - started;
  const history =
    task.withHistory === true && failures.length > 0 ? await historyOf(plan.scenario, task.seed, summary.historyHash) : undefined;
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
    wallMs,
    ...(history !== undefined ? { history } : {}),
  };
}

/**
 * A failing run's history.jsonl, asked for only now that it failed: the
 * run happens again (same scenario, same seed, so the same history) with
 * its lines kept, instead of every passing run holding its lines too.
 */
async function historyOf(scenario: ScenarioFile, seed: number, expectedHash: string): Promise<string> {
  const lines: string[] = [];
  const again = await runSpec(toSimulationSpec(scenario, { seed }), "inline", { keepEvents: false, onLine: (line) => lines.push(line) });
  if (again.historyHash !== expectedHash)
    throw new Error(`seed ${seed}: the run did not repeat itself (history hash ${again.historyHash}, first run ${expectedHash})`);
  return `${lines.join("\n")}\n`;
}
