import type { HistoryEvent, ObservationRecord } from "../history/history-event.js";
import { memoByHistory } from "./history-memo.js";
import { observationOf } from "./observations.js";

/** A history with extra events, and where each of its events came from. */
export interface AugmentedHistory {
  readonly events: readonly HistoryEvent[];
  /** For each event: its index in the original history. */
  readonly originalIndex: readonly number[];
}

/**
 * The history as the consumption analysis (analyseConsumption) should read
 * it when consume-process-produce applications roll batches back: after a
 * `member.batch` that rewound partitions (an aborted transaction, a fenced
 * producer, a failed send), each rewound partition gets a `fetch.reset`
 * event of the same actor at the same time, so the analysis treats the seek
 * back to the batch's first offset like a reset (an explained rewind and
 * re-delivery) instead of a break. The synthetic events exist only in this
 * view; their strategy and reason fields mean nothing.
 */
function addRewindsAsResets(history: readonly HistoryEvent[]): AugmentedHistory {
  const events: HistoryEvent[] = [];
  const originalIndex: number[] = [];
  history.forEach((event, index) => {
    events.push(event);
    originalIndex.push(index);
    const batch = observationOf(event, "member.batch");
    if (batch === undefined || event.ev !== "obs") return;
    for (const [topic, partitions] of Object.entries(batch.rewoundTo)) {
      for (const [partition, offset] of Object.entries(partitions)) {
        const reset: ObservationRecord = {
          t: event.t,
          ev: "obs",
          actor: event.actor,
          o: { type: "fetch.reset", topic, partition: Number(partition), strategy: "earliest", offset, reason: "out-of-range" },
        };
        events.push(reset);
        originalIndex.push(index);
      }
    }
  });
  return { events, originalIndex };
}

/** Indices into an augmented history mapped back to the original history's. */
export function originalIndices(history: AugmentedHistory, indices: readonly number[]): number[] {
  return indices.map((i) => history.originalIndex[i] ?? i);
}

/** withRewindsAsResets, computed once per history: several checkers of a run read it. */
export const withRewindsAsResets: (events: readonly HistoryEvent[]) => AugmentedHistory = memoByHistory(addRewindsAsResets);
