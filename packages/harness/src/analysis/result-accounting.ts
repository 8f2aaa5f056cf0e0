import { getOrCreate, type Micros, parseTpKey } from "@kcsim/protocol";
import { drainCutoffUs } from "../checkers/drain-time.js";
import type { HistoryEvent } from "../history/history-event.js";
import type { SimulationSpec } from "../kernel/simulation-spec.js";
import { acknowledgedRecords, isReadCommittedVisible } from "./acknowledged-records.js";
import { type DuplicateCause, type DuplicateCauses, duplicateCausesOf } from "./duplicate-causes.js";
import { memoByHistoryAndSpec } from "./history-memo.js";
import { type OutputResults, outputResults, type ResultCopy } from "./output-results.js";
import { consumeProcessProduceGroups } from "./processing-groups.js";
import { type StaleMarkerStory, type StaleTxnMarkers, staleTxnMarkersOf } from "./stale-txn-markers.js";

/** An input record whose result is in the output more than once. */
export interface DuplicateResult {
  readonly input: string;
  readonly copies: readonly ResultCopy[];
  /** Why it was processed more than once (null: nothing explains it). */
  readonly cause: DuplicateCause | null;
  /** How a copy that should not have been visible was committed: by a late marker of an earlier transaction (StaleTxnMarkers). */
  readonly staleMarker: StaleMarkerStory | null;
}

/** How one consume-process-produce group's output accounts for its committed input. */
export interface ResultAccount {
  readonly groupId: string;
  readonly transactional: boolean;
  readonly outputTopic: string;
  readonly results: OutputResults;
  /** Committed input records acknowledged before the drain cut-off with no result, by input partition. */
  readonly missing: ReadonlyMap<string, readonly { readonly offset: number; readonly t: Micros; readonly index: number }[]>;
  readonly duplicates: readonly DuplicateResult[];
  /** Results of input records a read_committed consumer must never see (in an aborted or still open transaction). */
  readonly strays: readonly { readonly input: string; readonly copy: ResultCopy }[];
  /** Committed input records (acknowledged, not in an aborted or open transaction) of the group's input topics. */
  readonly committedInput: number;
}

/**
 * Rule 5 for consume-process-produce groups: matches every committed input
 * record of the group's input topics (`producer.ack` outside aborted
 * transactions, see acknowledgedRecords) with the results found in its
 * output topic by read_committed readers (outputResults), and attributes
 * every duplicate to the re-delivery that caused it (DuplicateCauses) and,
 * when a copy was committed by a late marker of an earlier transaction of
 * its producer, tells how (StaleTxnMarkers).
 */
function accountResultsOf(events: readonly HistoryEvent[], spec: SimulationSpec): ResultAccount[] {
  const groups = consumeProcessProduceGroups(spec);
  if (groups.length === 0) return [];
  const log = acknowledgedRecords(events);
  const cutoff = drainCutoffUs(spec);
  let causes: DuplicateCauses | null = null;
  let markers: StaleTxnMarkers | null = null;
  return groups.map((group) => {
    const results = outputResults(events, group.outputTopic);
    const missing = new Map<string, { offset: number; t: Micros; index: number }[]>();
    let committedInput = 0;
    for (const [tp, records] of log) {
      if (!group.inputTopics.has(parseTpKey(tp).topic)) continue;
      for (const [offset, record] of records) {
        if (!isReadCommittedVisible(record)) continue;
        committedInput++;
        if (!results.byInput.has(`${tp}@${offset}`) && record.t <= cutoff) {
          getOrCreate(missing, tp, () => []).push({ offset, t: record.t, index: record.index });
        }
      }
    }
    // Records whose produce failed may be in the log all the same (a timed-out request that was written): only inputs
    // known to be invisible to read_committed (in an aborted or open transaction) must have no result.
    const duplicates: DuplicateResult[] = [];
    const strays: { input: string; copy: ResultCopy }[] = [];
    for (const [input, copies] of results.byInput) {
      const at = input.lastIndexOf("@");
      const tp = input.slice(0, at);
      const offset = Number(input.slice(at + 1));
      const record = log.get(tp)?.get(offset);
      if (record !== undefined && !isReadCommittedVisible(record)) {
        for (const copy of copies) strays.push({ input, copy });
      } else if (copies.length > 1) {
        causes ??= duplicateCausesOf(events);
        // Only a transactional producer's output is committed by markers: other groups' duplicates have no such story.
        let staleMarker: StaleMarkerStory | null = null;
        if (group.transactional) {
          markers ??= staleTxnMarkersOf(events);
          for (const copy of copies) staleMarker ??= markers.storyOf(copy.outputTp, copy.outputOffset);
        }
        duplicates.push({ input, copies, cause: causes.causeOf(tp, offset, group.actors), staleMarker });
      }
    }
    duplicates.sort((a, b) => (a.copies[1]?.t ?? 0) - (b.copies[1]?.t ?? 0));
    return {
      groupId: group.groupId,
      transactional: group.transactional,
      outputTopic: group.outputTopic,
      results,
      missing,
      duplicates,
      strays,
      committedInput,
    };
  });
}

/** accountResults, computed once per history: several checkers of a run read it. */
export const accountResults: (events: readonly HistoryEvent[], spec: SimulationSpec) => ResultAccount[] =
  memoByHistoryAndSpec(accountResultsOf);
