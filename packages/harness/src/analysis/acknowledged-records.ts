import { getOrCreate, type Micros, tpKey } from "@kcsim/protocol";
import type { HistoryEvent } from "../history/history-event.js";
import { memoByHistory } from "./history-memo.js";
import { observationOf } from "./observations.js";

/**
 * What became of an acknowledged record: written outside any transaction
 * (`plain`), or by a transactional producer whose transaction the
 * partition later marks `committed` or `aborted` (the first COMMIT or ABORT
 * marker of that producer after the record), or still `open` (no marker
 * yet: the transaction never ended within the run). A read_committed
 * consumer sees `plain` and `committed` records only.
 */
export type RecordFate = "plain" | "committed" | "aborted" | "open";

export interface AcknowledgedRecord {
  /** When the producer saw it acknowledged, and the `producer.ack` event (history index). */
  readonly t: Micros;
  readonly index: number;
  readonly transactionalId: string | null;
  readonly fate: RecordFate;
}

/** Acknowledged records by `topic-partition`, then offset. */
export type AcknowledgedLog = ReadonlyMap<string, ReadonlyMap<number, AcknowledgedRecord>>;

export function isReadCommittedVisible(record: AcknowledgedRecord): boolean {
  return record.fate === "plain" || record.fate === "committed";
}

interface Marker {
  readonly offset: number;
  readonly committed: boolean;
}

/** The first of the markers (ascending offsets) past `offset`: a binary search, as every acknowledged record asks. */
function firstMarkerAfter(markers: readonly Marker[] | undefined, offset: number): Marker | undefined {
  if (markers === undefined) return undefined;
  let lo = 0;
  let hi = markers.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((markers[mid] as Marker).offset > offset) hi = mid;
    else lo = mid + 1;
  }
  return markers[lo];
}

/**
 * Every record a producer saw acknowledged with its offsets (`producer.ack`
 * with error 0; DUPLICATE_SEQUENCE_NUMBER acknowledgements carry no offsets
 * and are left out), each with its fate from the partitions' transaction
 * markers (`broker.txn-marker`, by producer id).
 */
function collectAcknowledgedRecords(events: readonly HistoryEvent[]): AcknowledgedLog {
  const acks: { tp: string; offset: number; producerId: number; transactionalId: string | null; t: Micros; index: number }[] = [];
  /** tp -> producer id -> marker offsets and results, in log order */
  const markers = new Map<string, Map<number, Marker[]>>();
  events.forEach((event, index) => {
    const ack = observationOf(event, "producer.ack");
    if (ack !== undefined && ack.errorCode === 0 && ack.baseOffset >= 0) {
      const tp = tpKey(ack.topic, ack.partition);
      for (let offset = ack.baseOffset; offset <= ack.lastOffset; offset++) {
        acks.push({ tp, offset, producerId: ack.producerId, transactionalId: ack.transactionalId, t: event.t, index });
      }
      return;
    }
    const marker = observationOf(event, "broker.txn-marker");
    if (marker !== undefined) {
      const byProducer = getOrCreate(markers, tpKey(marker.topic, marker.partition), () => new Map());
      getOrCreate(byProducer, marker.producerId, () => []).push({ offset: marker.offset, committed: marker.committed });
    }
  });
  for (const byProducer of markers.values()) for (const list of byProducer.values()) list.sort((a, b) => a.offset - b.offset);
  const log = new Map<string, Map<number, AcknowledgedRecord>>();
  for (const ack of acks) {
    let fate: RecordFate = "plain";
    if (ack.transactionalId !== null) {
      const ending = firstMarkerAfter(markers.get(ack.tp)?.get(ack.producerId), ack.offset);
      fate = ending === undefined ? "open" : ending.committed ? "committed" : "aborted";
    }
    getOrCreate(log, ack.tp, () => new Map()).set(ack.offset, { t: ack.t, index: ack.index, transactionalId: ack.transactionalId, fate });
  }
  return log;
}

/** acknowledgedRecords, computed once per history: several checkers of a run read it. */
export const acknowledgedRecords: (events: readonly HistoryEvent[]) => AcknowledgedLog = memoByHistory(collectAcknowledgedRecords);
