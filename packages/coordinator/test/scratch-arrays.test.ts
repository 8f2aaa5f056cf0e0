import { describe, expect, it } from "vitest";
import { ScratchArrays } from "../src/assignors/scratch-arrays.js";

describe("ScratchArrays", () => {
  it("lends the same array from a slot while it is long enough, a longer one when it is not", () => {
    const scratch = new ScratchArrays();
    const first = scratch.int32(0, 10);
    expect(first.length).toBeGreaterThanOrEqual(10);
    first[3] = 7;
    const again = scratch.int32(0, 5);
    expect(again).toBe(first);
    expect(again[3]).toBe(7); // int32 leaves the contents as they were
    const grown = scratch.int32(0, 11);
    expect(grown).not.toBe(first);
    expect(grown.length).toBeGreaterThanOrEqual(20); // at least doubled: a growing series of asks reallocates rarely
  });

  it("keeps slots apart, Int32 and Uint8 slots too", () => {
    const scratch = new ScratchArrays();
    const a = scratch.int32(0, 4);
    const b = scratch.int32(1, 4);
    const c = scratch.zeroedUint8(0, 4);
    expect(a).not.toBe(b);
    a[0] = 1;
    b[0] = 2;
    c[0] = 3;
    expect([scratch.int32(0, 4)[0], scratch.int32(1, 4)[0], scratch.zeroedUint8(0, 1)[0]]).toEqual([1, 2, 0]);
  });

  it("zeroes exactly the asked prefix", () => {
    const scratch = new ScratchArrays();
    const ints = scratch.zeroedInt32(0, 8);
    const bytes = scratch.zeroedUint8(0, 8);
    ints.fill(9);
    bytes.fill(9);
    expect([...scratch.zeroedInt32(0, 5).subarray(0, 8)]).toEqual([0, 0, 0, 0, 0, 9, 9, 9]);
    expect([...scratch.zeroedUint8(0, 5).subarray(0, 8)]).toEqual([0, 0, 0, 0, 0, 9, 9, 9]);
    expect([...scratch.zeroedUint8(1, 3)]).toEqual([0, 0, 0]);
  });
});
