import { recordRangesOf } from "./record-ranges.js";
import type { ConsumedRecord } from "./record-source.js";

/**
 * The offsets one poll handed out of one partition: from firstOffset to
 * lastOffset, `count` records (a read_committed fetch can leave gaps for
 * transaction markers and aborted records). The member.records observation
 * holds these as they are (a type, not an interface, so it is a JsonValue).
 */
export type PolledRange = {
  readonly topic: string;
  readonly partition: number;
  readonly firstOffset: number;
  readonly lastOffset: number;
  readonly count: number;
};

/**
 * What one poll() hands the application: how many records, their ranges
 * (one per partition, in the order the records first hold each), and the
 * records themselves, in order. The ranges are what the poll loop needs (the
 * member.records observation, a batch's processing time); the records are
 * made on demand where a source can describe them by ranges alone (the
 * synthetic source), so an application that never reads a record never pays
 * for an object per record.
 */
export interface PolledRecords {
  readonly count: number;
  readonly ranges: readonly PolledRange[];
  /** The records, in the order poll() took them; the same array on every call. */
  records(): readonly ConsumedRecord[];
}

const NO_CONSUMED_RECORDS: readonly ConsumedRecord[] = Object.freeze([]);

/** A poll that returned nothing. */
export const NO_RECORDS: PolledRecords = Object.freeze({
  count: 0,
  ranges: Object.freeze([]) as readonly PolledRange[],
  records: () => NO_CONSUMED_RECORDS,
});

/** A poll's records as a list (the fetcher's): the ranges are counted from the records when first asked for. */
export class ListedRecords implements PolledRecords {
  readonly #records: readonly ConsumedRecord[];
  #ranges: readonly PolledRange[] | null = null;

  constructor(records: readonly ConsumedRecord[]) {
    this.#records = records;
  }

  get count(): number {
    return this.#records.length;
  }

  get ranges(): readonly PolledRange[] {
    this.#ranges ??= recordRangesOf(this.#records);
    return this.#ranges;
  }

  records(): readonly ConsumedRecord[] {
    return this.#records;
  }
}
