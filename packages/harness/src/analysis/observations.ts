import type { CoordinatorObservation } from "@kcsim/coordinator";
import type { FetchObservation } from "@kcsim/fetch";
import type { MemberObservation } from "@kcsim/member";
import type { Observation } from "@kcsim/protocol";
import type { HistoryEvent, ObservationRecord } from "../history/history-event.js";

/** Every observation type the protocol actors emit, by its `type`. */
export type KnownObservation = CoordinatorObservation | MemberObservation | FetchObservation;
export type ObservationOfType<T extends KnownObservation["type"]> = Extract<KnownObservation, { type: T }>;

/** The observation of a history event if it is one of type `type`. */
export function observationOf<T extends KnownObservation["type"]>(event: HistoryEvent, type: T): ObservationOfType<T> | undefined {
  if (event.ev !== "obs" || event.o.type !== type) return undefined;
  return event.o as Observation as unknown as ObservationOfType<T>;
}

/**
 * An observation event's observation as one of those the protocol actors emit, to switch on its `type`
 * (read once, where observationOf reads it again for every type it tries); another actor's type matches
 * no case.
 */
export function knownObservation(event: ObservationRecord): KnownObservation {
  return event.o as Observation as unknown as KnownObservation;
}

export function isObservation(event: HistoryEvent): event is ObservationRecord {
  return event.ev === "obs";
}
