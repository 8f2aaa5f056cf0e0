import type { Micros } from "@kcsim/protocol";
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
