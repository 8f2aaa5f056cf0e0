import type { ConsumedRecord, PolledRange, PolledRecords } from "@kcsim/fetch";
import { SyntheticRecord } from "./synthetic-record.js";

/** When a synthetic record arrived and how big it is: all a record needs besides its place (the source's rate). */
export interface SyntheticRecordClock {
  arrivalTime(offset: number): number;
  readonly recordBytes: number;
}

/**
 * One poll of the SyntheticRecordSource: a range of offsets per partition.
 * Its records are made only if the application reads them (a sink, a
 * record-by-record processor): each is its place, its arrival time and the
 * source's record size, so the ranges say everything, and a plain timed
 * batch (most scenarios) never needs an object per record.
 */
export class SyntheticRecords implements PolledRecords {
  readonly count: number;
  readonly ranges: readonly PolledRange[];
  readonly #clock: SyntheticRecordClock;
  #records: SyntheticRecord[] | null = null;

  constructor(ranges: readonly PolledRange[], count: number, clock: SyntheticRecordClock) {
    this.ranges = ranges;
    this.count = count;
    this.#clock = clock;
  }

  records(): readonly ConsumedRecord[] {
    if (this.#records !== null) return this.#records;
    const clock = this.#clock;
    const records: SyntheticRecord[] = [];
    for (const { topic, partition, firstOffset, lastOffset } of this.ranges) {
      for (let offset = firstOffset; offset <= lastOffset; offset++)
        records.push(new SyntheticRecord(topic, partition, offset, Math.floor(clock.arrivalTime(offset) / 1000), clock.recordBytes));
    }
    this.#records = records;
    return records;
  }
}
