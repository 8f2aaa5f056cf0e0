import type { HistoryEvent } from "../history/history-event.js";
import type { SimulationSpec } from "../kernel/simulation-spec.js";
import { type DuplicateCause, type DuplicateCauses, duplicateCausesOf } from "./duplicate-causes.js";
import { memoByHistoryAndSpec } from "./history-memo.js";
import { groupOfActors } from "./processing-groups.js";
import { type SinkRow, sinkStores } from "./sink-stores.js";

/** An input record that has more than one row in a group's external store. */
export interface SinkDuplicate {
  readonly groupId: string;
  readonly mode: "append" | "upsert";
  readonly input: string;
  readonly rows: readonly SinkRow[];
  readonly cause: DuplicateCause | null;
}

/**
 * The rows of every sink store (sinkStores) that repeat an input record,
 * each attributed to the re-delivery that wrote it again (DuplicateCauses,
 * over the group's member actors). An upsert store should have none: a
 * re-delivered record overwrites its row.
 */
function findSinkDuplicates(events: readonly HistoryEvent[], spec: SimulationSpec): SinkDuplicate[] {
  const stores = sinkStores(events);
  const groupOf = groupOfActors(spec);
  let causes: DuplicateCauses | null = null;
  const duplicates: SinkDuplicate[] = [];
  for (const store of stores.values()) {
    const actors = new Set([...groupOf].filter(([, groupId]) => groupId === store.groupId).map(([actor]) => actor));
    for (const [input, rows] of store.rowsByInput) {
      const [row, again] = rows;
      if (row === undefined || again === undefined) continue;
      causes ??= duplicateCausesOf(events);
      const cause = causes.causeOf(row.inputTp, row.inputOffset, actors);
      duplicates.push({ groupId: store.groupId, mode: store.mode, input, rows, cause });
    }
  }
  return duplicates.sort((a, b) => (a.rows[1]?.t ?? 0) - (b.rows[1]?.t ?? 0));
}

/** sinkDuplicates, computed once per history: several checkers of a run read it. */
export const sinkDuplicates: (events: readonly HistoryEvent[], spec: SimulationSpec) => SinkDuplicate[] =
  memoByHistoryAndSpec(findSinkDuplicates);
