import { decodeUnchecked, encodeValue } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { MemoryDurableLog } from "../src/index.js";

describe("MemoryDurableLog", () => {
  it("reads a plain record back as a decoded copy of its frame would read, sharing nothing with the appender or other reads", () => {
    const log = new MemoryDurableLog();
    const record = { type: "x", key: { group: "g", partitions: [1, 2, 3] }, value: null, gone: undefined, ratio: 0.5, big: 2 ** 40 };
    log.append(record);
    const [read] = log.readAll() as (typeof record)[];
    const decoded = decodeUnchecked(encodeValue(record)) as typeof record;
    expect(read).toEqual(decoded);
    expect(Object.keys(read as object)).toEqual(Object.keys(decoded));
    // The appender's objects stay its own: changing them later changes nothing in the log.
    expect(Object.isFrozen(record) || Object.isFrozen(record.key.partitions)).toBe(false);
    record.key.partitions.push(9);
    // A reader's copy is its own too.
    read?.key.partitions.push(4);
    expect((log.readAll()[0] as typeof record).key.partitions).toEqual([1, 2, 3]);
  });

  it("keeps a record the codec would not give back as it is as its frame, decoded at every read", () => {
    const log = new MemoryDurableLog();
    const bytes = { payload: new Uint8Array([1, 2, 3]), nested: { n: 1 } };
    log.append(bytes);
    log.append({ offset: -0 });
    log.append({ name: "lone \ud800" });
    bytes.nested.n = 2;
    const first = log.readAll() as Record<string, unknown>[];
    const second = log.readAll();
    const copy = first[0] as typeof bytes;
    expect([...copy.payload]).toEqual([1, 2, 3]);
    expect(copy.nested).toEqual({ n: 1 });
    expect(first[0]).not.toBe(second[0]);
    expect(Object.is(first[1]?.offset, 0)).toBe(true);
    expect(first[2]?.name).toBe("lone \ufffd");
  });

  it("makes the frames a mirror needs, equal to encoding each record at its append", () => {
    const records = [{ boot: 1 }, { seq: 2, list: ["a", "b"] }, { payload: new Uint8Array([9]) }];
    const mirrored = new MemoryDurableLog();
    const lasts = records.map((record) => {
      mirrored.append(record);
      return mirrored.last();
    });
    const expected = records.map((record) => encodeValue(record));
    expect(lasts).toEqual(expected);
    expect(mirrored.encoded()).toEqual(expected);
    const rebuilt = new MemoryDurableLog(mirrored.encoded());
    expect(rebuilt.readAll()).toEqual(mirrored.readAll());
  });

  it("makes no frame per append when it is not mirrored, but still hands every frame out on demand", () => {
    const log = new MemoryDurableLog([], { mirrored: false });
    log.append({ seq: 1 });
    expect(log.last()).toBeUndefined();
    expect(log.encoded()).toEqual([encodeValue({ seq: 1 })]);
    expect(log.length).toBe(1);
  });
});
