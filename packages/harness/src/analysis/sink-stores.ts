import { getOrCreate, type Micros, tpKey } from "@kcsim/protocol";
import type { HistoryEvent } from "../history/history-event.js";
import { observationOf } from "./observations.js";

/** A row of an application's external store, as the write that made (or last overwrote) it. */
export interface SinkRow {
  /** The input record it holds the processing of. */
  readonly inputTp: string;
  readonly inputOffset: number;
  readonly value: string | null;
  /** The application actor that wrote it, when, and its `sink.write` event. */
  readonly actor: string;
  readonly t: Micros;
  readonly index: number;
}

/** The external store of one consumer group's application: its rows, by input record (`<topic>-<partition>@<offset>`). */
export interface SinkStore {
  readonly groupId: string;
  readonly mode: "append" | "upsert";
  readonly writes: number;
  readonly rowsByInput: ReadonlyMap<string, readonly SinkRow[]>;
}

/**
 * Rebuilds every group's store from its `sink.write` observations: an
 * append write adds a row, an upsert write replaces the row with the same
 * store key (`row`). What remains is what the external system holds at
 * the end of the run.
 */
export function sinkStores(events: readonly HistoryEvent[]): Map<string, SinkStore> {
  const stores = new Map<string, { mode: "append" | "upsert"; writes: number; rows: Map<string, SinkRow> }>();
  events.forEach((event, index) => {
    const write = observationOf(event, "sink.write");
    if (write === undefined || event.ev !== "obs") return;
    const store = getOrCreate(stores, write.groupId, () => ({ mode: write.mode, writes: 0, rows: new Map<string, SinkRow>() }));
    const row: SinkRow = {
      inputTp: tpKey(write.inputTopic, write.inputPartition),
      inputOffset: write.inputOffset,
      value: write.value,
      actor: event.actor,
      t: event.t,
      index,
    };
    store.rows.set(write.row ?? `write#${store.writes}`, row);
    store.writes++;
  });
  const out = new Map<string, SinkStore>();
  for (const [groupId, { mode, writes, rows }] of stores) {
    const rowsByInput = new Map<string, SinkRow[]>();
    for (const row of rows.values()) getOrCreate(rowsByInput, `${row.inputTp}@${row.inputOffset}`, () => []).push(row);
    out.set(groupId, { groupId, mode, writes, rowsByInput });
  }
  return out;
}
