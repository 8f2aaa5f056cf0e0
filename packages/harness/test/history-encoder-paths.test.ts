import type { Observation } from "@kcsim/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ByteWriter } from "../src/history/byte-writer.js";
import { HistoryEncoder } from "../src/history/history-codec.js";
import type { ObservationRecord } from "../src/history/history-event.js";

/**
 * The observation records of history-codec.ts written the plain way: keys
 * listed by Object.keys, shapes and strings looked up by value, no shape
 * tree, no stack and no choice of key walk. The encoder's fast paths must
 * write exactly these bytes.
 */
class PlainObservationEncoder {
  readonly #strings = new Map<string, number>();
  readonly #shapes = new Map<string, number>();
  #lastT = 0;

  encode(event: ObservationRecord, out: ByteWriter): void {
    out.u8(2); // Kind.Obs
    out.int(event.t - this.#lastT);
    this.#lastT = event.t;
    this.#string(event.actor, out);
    this.#value(event.o, out);
  }

  #string(value: string, out: ByteWriter): void {
    const id = this.#strings.get(value);
    if (id !== undefined) {
      out.uint(id + 3); // Str.Ref
      return;
    }
    if (value.length <= 64) {
      this.#strings.set(value, this.#strings.size);
      out.u8(2); // Str.Define
    } else out.u8(1); // Str.Inline
    out.string(value);
  }

  #value(value: unknown, out: ByteWriter): void {
    if (typeof value === "number") {
      if (!Number.isSafeInteger(value)) {
        out.u8(6);
        out.float64(value);
      } else if (value < 0) {
        out.u8(5);
        out.uint(-value);
      } else if (value <= 223) out.u8(32 + value);
      else {
        out.u8(4);
        out.uint(value);
      }
    } else if (typeof value === "string") {
      out.u8(7);
      this.#string(value, out);
    } else if (typeof value === "boolean") out.u8(value ? 2 : 1);
    else if (value === null) out.u8(0);
    else if (Array.isArray(value)) {
      out.u8(8);
      out.uint(value.length);
      for (const item of value) this.#value(item, out);
    } else if (typeof value === "object") {
      const object = value as Record<string, unknown>;
      const keys = Object.keys(object).filter((key) => !skipped(object[key]));
      const shape = JSON.stringify(keys);
      const id = this.#shapes.get(shape);
      if (id !== undefined) {
        out.u8(9);
        out.uint(id);
      } else {
        this.#shapes.set(shape, this.#shapes.size);
        out.u8(10);
        out.uint(keys.length);
        for (const key of keys) this.#string(key, out);
      }
      for (const key of keys) this.#value(object[key], out);
    } else out.u8(3); // undefined, a function or a symbol in an array
  }
}

const skipped = (value: unknown) => value === undefined || typeof value === "function" || typeof value === "symbol";

/** How a generated object is built: a plain object, one without a prototype, or a class instance. */
type Build = "plain" | "null-prototype" | "class";

class Holder {}

function build(entries: readonly (readonly [string, unknown])[], how: Build): Record<string, unknown> {
  const object: Record<string, unknown> = how === "null-prototype" ? Object.create(null) : how === "class" ? new Holder() : {};
  for (const [key, value] of entries) {
    if (key === "__proto__") Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
    else object[key] = value;
  }
  return object;
}

/** Keys that repeat (so shapes recur and places learn their walk), index keys, and one of everything V8 treats apart. */
const key = fc.constantFrom("type", "memberId", "topic", "partition", "a", "b", "0", "1", "7", "12", "1x", "__proto__", "é");
const leaf = fc.oneof(
  fc.integer({ min: -300, max: 300 }),
  fc.constantFrom(2 ** 40, -(2 ** 50), 2 ** 60, 0.5, Number.NaN, -0),
  fc.constantFrom("orders", "payments", "m-1", "m-2", "x".repeat(70)),
  fc.string({ maxLength: 4 }),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(undefined, () => 1, Symbol("s")),
);
const { value } = fc.letrec<{ value: unknown; object: Record<string, unknown> }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", maxDepth: 3, withCrossShrink: true },
    leaf,
    fc.array(tie("value"), { maxLength: 4 }),
    tie("object"),
  ),
  object: fc
    .tuple(
      fc.uniqueArray(fc.tuple(key, tie("value")), { selector: ([k]) => k, maxLength: 6 }),
      fc.constantFrom<Build>("plain", "plain", "plain", "null-prototype", "class"),
    )
    .map(([entries, how]) => build(entries, how)),
}));
/** An observation: a type, then the generated value in one place, so the objects there follow each other through one shape. */
const observation = fc.tuple(fc.constantFrom("x", "y"), value, fc.boolean()).map(([type, v, wide]) => {
  const o: Record<string, unknown> = { type, v };
  // Sometimes many keys at once (a map of topics): more than a fast shape holds.
  if (wide) for (let i = 0; i < 20; i++) o[`k${i}`] = i;
  return o;
});

function bytesOf(encode: (event: ObservationRecord, out: ByteWriter) => void, events: readonly ObservationRecord[]): number[] {
  const out = new ByteWriter(16);
  for (const event of events) encode(event, out);
  return [...out.take()];
}

const records = (objects: readonly Record<string, unknown>[]): ObservationRecord[] =>
  objects.map((o, i) => ({ t: i * 10, ev: "obs", actor: `a${i % 3}`, o: o as Observation }));

describe("the history encoder's fast paths", () => {
  it("write the same bytes as the plain encoding, whatever objects follow each other (property)", () => {
    fc.assert(
      fc.property(fc.array(observation, { maxLength: 40 }), (objects) => {
        const events = records(objects);
        const fast = new HistoryEncoder();
        const plain = new PlainObservationEncoder();
        expect(bytesOf((e, out) => fast.encode(e, out), events)).toEqual(bytesOf((e, out) => plain.encode(e, out), events));
      }),
      { numRuns: 500 },
    );
  });

  it("write the same bytes when a place holding named objects gets index keys, a null prototype or many keys", () => {
    const named = { topic: "orders", partition: 3 };
    const others = [
      { "0": 5, "12": 7 },
      build([["orders", 1]], "null-prototype"),
      Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`t${i}`, i])),
      { topic: "orders", partition: 4, gone: undefined },
    ];
    // Each one after the place has learned the named walk, and the named walk after each.
    const objects = others.flatMap((other) => [named, named, { type: "x", v: other }, named].map((o) => ({ type: "x", v: o })));
    const events = records(objects);
    const fast = new HistoryEncoder();
    const plain = new PlainObservationEncoder();
    expect(bytesOf((e, out) => fast.encode(e, out), events)).toEqual(bytesOf((e, out) => plain.encode(e, out), events));
  });

  it("leave out inherited keys when Object.prototype has an enumerable key", () => {
    const events = records([
      { type: "x", v: { a: 1 } },
      { type: "x", v: { a: 2, b: [{ c: 3 }] } },
      { type: "x", v: { a: 3 } },
    ]);
    const plain = new PlainObservationEncoder();
    const expected = bytesOf((e, out) => plain.encode(e, out), events);
    const fast = new HistoryEncoder();
    const proto = Object.prototype as Record<string, unknown>;
    // The first object teaches its places the named walk; the rest are written while the prototype is polluted.
    const out = new ByteWriter(16);
    fast.encode(events[0] as ObservationRecord, out);
    proto.polluted = 1;
    try {
      for (const event of events.slice(1)) fast.encode(event, out);
    } finally {
      delete proto.polluted;
    }
    expect([...out.take()]).toEqual(expected);
  });
});
