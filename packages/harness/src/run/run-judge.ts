import { HistoryPass } from "../analysis/history-pass.js";
import { type Checker, type CheckResult, isStreaming, type Judgement } from "../checkers/checker.js";
import type { HistoryEvent } from "../history/history-event.js";
import type { RunResult } from "../kernel/run-result.js";
import type { SimulationSpec } from "../kernel/simulation-spec.js";
import { type RunMetrics, RunMetricsFollower } from "../metrics/run-metrics.js";
import { ScenarioError } from "../scenario/scenario-error.js";
import { SettingsErrorFollower } from "./settings-error.js";

/**
 * Judges one run in one pass over its history: a HistoryPass feeds every
 * streaming checker, the metrics and the settings check, sharing the
 * analyses they have in common (ownership, consumption). It is fed live,
 * as the History records each event (its `pass` as the History's follower),
 * or from a finished history. Checkers that read an array (a library user's own,
 * the exactly-once family) read the whole history afterwards, all from
 * one array.
 */
export class RunJudge {
  readonly pass: HistoryPass;
  readonly #names: readonly string[];
  readonly #checkers: ReadonlyMap<string, Checker>;
  readonly #judgements = new Map<string, Judgement>();
  readonly #metrics: RunMetricsFollower;
  readonly #settings: SettingsErrorFollower;

  /** Every name must be known to `checkers` (ScenarioError otherwise). */
  constructor(spec: SimulationSpec, names: readonly string[], checkers: ReadonlyMap<string, Checker>) {
    this.pass = new HistoryPass(spec);
    this.#names = names;
    this.#checkers = checkers;
    this.#settings = new SettingsErrorFollower(spec.scenario);
    this.pass.follow(this.#settings);
    for (const name of names) {
      const checker = checkers.get(name);
      if (checker === undefined) throw new ScenarioError(`unknown checker '${name}' (known: ${[...checkers.keys()].join(", ")})`);
      if (!isStreaming(checker) || this.#judgements.has(name)) continue;
      const judgement = checker.judge(this.pass);
      this.pass.follow(judgement);
      this.#judgements.set(name, judgement);
    }
    this.#metrics = new RunMetricsFollower(this.pass);
  }

  /** Whether every checker judges as the events come (none reads the whole history afterwards): then the run needs no log. */
  get streamsAll(): boolean {
    return this.#names.every((name) => this.#judgements.has(name));
  }

  /** An actor that rejected its settings at start (bad input), if one did. */
  get settingsError(): ScenarioError | null {
    return this.#settings.first;
  }

  /** Each checker's verdict, in the order named; `events` supplies the array for checkers that need one (asked once, if any does). */
  checks(events: () => readonly HistoryEvent[]): Record<string, CheckResult> {
    const checks: Record<string, CheckResult> = {};
    let array: readonly HistoryEvent[] | null = null;
    for (const name of this.#names) {
      const judgement = this.#judgements.get(name);
      if (judgement !== undefined) checks[name] = judgement.finish();
      else {
        array ??= events();
        checks[name] = (this.#checkers.get(name) as Checker).check(array, this.pass.spec);
      }
    }
    return checks;
  }

  metrics(result: Omit<RunResult, "events">, spec: SimulationSpec = this.pass.spec): RunMetrics {
    return this.#metrics.finish(result, spec);
  }
}

/** Judges a finished run's history (one pass over its log) as `spec` says. */
export function judgeFinished(
  result: Omit<RunResult, "events">,
  spec: SimulationSpec,
  names: readonly string[],
  checkers: ReadonlyMap<string, Checker>,
): { readonly checks: Record<string, CheckResult>; readonly metrics: RunMetrics } {
  const judge = new RunJudge(spec, names, checkers);
  result.log.forEach((event, index) => {
    judge.pass.accept(event, index);
  });
  return { checks: judge.checks(() => result.log.toArray()), metrics: judge.metrics(result, spec) };
}
