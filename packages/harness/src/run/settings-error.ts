import type { EventFollower } from "../analysis/history-pass.js";
import type { HistoryEvent } from "../history/history-event.js";
import { ScenarioError } from "../scenario/scenario-error.js";

/** The error classes actors throw when their settings are wrong (protocol's ConfigError, the member's config errors). */
const SETTINGS_ERROR = /^[A-Za-z]*ConfigError: /;

/** The settings error an event shows, if it is an actor rejecting its settings when it started. */
function settingsErrorOf(scenario: string, event: HistoryEvent): ScenarioError | null {
  if (event.ev !== "error" || (event.during !== "start" && event.during !== "restart")) return null;
  if (!SETTINGS_ERROR.test(event.message)) return null;
  return new ScenarioError(`${scenario}: ${event.actor} rejected its settings when it started: ${event.message.split("\n")[0]}`);
}

/**
 * An actor that threw on its own settings when it started: bad input, not a
 * protocol verdict. Load-time validation builds every actor once, so this
 * catches what only shows at start (a custom registry, a setting read in
 * start()). The run is answered with one line and exit code 2, never with
 * `actor-exceptions` and the checkers its absence breaks.
 */
export function settingsErrorAtStart(scenario: string, events: Iterable<HistoryEvent>): ScenarioError | null {
  for (const event of events) {
    const error = settingsErrorOf(scenario, event);
    if (error !== null) return error;
  }
  return null;
}

/** settingsErrorAtStart as a follower of a run's history pass: the first such error, as the run goes. */
export class SettingsErrorFollower implements EventFollower {
  readonly reads = ["error"];
  readonly #scenario: string;
  first: ScenarioError | null = null;

  constructor(scenario: string) {
    this.#scenario = scenario;
  }

  accept(event: HistoryEvent): void {
    this.first ??= settingsErrorOf(this.#scenario, event);
  }
}
