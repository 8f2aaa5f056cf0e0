import type { ActorId } from "@kcsim/protocol";
import type { Violation } from "../checkers/checker.js";
import type { HistoryEvent } from "../history/history-event.js";
import type { SimulationSpec } from "../kernel/simulation-spec.js";

/**
 * What kind of failure a failing checker found, stripped of everything that
 * changes from seed to seed (times, member ids, epochs, offsets): the kinds
 * of the history events its first violation points at, and the roles (actor
 * kinds) of the actors in them. With the checker's name it is the key that
 * groups fifteen seeds of one race into one finding.
 */
export interface FailureSignature {
  /** Sorted, distinct: an observation's type (`gc.member-removed`), or `send <type>`, `life <what>`, `error`, `reject <reason>`, `lost <type>`. */
  readonly events: readonly string[];
  /** Sorted, distinct actor kinds (`consumer`, `group-coordinator`, `broker`, ...) of the actors in those events. */
  readonly roles: readonly string[];
}

/** The signature of a failure with no event to point at (a run that threw, a verdict about the run's end). */
export const EMPTY_SIGNATURE: FailureSignature = { events: [], roles: [] };

function eventKind(event: HistoryEvent): string {
  switch (event.ev) {
    case "obs":
      return event.o.type;
    case "send":
      return `send ${event.type}`;
    case "life":
      return `life ${event.what}`;
    case "error":
      return "error";
    case "reject":
      return `reject ${event.reason}`;
    case "lost":
      return `lost ${event.type}`;
    case "conn":
      return `conn ${event.what}`;
  }
}

function actorsOf(event: HistoryEvent): readonly ActorId[] {
  switch (event.ev) {
    case "send":
      return [event.from, event.to];
    case "reject":
    case "lost":
      return [event.actor, event.from];
    case "conn":
      return [event.actor, event.peer];
    default:
      return [event.actor];
  }
}

/** A run's events by index: an array, or a run's EventLog (which decodes only the events asked for). */
export interface EventsByIndex {
  at(index: number): HistoryEvent | undefined;
}

const sortedDistinct = (items: Iterable<string>): string[] => [...new Set(items)].sort();

/** The signature of one violation, read from the history events it cites and the run's actors. */
export function signatureOf(violation: Violation | undefined, events: EventsByIndex, spec: SimulationSpec): FailureSignature {
  if (violation === undefined) return EMPTY_SIGNATURE;
  const kindOf = new Map(spec.actors.map((actor) => [actor.id, actor.kind]));
  const cited = violation.events
    .filter((index) => index >= 0)
    .map((index) => events.at(index))
    .filter((event): event is HistoryEvent => event !== undefined);
  return {
    events: sortedDistinct(cited.map(eventKind)),
    roles: sortedDistinct(cited.flatMap(actorsOf).flatMap((id) => kindOf.get(id) ?? [])),
  };
}
