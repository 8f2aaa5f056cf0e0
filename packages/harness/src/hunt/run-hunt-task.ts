import { convergenceDeadlineUs } from "../checkers/converges.js";
import type { RunResult } from "../kernel/run-result.js";
import { type RunSummary, runScenario } from "../run/run-scenario.js";
import { toSimulationSpec } from "../scenario/load-scenario.js";
import type { ScenarioFile } from "../scenario/scenario-schema.js";
import { drawChaosPlan } from "./chaos-generator.js";
import type { ChaosPlan } from "./chaos-plan.js";
import { failedChecks } from "./failed-checks.js";
import type { HuntRunResult, HuntTask } from "./hunt-task.js";

/**
 * Whether this thread's last hunt run failed. A run is first judged without recording its history (no
 * encoding, no hash: 5 to 30% less CPU per seed) and only a failing one runs again with its history, for its
 * failure's signature and hash. After a failing run the next is recorded from the start, so a hunt whose
 * seeds mostly fail does not run each of them twice. Either way a seed gives the same result.
 */
let lastRunFailed = false;

/** Runs one hunt task inline (in a pool worker or in this thread) and reports what failed. */
export async function runHuntTask(task: HuntTask): Promise<HuntRunResult> {
  const asWritten = task.asWritten && typeof task.base !== "string";
  const drawn = asWritten
    ? { seed: task.seed, scenario: { ...task.base, seed: task.seed }, parameters: {} }
    : drawChaosPlan(task.seed, task.base);
  // The protocol and the planted bugs go into the scenario itself, so the failure's scenario.json replays on its own.
  const withProtocol = task.protocol === null ? drawn : { ...drawn, scenario: { ...drawn.scenario, protocol: task.protocol } };
  const bugs = [...new Set([...(drawn.scenario.bugs ?? []), ...(task.bugs ?? [])])];
  let plan: ChaosPlan = bugs.length === 0 ? withProtocol : { ...withProtocol, scenario: { ...withProtocol.scenario, bugs } };
  const started = performance.now();
  let first = await runScenario(plan.scenario, { host: "inline", seed: task.seed, judgedOnly: !lastRunFailed });
  // A drawn plan's length is the hunt's own choice: a seed whose group had not settled when it ended, before the
  // bound `converges` judges by, goes on to that bound, so a group that never settles fails instead of going unjudged.
  const longer = asWritten ? null : runOnToJudge(plan, first.summary, task.seed);
  if (longer !== null) {
    plan = longer;
    first = await runScenario(plan.scenario, { host: "inline", seed: task.seed, judgedOnly: !lastRunFailed });
  }
  lastRunFailed = Object.values(first.summary.checks).some((check) => !check.ok);
  const withHistory = task.withHistory === true;
  // A failing seed runs again recorded if its first run was judged only, or for its lines (--history).
  const judged =
    lastRunFailed && (first.summary.historyHash === "" || withHistory)
      ? await recordedAgain(plan.scenario, task.seed, first.summary, withHistory)
      : { ...first, lines: null };
  const failures = failedChecks(judged.summary.checks, judged.result.log, toSimulationSpec(plan.scenario, { seed: task.seed }));
  const wallMs = performance.now() - started;
  const history = failures.length > 0 ? (judged.lines ?? undefined) : undefined;
  return {
    seed: task.seed,
    historyHash: judged.summary.historyHash,
    failures,
    parameters: {
      ...plan.parameters,
      ...(task.protocol !== null ? { protocol: task.protocol } : {}),
      ...(bugs.length > 0 ? { bugs } : {}),
    },
    scenario: plan.scenario,
    virtualMs: judged.summary.metrics.virtualMs,
    wallMs,
    ...(history !== undefined ? { history } : {}),
  };
}

/**
 * The plan run on to its convergence deadline, when its run ended before it with `converges` not judged (a
 * group still settling); null when the verdict needs no longer run. The longer plan says how long it now runs
 * (`extendedToMs`), and its scenario replays as the hunt ran it. Its first part is the shorter run's: the
 * drawn faults all heal by `healAtMs`, well inside the original length.
 */
function runOnToJudge(plan: ChaosPlan, summary: RunSummary, seed: number): ChaosPlan | null {
  if (summary.checks.converges?.notJudged === undefined) return null;
  const deadline = convergenceDeadlineUs(toSimulationSpec(plan.scenario, { seed }));
  if (deadline === null || deadline <= plan.scenario.durationMs * 1000) return null;
  const durationMs = Math.ceil(deadline / 1000);
  return {
    ...plan,
    scenario: { ...plan.scenario, durationMs },
    parameters: { ...plan.parameters, extendedToMs: durationMs },
  };
}

/**
 * A failing seed run again with its history recorded (and its lines, for `--history`; they are asked for only
 * now that it failed, instead of every passing run holding its lines too): the same seed must reach the same
 * verdicts (every check, every violation) and, if the first run was recorded, the same history hash; if not, the
 * simulation is not deterministic, and the hunt reports the seed as a run error saying both.
 */
async function recordedAgain(
  scenario: ScenarioFile,
  seed: number,
  first: RunSummary,
  withLines: boolean,
): Promise<{ summary: RunSummary; result: RunResult; lines: string | null }> {
  const lines: string[] = [];
  const again = await runScenario(scenario, { host: "inline", seed, ...(withLines ? { onLine: (line: string) => lines.push(line) } : {}) });
  if (first.historyHash !== "" && again.summary.historyHash !== first.historyHash)
    throw new Error(
      `seed ${seed}: the run did not repeat itself (history hash ${again.summary.historyHash}, first run ${first.historyHash})`,
    );
  if (JSON.stringify(again.summary.checks) !== JSON.stringify(first.checks)) {
    const failing = (summary: RunSummary) =>
      Object.entries(summary.checks)
        .filter(([, check]) => !check.ok)
        .map(([name, check]) => `${name} at ${check.violations[0]?.t ?? "?"} us`)
        .join(", ") || "none";
    throw new Error(
      `seed ${seed}: the run did not repeat itself: first it failed ${failing(first)}; recorded again, ${failing(again.summary)}`,
    );
  }
  return { ...again, lines: withLines ? `${lines.join("\n")}\n` : null };
}
