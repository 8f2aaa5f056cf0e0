import { describe, expect, it } from "vitest";
import { ListedRecords, NO_RECORDS } from "../src/index.js";
import { consumedRecord as record } from "./consumed-record.js";

describe("PolledRecords", () => {
  it("a listed poll is its records, with ranges counted from them in the order each partition first comes", () => {
    const records = [record("T1", 1, 4), record("T1", 1, 5), record("T2", 0, 9), record("T1", 1, 7)];
    const polled = new ListedRecords(records);
    expect(polled.count).toBe(4);
    expect(polled.records()).toBe(records);
    expect(polled.ranges).toEqual([
      { topic: "T1", partition: 1, firstOffset: 4, lastOffset: 7, count: 3 },
      { topic: "T2", partition: 0, firstOffset: 9, lastOffset: 9, count: 1 },
    ]);
    // Counted once: the observation and anything after it see the same ranges.
    expect(polled.ranges).toBe(polled.ranges);
  });

  it("an empty poll holds nothing and cannot be changed", () => {
    expect(NO_RECORDS.count).toBe(0);
    expect(NO_RECORDS.ranges).toEqual([]);
    expect(NO_RECORDS.records()).toEqual([]);
    expect(Object.isFrozen(NO_RECORDS) && Object.isFrozen(NO_RECORDS.ranges) && Object.isFrozen(NO_RECORDS.records())).toBe(true);
  });
});
