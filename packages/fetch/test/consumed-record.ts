import type { ConsumedRecord } from "../src/index.js";

/** A record as an application gets it, with only its place set (what record ranges are counted from). */
export const consumedRecord = (topic: string, partition: number, offset: number): ConsumedRecord => ({
  topic,
  partition,
  offset,
  timestampMs: 0,
  key: null,
  value: null,
  sizeInBytes: 1,
});
