import type { Violation } from "../checkers/checker.js";
import { runScenario } from "../run/run-scenario.js";
import { groupMemberNumbering, groupMembers } from "../scenario/expand-groups.js";
import { ScenarioError, validateScenario } from "../scenario/load-scenario.js";
import type { GroupSpec, ScenarioFile } from "../scenario/scenario-schema.js";

/** How big a scenario is, for reporting what shrinking achieved. */
export interface ScenarioSize {
  /** Pinned fault choices (the random fault decisions that fire), once the run's choices are pinned. */
  readonly choices: number;
  readonly faults: number;
  readonly partitions: number;
  readonly nemesisSteps: number;
  readonly members: number;
  readonly topicPartitions: number;
  readonly durationMs: number;
}

export function sizeOf(scenario: ScenarioFile): ScenarioSize {
  return {
    choices: scenario.choices?.length ?? 0,
    faults: scenario.faults?.length ?? 0,
    partitions: scenario.partitions?.length ?? 0,
    nemesisSteps: scenario.nemesis?.length ?? 0,
    // The starting members that run (later joins not counted).
    members: (scenario.groups ?? []).reduce((n, g) => n + g.members - (g.withoutMembers ?? []).filter((m) => m <= g.members).length, 0),
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
  /** The checker's first violation in the shrunk run. */
  readonly violation: { readonly t: number; readonly message: string };
}

type Lists = "choices" | "faults" | "partitions" | "nemesis";

/**
 * Reduces a failing run to a smaller one that still fails the same checker
 * with the same seed, keeping its schedule:
 * 1. It reruns the original (which must fail the checker) and pins the
 *    run's random fault decisions (its choice list: which message on which
 *    link each fault broke, dropped, corrupted, duplicated or reordered), so
 *    that every later trial makes exactly those decisions and no others;
 *    then it cuts the run just past the violation (the same run up to
 *    there), so that each trial costs only what the failure needs.
 * 2. Delta debugging (ddmin) over the choices: each reduction neutralises
 *    some while every other choice, and every latency, stays identical.
 * 3. ddmin over the nemesis steps, the faults and the partitions.
 * 4. Fewer members, fewer topic partitions, a shorter duration.
 * A reduction is kept only if the checker still fails (and, for a scenario
 * with planted bugs, passes without them). The result carries its choices
 * pinned, so it reproduces without the seed's fault draws.
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
  // The same run with its own choices pinned: identical, event for event.
  const pinned: ScenarioFile = { ...scenario, choices: [...original.result.choices] };
  let current = pinned;
  const violationAtUs = verdict.violations[0]?.t;
  /**
   * The checker's first violation in the last candidate that failed it. Every candidate that fails becomes
   * `current` at once, so after the reductions this is current's (or, if none was kept, the original's).
   */
  let lastFailed: { scenario: ScenarioFile; violation: Violation } | null = null;
  const fails = async (candidate: ScenarioFile): Promise<boolean> => {
    if (trials >= maxTrials) return false;
    trials++;
    let failed: boolean;
    try {
      // A reduction must stay a valid scenario (e.g. no step for a member that is gone).
      validateScenario(candidate, "shrink");
      // A trial needs only its verdicts: judged as it goes, its history not recorded.
      const { summary } = await runScenario(candidate, { host: "inline", seed: options.seed, judgedOnly: true });
      const violation = summary.checks[options.check]?.violations[0];
      failed = summary.checks[options.check]?.ok === false;
      // With planted bugs the reduction must still fail because of them, not because it became too short to heal:
      // the same candidate without the bugs must pass the checker.
      if (failed && (candidate.bugs ?? []).length > 0) {
        const { bugs: _planted, ...withoutBugs } = candidate;
        const clean = await runScenario(withoutBugs, { host: "inline", seed: options.seed, judgedOnly: true });
        failed = clean.summary.checks[options.check]?.ok !== false;
      }
      if (failed && violation !== undefined) lastFailed = { scenario: candidate, violation };
    } catch {
      failed = false; // a reduction that makes the scenario invalid is not a reduction
    }
    options.onTrial?.(trials, failed, sizeOf(failed ? candidate : current));
    return failed;
  };

  // First, the run cut just past its violation: with the choices pinned it is the same run up to there, and every
  // later trial costs only as much virtual time as the failure needs.
  const cutAt = justPastViolation(violationAtUs);
  if (cutAt !== null && cutAt < current.durationMs) {
    const candidate = { ...current, durationMs: cutAt };
    if (await fails(candidate)) current = candidate;
  }

  /**
   * Delta debugging over one list of `current`: removes ever smaller chunks of
   * its items while the candidate `build` makes of the rest still fails.
   */
  const ddmin = async <T>(all: readonly T[], build: (items: readonly T[]) => ScenarioFile): Promise<void> => {
    let items = [...all];
    let chunk = Math.max(1, Math.floor(items.length / 2));
    while (items.length > 0 && chunk >= 1 && trials < maxTrials) {
      let removedSome = false;
      for (let start = 0; start < items.length && trials < maxTrials; ) {
        const candidateItems = [...items.slice(0, start), ...items.slice(start + chunk)];
        const candidate = build(candidateItems);
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
  };

  for (const list of ["choices", "nemesis", "faults", "partitions"] as const satisfies readonly Lists[]) {
    await ddmin<unknown>(current[list] ?? [], (items) => withoutDanglingChoices({ ...current, [list]: items } as ScenarioFile));
  }

  // Fewer members: half as many, else one fewer, while the checker still fails.
  const groups = current.groups ?? [];
  for (let g = 0; g < groups.length; g++) {
    for (;;) {
      const group = current.groups?.[g];
      if (group === undefined || group.members <= 1 || trials >= maxTrials) break;
      let reduced = false;
      for (const members of new Set([Math.max(1, Math.floor(group.members / 2)), group.members - 1])) {
        const candidate = withoutMissingActors({
          ...current,
          groups: (current.groups ?? []).map((x, i) => (i === g ? withMemberCount(group, members) : x)),
        });
        if (await fails(candidate)) {
          current = candidate;
          reduced = true;
          break;
        }
      }
      if (!reduced) break;
    }
    // Then members by identity: a race between member-10 and member-11 keeps those two while the others leave;
    // the members that stay keep their numbers, so the pinned choices and nemesis steps still name them.
    const group = current.groups?.[g];
    if (group !== undefined) {
      await ddmin(
        groupMembers(group).map((member) => member.number),
        (running) =>
          withoutMissingActors({ ...current, groups: (current.groups ?? []).map((x, i) => (i === g ? runningOnly(x, running) : x)) }),
      );
    }
  }
  const topics = current.cluster?.topics ?? [];
  for (let t = 0; t < topics.length; t++) {
    for (;;) {
      const cluster = current.cluster;
      const topic = cluster?.topics[t];
      if (cluster === undefined || topic === undefined || topic.partitions <= 1 || trials >= maxTrials) break;
      let reduced = false;
      for (const partitions of new Set([Math.max(1, Math.floor(topic.partitions / 2)), topic.partitions - 1])) {
        const candidate = {
          ...current,
          cluster: { ...cluster, topics: cluster.topics.map((x, i) => (i === t ? { ...topic, partitions } : x)) },
        };
        if (await fails(candidate)) {
          current = candidate;
          reduced = true;
          break;
        }
      }
      if (!reduced) break;
    }
  }
  // A shorter run: first just past the original violation, then by quarters.
  if (violationAtUs !== undefined && trials < maxTrials) {
    const justPast = justPastViolation(violationAtUs) as number;
    if (justPast < current.durationMs) {
      const candidate = { ...current, durationMs: justPast };
      if (await fails(candidate)) current = candidate;
    }
  }
  for (;;) {
    const shorter = Math.round(current.durationMs * 0.75);
    if (shorter < 10_000 || trials >= maxTrials) break;
    const candidate = { ...current, durationMs: shorter };
    if (!(await fails(candidate))) break;
    current = candidate;
  }
  // The reductions may have moved the violation (converges' bound moves with the faults' heal): cut just past
  // the shrunk run's own, and report it.
  const violationOf = (scenario: ScenarioFile): Violation => {
    const violation = lastFailed?.scenario === scenario ? lastFailed.violation : scenario === pinned ? verdict.violations[0] : undefined;
    if (violation === undefined) throw new Error(`shrink: no violation of ${options.check} recorded for the shrunk scenario`);
    return violation;
  };
  const cut = justPastViolation(violationOf(current).t) as number;
  if (cut < current.durationMs && trials < maxTrials) {
    const candidate = { ...current, durationMs: cut };
    if (await fails(candidate)) current = candidate;
  }
  const { t, message } = violationOf(current);
  const shrunk = {
    ...current,
    description: `${scenario.name} seed ${options.seed}, shrunk by kcsim shrink to what still fails ${options.check}.`,
  };
  return { scenario: shrunk, original: sizeOf(pinned), shrunk: sizeOf(current), trials, violation: { t, message } };
}

/** A duration just past a violation at `t` us (the next whole second, plus one), at least 10 s; null without one. */
function justPastViolation(t: number | undefined): number | null {
  return t === undefined ? null : Math.max(10_000, Math.ceil(t / 1_000_000) * 1000 + 1000);
}

/**
 * The group with only the members numbered in `running` (numbers of its plan):
 * the others are left out, the last starting members by a smaller count.
 */
function runningOnly(group: GroupSpec, running: readonly number[]): GroupSpec {
  const keep = new Set(running);
  let members = group.members;
  const hasJoins = (group.joins ?? []).length > 0;
  // Trailing starting members that are gone shrink the count instead (members that join later are numbered after them).
  while (!hasJoins && members > 1 && !keep.has(members)) members--;
  return withLeftOut(group, members, (n) => !keep.has(n));
}

/** The group starting `members` members, still leaving out those of its left-out numbers that remain. */
function withMemberCount(group: GroupSpec, members: number): GroupSpec {
  const left = new Set(group.withoutMembers ?? []);
  return withLeftOut(group, members, (n) => left.has(n));
}

/** The group starting `members` members, leaving out the numbers of its new plan that `isLeftOut` names (none: no field). */
function withLeftOut(group: GroupSpec, members: number, isLeftOut: (n: number) => boolean): GroupSpec {
  const { withoutMembers: _previous, ...rest } = group;
  const without = groupMemberNumbering({ ...rest, members })
    .map((member) => member.number)
    .filter(isLeftOut);
  return without.length === 0 ? { ...rest, members } : { ...rest, members, withoutMembers: without };
}

/** A scenario whose pinned choices name only faults it still has. */
function withoutDanglingChoices(scenario: ScenarioFile): ScenarioFile {
  if (scenario.choices === undefined) return scenario;
  const faults = new Set((scenario.faults ?? []).map((fault) => fault.name));
  return { ...scenario, choices: scenario.choices.filter((choice) => faults.has(choice.fault)) };
}

/**
 * A scenario with fewer members whose faults, partitions and nemesis steps
 * no longer name the members that are gone (a scope that names only them
 * goes with them).
 */
function withoutMissingActors(scenario: ScenarioFile): ScenarioFile {
  const present = new Set((scenario.groups ?? []).flatMap((group) => groupMembers(group).map((member) => member.id)));
  const prefixes = new Set((scenario.groups ?? []).map((group) => group.idPrefix ?? "member-"));
  const isGone = (name: string) =>
    !present.has(name) && [...prefixes].some((prefix) => name.startsWith(prefix) && /^\d+$/.test(name.slice(prefix.length)));
  const keep = (names: readonly string[] | undefined) => names?.filter((name) => !isGone(name));
  const faults = (scenario.faults ?? []).flatMap((fault) => {
    const from = keep(fault.from);
    const to = keep(fault.to);
    if ((from !== undefined && from.length === 0) || (to !== undefined && to.length === 0)) return [];
    return [{ ...fault, ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to } : {}) }];
  });
  const partitions = (scenario.partitions ?? []).flatMap((partition) => {
    const a = keep(partition.a) ?? [];
    const b = keep(partition.b) ?? [];
    return a.length === 0 || b.length === 0 ? [] : [{ ...partition, a, b }];
  });
  const nemesis = (scenario.nemesis ?? []).filter((step) => !isGone(step.actor));
  return withoutDanglingChoices({
    ...scenario,
    ...(scenario.faults !== undefined ? { faults } : {}),
    ...(scenario.partitions !== undefined ? { partitions } : {}),
    ...(scenario.nemesis !== undefined ? { nemesis } : {}),
  });
}
