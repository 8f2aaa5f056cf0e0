import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeUnchecked, encodeValue, isSealedWhole, type Message, sealMessage, ValueTape } from "../src/index.js";

/**
 * Values the tape models: every primitive the codec writes (doubles with
 * -0 and NaN, integers across the msgpack widths, bigints at the 64-bit
 * limits, strings with lone surrogates), byte arrays, dense and sparse
 * arrays, plain objects with any keys but `__proto__` and `constructor`
 * (integer-like keys included: their order is for-in's).
 */
const modelled = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom(null, undefined, true, false, -0, 0, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 32, -(2 ** 31) - 1),
    fc.double(),
    fc.integer(),
    fc.maxSafeInteger(),
    fc.constantFrom(-0x8000000000000000n, 0xffffffffffffffffn, 0n, -1n),
    fc.bigInt({ min: -(2n ** 63n), max: 2n ** 64n - 1n }),
    fc.string({ unit: "binary" }),
    fc.uint8Array({ maxLength: 300 }),
    fc.uint8Array({ maxLength: 40 }).map((bytes) => Buffer.from(bytes)),
    fc.array(tie("value"), { maxLength: 20 }),
    fc.sparseArray(tie("value"), { maxLength: 20 }),
    fc.dictionary(
      fc
        .oneof(fc.string(), fc.nat({ max: 50 }).map(String), fc.constantFrom("hasOwnProperty", "toString", "length", "-1", "1.5", ""))
        .filter((key) => key !== "__proto__" && key !== "constructor"),
      tie("value"),
      { maxKeys: 12, noNullPrototype: true },
    ),
  ),
})).value;

/**
 * Whether two values are the same to the last detail an actor could see:
 * Object.is for primitives (so -0 is not 0), the same class (a Buffer is not
 * a plain Uint8Array), the same keys in the same order, no holes unmatched.
 */
function same(a: unknown, b: unknown): boolean {
  if (typeof a !== "object" || a === null || typeof b !== "object" || b === null) return Object.is(a, b);
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  if (a instanceof Uint8Array) return Buffer.compare(a, b as Uint8Array) === 0;
  const keys = Object.keys(a);
  const otherKeys = Object.keys(b);
  if (keys.length !== otherKeys.length || keys.some((key, i) => key !== otherKeys[i])) return false;
  if (Array.isArray(a) && a.length !== (b as unknown[]).length) return false;
  return keys.every((key) => same((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

/** The bytes a value encodes to, or the error the codec throws for it. */
function encoding(value: unknown): Uint8Array | string {
  try {
    return encodeValue(value);
  } catch (error) {
    return String(error);
  }
}

describe("ValueTape", () => {
  it("rebuilds every value it models as the codec gives it back, and it encodes byte for byte as the original did", () => {
    fc.assert(
      fc.property(fc.array(modelled, { minLength: 1, maxLength: 8 }), (values) => {
        const tape = new ValueTape();
        const frames = values.map(encodeValue);
        for (const value of values) expect(tape.write(value)).toBe(true);
        const reader = tape.reader();
        for (const frame of frames) {
          const rebuilt = reader.next();
          expect(same(rebuilt, decodeUnchecked(frame))).toBe(true);
          expect(Buffer.compare(encodeValue(rebuilt), frame)).toBe(0);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("keeps a value sealed whole by reference, and reads back a fresh copy of it as the codec gives it", () => {
    // A batch as a broker appends it: sent once (sealed), then sent again (sized whole: shared shapes, no bytes).
    const batch = { topicId: "t", partitions: [{ name: "a", partitionIndexes: [0, -0, 2 ** 40, 1.5] }, [null, true, "x"]] };
    const send = (body: unknown) => sealMessage({ type: "SimPing", body } as unknown as Message);
    send(batch);
    expect(isSealedWhole(batch)).toBe(false);
    send(batch);
    expect(isSealedWhole(batch)).toBe(true);
    const record = { op: "append", batch, atMs: 7 };
    const frame = encodeValue(record);
    const tape = new ValueTape();
    expect(tape.write(record)).toBe(true);
    record.atMs = 8;
    for (const reader of [tape.reader(), tape.reader()]) {
      const rebuilt = reader.next() as typeof record;
      expect(same(rebuilt, decodeUnchecked(frame))).toBe(true);
      expect(Buffer.compare(encodeValue(rebuilt), frame)).toBe(0);
      // A fresh copy each time, thawed like any decoded value: never the sealed batch itself.
      expect(rebuilt.batch).not.toBe(batch);
      expect(Object.isFrozen(rebuilt.batch)).toBe(false);
    }
  });

  it("copies a frozen value that was not sealed whole: its insides may still change", () => {
    const inner = { n: 1 };
    const shallow = Object.freeze({ inner, list: [1, 2] });
    const tape = new ValueTape();
    tape.write({ shallow });
    inner.n = 2;
    shallow.list.push(3);
    expect(tape.reader().next()).toEqual({ shallow: { inner: { n: 1 }, list: [1, 2] } });
  });

  it("reads back what the codec's round trip changes as the round trip gives it", () => {
    // biome-ignore lint/suspicious/noSparseArray: a hole is what this case is about (the codec reads it back as undefined)
    const value = { zero: -0, lone: "a\ud800b", pair: "\ud83d\ude00", sparse: [1, , 3], bytes: new Uint8Array([1, 2]) };
    const tape = new ValueTape();
    tape.write(value);
    const rebuilt = tape.reader().next() as typeof value;
    expect(same(rebuilt, decodeUnchecked(encodeValue(value)))).toBe(true);
    expect(Object.is(rebuilt.zero, 0)).toBe(true);
    expect(rebuilt.lone).toBe("a\ufffdb");
    expect(rebuilt.pair).toBe(value.pair);
    expect(1 in rebuilt.sparse).toBe(true);
    expect(rebuilt.bytes).toBeInstanceOf(Buffer);
  });

  it("refuses what it does not model and stays as it was (the caller encodes those)", () => {
    class Point {
      constructor(
        readonly x: number,
        readonly y: number,
      ) {}
    }
    const refused: unknown[] = [
      new Map([["a", 1]]),
      new Set([1]),
      new Date(0),
      new Point(1, 2),
      new Int32Array([1, 2]),
      new ArrayBuffer(2),
      () => 1,
      Symbol("s"),
      2n ** 64n,
      -(2n ** 63n) - 1n,
      Object.create(null),
      JSON.parse('{"__proto__": 1}'),
      { constructor: 1 },
      { nested: [1, { deeper: new Map() }] },
    ];
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    refused.push(cyclic);
    const tape = new ValueTape();
    tape.write({ before: [1, "x"] });
    for (const value of refused) expect(tape.write(value)).toBe(false);
    tape.write({ after: new Uint8Array([7]) });
    const reader = tape.reader();
    expect(reader.next()).toEqual({ before: [1, "x"] });
    expect(encoding(reader.next())).toEqual(encoding({ after: new Uint8Array([7]) }));
    expect(encoding(2n ** 64n)).toMatch(/RangeError/);
  });

  it("reads back values written across many chunks, refused values at chunk boundaries included", () => {
    // Enough to fill chunks of tags (one per value), cells (integers, shapes, lengths) and references
    // (strings, other numbers) far past their largest size.
    const rows = Array.from({ length: 30_000 }, (_, i) => ["Row", i, i * 0.5, { partition: i % 7, offsets: [i, i + 1] }]);
    const tape = new ValueTape();
    const written: unknown[] = [];
    rows.forEach((row, i) => {
      expect(tape.write(row)).toBe(true);
      written.push(row);
      // A refused value leaves the tape as it was, even when its walk filled a chunk or more before the refusal.
      if (i % 997 === 0)
        expect(tape.write([...Array.from({ length: i % 9000 }, (_, k) => (k % 3 === 0 ? `s${k}` : k + 0.25 * (k % 2))), new Map()])).toBe(
          false,
        );
    });
    const reader = tape.reader();
    for (const row of written) expect(reader.next()).toEqual(row);
  });

  it("keeps a value as it was written: changing the original afterwards changes nothing", () => {
    const bytes = new Uint8Array([1, 2, 3]);
    const original = { list: [1, { n: 2 }], bytes, name: "a" };
    const tape = new ValueTape();
    tape.write(original);
    const before = encodeValue(original);
    original.list.push(3);
    (original.list[1] as { n: number }).n = 5;
    original.name = "b";
    bytes[0] = 99;
    expect(encodeValue(tape.reader().next())).toEqual(before);
  });

  it("rebuilds fresh objects every time, byte arrays included", () => {
    const tape = new ValueTape();
    tape.write({ list: [{ a: 1 }], bytes: new Uint8Array([1]) });
    const first = tape.reader().next() as { list: { a: number }[]; bytes: Uint8Array };
    first.list[0] = { a: 2 };
    (first.bytes as Uint8Array)[0] = 9;
    expect(tape.reader().next()).toEqual({ list: [{ a: 1 }], bytes: Buffer.from([1]) });
  });

  it("counts only own keys when Object.prototype has enumerable ones, as the codec does", () => {
    const tape = new ValueTape();
    const prototype = Object.prototype as Record<string, unknown>;
    prototype.polluted = 1;
    try {
      const value = { a: 1, b: { c: 2 } };
      expect(tape.write(value)).toBe(true);
      expect(encodeValue(tape.reader().next())).toEqual(encodeValue(value));
    } finally {
      delete prototype.polluted;
    }
  });
});
