import type { CheckResult } from "../checkers/checker.js";
import type { HistoryEvent } from "../history/history-event.js";
import type { CheckView, ViolatingEvent } from "./report-data.js";

/** How much of a violating event's JSON line the report shows. */
export const EVENT_TEXT_LIMIT = 600;

/** The actor a history event is about: the sender of a send, else the actor that recorded it. */
export function actorOfEvent(event: HistoryEvent): string {
  return event.ev === "send" ? event.from : event.actor;
}

/**
 * The checker verdicts as the report lists them: every check with its
 * description, and each violation numbered (the number its marker on the
 * timeline carries) with the history events it names, fetched from the
 * history as it streams by (only those indexes are kept).
 */
export class ViolationViews {
  readonly #checks: Readonly<Record<string, CheckResult>> | null;
  readonly #wanted = new Set<number>();
  readonly #found = new Map<number, HistoryEvent>();

  constructor(checks: Readonly<Record<string, CheckResult>> | null) {
    this.#checks = checks;
    for (const check of Object.values(checks ?? {})) for (const v of check.violations) for (const i of v.events) this.#wanted.add(i);
  }

  /** `index`: the event's position among the history's events (the header excluded), as checkers count. */
  accept(event: HistoryEvent, index: number): void {
    if (this.#wanted.has(index)) this.#found.set(index, event);
  }

  finish(descriptions: ReadonlyMap<string, string>): CheckView[] | null {
    if (this.#checks === null) return null;
    let number = 0;
    return Object.entries(this.#checks).map(([name, check]) => ({
      name,
      description: descriptions.get(name) ?? "",
      ok: check.ok,
      violations: check.violations.map((v) => ({
        number: ++number,
        check: name,
        tUs: v.t,
        message: v.message,
        events: v.events.map((index) => this.#view(index)),
      })),
    }));
  }

  #view(index: number): ViolatingEvent {
    const event = this.#found.get(index);
    if (event === undefined) return { index, line: index + 2, tUs: null, actor: null, text: "(no such event in the history)" };
    const json = JSON.stringify(event);
    const text = json.length > EVENT_TEXT_LIMIT ? `${json.slice(0, EVENT_TEXT_LIMIT)}...` : json;
    return { index, line: index + 2, tUs: event.t, actor: actorOfEvent(event), text };
  }
}
