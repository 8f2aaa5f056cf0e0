import type { Micros } from "@kcsim/protocol";
import { type EventFollower, HistoryPass } from "../analysis/history-pass.js";
import type { HistoryEvent } from "../history/history-event.js";
import type { SimulationSpec } from "../kernel/simulation-spec.js";

/** One broken rule, with the time and the history events (by index) that show it. */
export interface Violation {
  readonly t: Micros;
  readonly message: string;
  readonly events: readonly number[];
}

export interface CheckResult {
  readonly ok: boolean;
  /** The first violations found (at most MAX_VIOLATIONS), earliest first. */
  readonly violations: readonly Violation[];
  /** Set when the rule could not be judged in this run (its premise never held), with why: no violation, and no pass either. */
  readonly notJudged?: string;
}

/** The result of a checker whose rule has nothing to judge in this run. */
export function notJudged(reason: string): CheckResult {
  return { ok: true, violations: [], notJudged: reason };
}

export const MAX_VIOLATIONS = 20;

/**
 * A checker reads a run's history and judges one rule (DESIGN.md
 * "Checkers"). It must be able to fail: each has a test that shows it
 * catching a broken history.
 */
export interface Checker {
  readonly name: string;
  readonly description: string;
  check(events: readonly HistoryEvent[], spec: SimulationSpec): CheckResult;
}

/** A checker's judgement of one run: fed the run's events in order (those it reads), then asked for its result. */
export interface Judgement extends EventFollower {
  finish(): CheckResult;
}

/**
 * A checker that judges a history as it streams by, in one pass with the
 * run's other checkers and metrics: it starts a Judgement on a HistoryPass
 * (whose shared analyses it may use) instead of reading an array. Its
 * `check(events, spec)` is that same judgement over an array.
 */
export interface StreamingChecker extends Checker {
  judge(pass: HistoryPass): Judgement;
}

/** A judgement decided before the run: it reads nothing. */
export function decided(result: CheckResult): Judgement {
  return { reads: [], accept() {}, finish: () => result };
}

export function isStreaming(checker: Checker): checker is StreamingChecker {
  return typeof (checker as Partial<StreamingChecker>).judge === "function";
}

/** A StreamingChecker from its judgement; `check` runs the judgement over an array, in a pass of its own. */
export function streamingChecker(definition: Omit<StreamingChecker, "check">): StreamingChecker {
  return {
    ...definition,
    check(events, spec) {
      const pass = new HistoryPass(spec);
      const judgement = definition.judge(pass);
      pass.follow(judgement);
      pass.acceptAll(events);
      return judgement.finish();
    },
  };
}

/** Collects violations up to the cap. */
export class ViolationList {
  readonly items: Violation[] = [];

  add(t: Micros, message: string, events: readonly number[] = []): void {
    if (this.items.length < MAX_VIOLATIONS) this.items.push({ t, message, events });
  }

  result(): CheckResult {
    return { ok: this.items.length === 0, violations: this.items };
  }
}
