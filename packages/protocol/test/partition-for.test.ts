import { describe, expect, it } from "vitest";
import { javaStringHashCode, kafkaAbs, partitionFor } from "../src/index.js";

describe("partitionFor", () => {
  it("matches Kafka for the groups of spec 5", () => {
    const expected = { "my-group": 12, "test-group": 12, group1: 40, a: 47, "": 0 };
    for (const [group, partition] of Object.entries(expected)) {
      expect(partitionFor(group)).toBe(partition);
    }
  });

  it("hashes like Java's String.hashCode, over UTF-16 code units", () => {
    expect(javaStringHashCode("hello")).toBe(99162322);
    expect(javaStringHashCode("")).toBe(0);
    // "\u{1F600}" is the surrogate pair D83D DE00: 31*0xD83D + 0xDE00.
    expect(javaStringHashCode("\u{1F600}")).toBe(31 * 0xd83d + 0xde00);
  });

  it("maps a hash of Integer.MIN_VALUE to partition 0, as Utils.abs does", () => {
    expect(javaStringHashCode("polygenelubricants")).toBe(-2147483648);
    expect(kafkaAbs(-2147483648)).toBe(0);
    expect(partitionFor("polygenelubricants")).toBe(0);
    expect(partitionFor("polygenelubricants", 7)).toBe(0);
  });

  it("honours the partition count and rejects a bad one", () => {
    expect(partitionFor("group1", 1)).toBe(0);
    expect(() => partitionFor("g", 0)).toThrow(RangeError);
  });
});
