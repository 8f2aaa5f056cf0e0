import { Reader } from "../io/reader.js";
import { Writer } from "../io/writer.js";
import { WireError } from "../wire-error.js";
import type { WireRecord } from "./record-batch.js";

/**
 * Transaction markers: the one record of a control batch. Its key is
 * (version int16 = 0, type int16: 0 ABORT, 1 COMMIT) and its value
 * (version int16 = 0, coordinatorEpoch int32), as Kafka's
 * ControlRecordType / EndTransactionMarker write them.
 */
export type ControlRecordType = "ABORT" | "COMMIT";

const TYPE_CODES: Readonly<Record<ControlRecordType, number>> = { ABORT: 0, COMMIT: 1 };

export interface TransactionMarker {
  readonly type: ControlRecordType;
  readonly coordinatorEpoch: number;
}

export function transactionMarkerRecord(marker: TransactionMarker, timestampDelta = 0n): WireRecord {
  const key = new Writer(4).int16(0).int16(TYPE_CODES[marker.type]).finish();
  const value = new Writer(6).int16(0).int32(marker.coordinatorEpoch).finish();
  return { attributes: 0, timestampDelta, offsetDelta: 0, key, value, headers: [] };
}

/** Reads the marker of a control batch's record; throws WireError for anything else. */
export function readTransactionMarker(record: WireRecord): TransactionMarker {
  if (record.key === null || record.value === null) throw new WireError("malformed", "a control record needs a key and a value");
  const key = new Reader(record.key);
  key.int16(); // version
  const code = key.int16();
  const type = code === 0 ? "ABORT" : code === 1 ? "COMMIT" : undefined;
  if (type === undefined) throw new WireError("malformed", `control record type ${code} is not a transaction marker`);
  const value = new Reader(record.value);
  value.int16(); // version
  return { type, coordinatorEpoch: value.int32() };
}
