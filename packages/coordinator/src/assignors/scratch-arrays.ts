/**
 * Typed arrays lent to one computation at a time and kept for the next,
 * each in a numbered slot, grown (to twice the length asked, at least) when
 * too short. An assignment over 10,000 partitions needs a dozen arrays of
 * that size; a join storm computes one per member that joins, and fresh
 * arrays each time would be as many off-heap allocations for the GC to
 * track. Whoever borrows a slot must not hold it past its own computation.
 */
/** Slot `slot` of `arrays`, replaced by a new array (twice the old length, at least `length`) when shorter than `length`. */
function lent<A extends Int32Array | Uint8Array>(arrays: A[], slot: number, length: number, make: new (length: number) => A): A {
  let array = arrays[slot];
  if (array === undefined || array.length < length) {
    array = new make(Math.max(length, 2 * (array?.length ?? 0)));
    arrays[slot] = array;
  }
  return array;
}

export class ScratchArrays {
  readonly #int32: Int32Array[] = [];
  readonly #uint8: Uint8Array[] = [];

  /** Slot `slot`'s Int32Array, at least `length` long, holding whatever its last user left in it. */
  int32(slot: number, length: number): Int32Array {
    return lent(this.#int32, slot, length, Int32Array);
  }

  /** Slot `slot`'s Int32Array, at least `length` long, with [0, length) zeroed. */
  zeroedInt32(slot: number, length: number): Int32Array {
    const array = this.int32(slot, length);
    array.fill(0, 0, length);
    return array;
  }

  /** Slot `slot`'s Uint8Array, at least `length` long, with [0, length) zeroed. */
  zeroedUint8(slot: number, length: number): Uint8Array {
    const array = lent(this.#uint8, slot, length, Uint8Array);
    array.fill(0, 0, length);
    return array;
  }
}
