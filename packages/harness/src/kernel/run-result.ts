import type { ActorId, JsonValue, Micros } from "@kcsim/protocol";
import type { EventLog } from "../history/event-log.js";
import type { HistoryEvent } from "../history/history-event.js";
import type { FaultChoice } from "../router/fault-plan.js";
import type { RouterStats } from "../router/router.js";

/** What a host returns at the end of a run. */
export interface RunResult {
  readonly host: "inline" | "lockstep" | "realtime";
  readonly scenario: string;
  readonly seed: number;
  /** The SHA-256 of the history (hex); empty when the history was not recorded (HistoryOptions.recorded false). */
  readonly historyHash: string;
  /** The recorded events, read back from the binary history on demand (when the run kept them). */
  readonly log: EventLog;
  /** Every event as an object, built from `log` on first use: a long run's array is large, `log` reads them one at a time. */
  readonly events: readonly HistoryEvent[];
  readonly eventsProcessed: number;
  readonly virtualEndUs: Micros;
  /** Set when the run was interrupted (SIGINT, SIGTERM) before its end: the virtual time it stopped at. */
  readonly interruptedAtUs?: Micros;
  readonly wallMs: number;
  readonly router: RouterStats;
  /** Every random fault decision that fired (the run's choice list: what `kcsim shrink` reduces, and pins). */
  readonly choices: readonly FaultChoice[];
  /** Each actor's final process state and snapshot. */
  readonly actors: Readonly<Record<ActorId, { readonly state: string; readonly snapshot: JsonValue }>>;
}

/** Gives a host's result its `events`, an array built from its log the first time someone reads it. */
export function withEventArray<T extends Omit<RunResult, "events">>(result: T): T & Pick<RunResult, "events"> {
  return Object.defineProperty(result, "events", {
    get: () => result.log.toArray(),
    enumerable: true,
    configurable: true,
  }) as T & Pick<RunResult, "events">;
}
