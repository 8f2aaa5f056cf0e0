import type { HistoryEvent } from "../history/history-event.js";
import type { SimulationSpec } from "../kernel/simulation-spec.js";

type History = readonly HistoryEvent[];

interface Remembered<T> {
  readonly length: number;
  readonly spec: SimulationSpec | null;
  readonly value: T;
}

/**
 * Several checkers of one run replay the same analysis over the same
 * history (contiguous offsets and duplicate attribution both follow the
 * consumption; two EOS checkers account the same results). These wrap a
 * pure analysis so a run pays for it once: the result is remembered per
 * history array (weakly, so it goes with the history) and reused while the
 * array has the same length and the spec is the same object. Callers must
 * treat the result as read-only.
 */
export function memoByHistory<T>(analyse: (events: History) => T): (events: History) => T {
  const remembered = new WeakMap<History, Remembered<T>>();
  return (events) => recall(remembered, events, null, () => analyse(events));
}

/** memoByHistory for an analysis that also reads the spec. */
export function memoByHistoryAndSpec<T>(
  analyse: (events: History, spec: SimulationSpec) => T,
): (events: History, spec: SimulationSpec) => T {
  const remembered = new WeakMap<History, Remembered<T>>();
  return (events, spec) => recall(remembered, events, spec, () => analyse(events, spec));
}

function recall<T>(remembered: WeakMap<History, Remembered<T>>, events: History, spec: SimulationSpec | null, analyse: () => T): T {
  const hit = remembered.get(events);
  if (hit !== undefined && hit.length === events.length && hit.spec === spec) return hit.value;
  const value = analyse();
  remembered.set(events, { length: events.length, spec, value });
  return value;
}
