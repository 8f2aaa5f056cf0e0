/**
 * Typed arrays lent to one computation at a time and kept for the next,
 * each in a numbered slot, grown (to twice the length asked, at least) when
 * too short. An assignment over 10,000 partitions needs a dozen arrays of
 * that size; a join storm computes one per member that joins, and fresh
 * arrays each time would be as many off-heap allocations for the GC to
 * track. Whoever borrows a slot must not hold it past its own computation.
 */
export class ScratchArrays {
  readonly #int32: Int32Array[] = [];
  readonly #uint8: Uint8Array[] = [];

  /** Slot `slot`'s Int32Array, at least `length` long, holding whatever its last user left in it. */
  int32(slot: number, length: number): Int32Array {
    let array = this.#int32[slot];
    if (array === undefined || array.length < length) {
      array = new Int32Array(Math.max(length, 2 * (array?.length ?? 0)));
      this.#int32[slot] = array;
    }
    return array;
  }

  /** Slot `slot`'s Int32Array, at least `length` long, with [0, length) zeroed. */
  zeroedInt32(slot: number, length: number): Int32Array {
    const array = this.int32(slot, length);
    array.fill(0, 0, length);
    return array;
  }

  /** Slot `slot`'s Uint8Array, at least `length` long, with [0, length) zeroed. */
  zeroedUint8(slot: number, length: number): Uint8Array {
    let array = this.#uint8[slot];
    if (array === undefined || array.length < length) {
      array = new Uint8Array(Math.max(length, 2 * (array?.length ?? 0)));
      this.#uint8[slot] = array;
      return array;
    }
    array.fill(0, 0, length);
    return array;
  }
}
