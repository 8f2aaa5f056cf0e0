import { runScenario } from "../run/run-scenario.js";
import { ScenarioError, validateScenario } from "../scenario/load-scenario.js";
import type { ScenarioFile } from "../scenario/scenario-schema.js";

/** How big a scenario is, for reporting what shrinking achieved. */
export interface ScenarioSize {
  readonly faults: number;
  readonly partitions: number;
  readonly nemesisSteps: number;
  readonly members: number;
  readonly topicPartitions: number;
  readonly durationMs: number;
}

export function sizeOf(scenario: ScenarioFile): ScenarioSize {
  return {
    faults: scenario.faults?.length ?? 0,
    partitions: scenario.partitions?.length ?? 0,
    nemesisSteps: scenario.nemesis?.length ?? 0,
    members: (scenario.groups ?? []).reduce((n, g) => n + g.members, 0),
    topicPartitions: (scenario.cluster?.topics ?? []).reduce((n, t) => n + t.partitions, 0),
    durationMs: scenario.durationMs,
  };
}

export interface ShrinkOptions {
  readonly seed: number;
  /** The checker the shrunk scenario must still fail. */
  readonly check: string;
  /** Upper bound on trial runs. */
  readonly maxTrials?: number;
  readonly onTrial?: (trial: number, kept: boolean, size: ScenarioSize) => void;
}

export interface ShrinkResult {
  readonly scenario: ScenarioFile;
  readonly original: ScenarioSize;
  readonly shrunk: ScenarioSize;
  readonly trials: number;
}

type Lists = "faults" | "partitions" | "nemesis";

/**
 * Reduces a failing run to a smaller one that still fails the same checker
 * with the same seed (after rerunning the original, which must fail it): delta debugging (ddmin) over its faults, partitions
 * and nemesis steps, then fewer members, fewer partitions and a shorter
 * duration, keeping each reduction only if the checker still fails (and,
 * for a scenario with planted bugs, passes without them).
 */
export async function shrink(scenario: ScenarioFile, options: ShrinkOptions): Promise<ShrinkResult> {
  // Shrinking keeps a failure: first see it, on the original run, or claim nothing.
  const original = await runScenario(scenario, { host: "inline", seed: options.seed });
  const verdict = original.summary.checks[options.check];
  if (verdict === undefined) {
    throw new ScenarioError(
      `shrink: the run does not judge '${options.check}' (it runs ${Object.keys(original.summary.checks).join(", ")})`,
    );
  }
  if (verdict.ok)
    throw new ScenarioError(`shrink: ${options.check} passes on the original run with seed ${options.seed}: nothing to shrink`);
  const maxTrials = options.maxTrials ?? 80;
  let trials = 0;
  let current = scenario;
  const fails = async (candidate: ScenarioFile): Promise<boolean> => {
    if (trials >= maxTrials) return false;
    trials++;
    let failed: boolean;
    try {
      // A reduction must stay a valid scenario (e.g. no step for a member that is gone).
      validateScenario(candidate, "shrink");
      const { summary } = await runScenario(candidate, { host: "inline", seed: options.seed });
      failed = summary.checks[options.check]?.ok === false;
      // With planted bugs the reduction must still fail because of them, not because it became too short to heal:
      // the same candidate without the bugs must pass the checker.
      if (failed && (candidate.bugs ?? []).length > 0) {
        const { bugs: _planted, ...withoutBugs } = candidate;
        const clean = await runScenario(withoutBugs, { host: "inline", seed: options.seed });
        failed = clean.summary.checks[options.check]?.ok !== false;
      }
    } catch {
      failed = false; // a reduction that makes the scenario invalid is not a reduction
    }
    options.onTrial?.(trials, failed, sizeOf(failed ? candidate : current));
    return failed;
  };

  for (const list of ["nemesis", "faults", "partitions"] as const satisfies readonly Lists[]) {
    let items = [...(current[list] ?? [])] as unknown[];
    let chunk = Math.max(1, Math.floor(items.length / 2));
    while (items.length > 0 && chunk >= 1 && trials < maxTrials) {
      let removedSome = false;
      for (let start = 0; start < items.length && trials < maxTrials; ) {
        const candidateItems = [...items.slice(0, start), ...items.slice(start + chunk)];
        const candidate = { ...current, [list]: candidateItems } as ScenarioFile;
        if (await fails(candidate)) {
          current = candidate;
          items = candidateItems;
          removedSome = true;
        } else {
          start += chunk;
        }
      }
      if (!removedSome) chunk = Math.floor(chunk / 2);
    }
  }

  const groups = current.groups ?? [];
  for (let g = 0; g < groups.length; g++) {
    for (;;) {
      const group = current.groups?.[g];
      if (group === undefined || group.members <= 1 || trials >= maxTrials) break;
      const fewer = { ...group, members: Math.max(1, Math.floor(group.members / 2)) };
      const candidate = { ...current, groups: (current.groups ?? []).map((x, i) => (i === g ? fewer : x)) };
      if (!(await fails(candidate))) break;
      current = candidate;
    }
  }
  const topics = current.cluster?.topics ?? [];
  for (let t = 0; t < topics.length; t++) {
    for (;;) {
      const cluster = current.cluster;
      const topic = cluster?.topics[t];
      if (cluster === undefined || topic === undefined || topic.partitions <= 1 || trials >= maxTrials) break;
      const smaller = { ...topic, partitions: Math.max(1, Math.floor(topic.partitions / 2)) };
      const candidate = { ...current, cluster: { ...cluster, topics: cluster.topics.map((x, i) => (i === t ? smaller : x)) } };
      if (!(await fails(candidate))) break;
      current = candidate;
    }
  }
  for (;;) {
    const shorter = Math.round(current.durationMs * 0.75);
    if (shorter < 10_000 || trials >= maxTrials) break;
    const candidate = { ...current, durationMs: shorter };
    if (!(await fails(candidate))) break;
    current = candidate;
  }
  return { scenario: current, original: sizeOf(scenario), shrunk: sizeOf(current), trials };
}
