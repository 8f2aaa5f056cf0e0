import { Kind, type TObject, type TSchema } from "@sinclair/typebox";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  deepFreeze,
  encode,
  encodedSize,
  isSealedWhole,
  MESSAGE_SCHEMAS,
  type Message,
  SCHEMA_BY_TYPE,
  SHARED_STRUCTURES,
  sealMessage,
  sealUnsized,
} from "../src/index.js";
import { NOT_SIZED, SchemaSizers, type SizePassHooks, type SizerMode } from "../src/schema-sizer.js";

/**
 * Values of a message schema: every kind the message schemas use, with
 * strings of any UTF-16 content (lone surrogates included), integers across
 * every msgpack width, lists long enough for 16-bit headers, and (for the
 * shapes a frame defines itself) keys in another order and optional extras.
 */
function arbitraryOf(schema: TSchema): fc.Arbitrary<unknown> {
  switch (schema[Kind]) {
    case "Object": {
      const properties = (schema as TObject).properties;
      const fields: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [key, property] of Object.entries(properties)) fields[key] = arbitraryOf(property as TSchema);
      return fc.record(fields);
    }
    case "Literal":
      return fc.constant(schema.const);
    case "Integer":
      return fc.oneof(
        fc.integer({ min: -40, max: 300 }),
        fc.integer({ min: -0x9000, max: 0x11000 }),
        fc.integer(),
        fc.maxSafeInteger(),
        fc.constantFrom(
          0x3f,
          0x40,
          0x7f,
          0x80,
          0xff,
          0x100,
          0xffff,
          0x10000,
          2 ** 32 - 1,
          2 ** 32,
          -0x20,
          -0x21,
          -0x80,
          -0x81,
          -0x8000,
          -0x8001,
        ),
      );
    case "String":
      return fc.oneof(
        { weight: 6, arbitrary: fc.string({ maxLength: 40 }) },
        { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 80 }) },
        { weight: 1, arbitrary: fc.string({ unit: "grapheme", minLength: 20, maxLength: 120 }) },
        { weight: 1, arbitrary: fc.string({ minLength: 250, maxLength: 300 }) },
      );
    case "Boolean":
      return fc.boolean();
    case "Null":
      return fc.constant(null);
    case "Uint8Array":
      return fc.oneof(fc.uint8Array({ maxLength: 20 }), fc.uint8Array({ minLength: 250, maxLength: 300 }));
    case "Union":
      return fc.oneof(...(schema.anyOf as TSchema[]).map(arbitraryOf));
    case "Array":
      return fc.oneof(
        { weight: 6, arbitrary: fc.array(arbitraryOf(schema.items as TSchema), { maxLength: 3 }) },
        { weight: 1, arbitrary: fc.array(arbitraryOf(schema.items as TSchema), { minLength: 15, maxLength: 17 }) },
      );
    default:
      throw new Error(`no arbitrary for schema kind ${String(schema[Kind])}`);
  }
}

/** The same value with each object's keys in reverse order (shapes outside the shared table). */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (typeof value === "object" && value !== null && !ArrayBuffer.isView(value))
    return Object.fromEntries(
      Object.entries(value)
        .reverse()
        .map(([key, item]) => [key, reversedKeys(item)]),
    );
  return value;
}

/**
 * Nested values of random shapes, built fresh by each call of the function
 * drawn: objects whose keys are those of a shared structure (a record
 * reference) or a few keys of a small pool in any order (shapes a frame
 * defines itself, often repeated, often more than 32 of them), nested in
 * one another in any mix, with arrays, strings, numbers, byte arrays.
 */
const sharedKeyLists = SHARED_STRUCTURES.slice(0, 40);
const keyPool = ["a", "b", "c", "type", "partitions", "k\u00e9y", "x".repeat(40)];
/** An object of the keys drawn, its values made by the makers drawn (in turn). */
const objectOf = (keys: fc.Arbitrary<readonly string[]>, value: fc.Arbitrary<() => unknown>): fc.Arbitrary<() => unknown> =>
  fc.tuple(keys, fc.array(value, { minLength: 1, maxLength: 4 })).map(
    ([names, makers]) =>
      () =>
        Object.fromEntries(names.map((key, i) => [key, (makers[i % makers.length] as () => unknown)()])),
  );
const randomShape: fc.Arbitrary<() => unknown> = fc.letrec<{ value: () => unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.oneof(fc.integer(), fc.double(), fc.string({ maxLength: 40 }), fc.boolean(), fc.constant(null)).map((v) => () => v),
    fc.uint8Array({ maxLength: 20 }).map((bytes) => () => Uint8Array.from(bytes)),
    fc.array(tie("value"), { maxLength: 40 }).map((items) => () => items.map((item) => item())),
    objectOf(fc.constantFrom(...sharedKeyLists), tie("value")),
    objectOf(fc.uniqueArray(fc.constantFrom(...keyPool), { maxLength: 5 }), tie("value")),
  ),
})).value;

describe("encodedSize: the codec's frame length without encoding", () => {
  it("equals encode(message).length for random messages of every message type", () => {
    for (const schema of MESSAGE_SCHEMAS) {
      fc.assert(
        fc.property(arbitraryOf(schema), (message) => {
          expect(encodedSize(message as Message)).toBe(encode(message as Message).length);
        }),
        { numRuns: 40 },
      );
    }
  });

  it("equals it for shapes a frame defines itself: keys out of order, extra keys, empty objects, more than 32 new shapes", () => {
    for (const schema of MESSAGE_SCHEMAS) {
      fc.assert(
        fc.property(arbitraryOf(schema), fc.dictionary(fc.string({ maxLength: 6 }), fc.integer()), (message, extra) => {
          const shuffled = { ...(reversedKeys(message) as object), extra, empty: {}, again: [{}, extra] } as unknown as Message;
          expect(encodedSize(shuffled)).toBe(encode(shuffled).length);
        }),
        { numRuns: 12 },
      );
    }
    // Around 32 distinct shapes, then the first and the last ones again: msgpackr keeps at most 32 structures of a
    // frame's own and forgets the oldest first.
    for (let n = 28; n <= 70; n++) {
      const shapes = Array.from({ length: n }, (_, i) => ({ [`k${i}`]: i }));
      const many = { type: "SimPing", shapes, again: shapes.slice(0, 10), tail: shapes.slice(n - 10) } as unknown as Message;
      expect(encodedSize(many)).toBe(encode(many).length);
    }
  });

  it("equals it for random nestings of shared shapes and shapes a frame defines itself, sealed or not", () => {
    fc.assert(
      fc.property(randomShape, (make) => {
        const message = { type: "SimPing", body: make(), more: [make(), make()] } as unknown as Message;
        const expected = encode(message).length;
        expect(encodedSize(message)).toBe(expected);
        expect(sealMessage(message)).toBe(expected);
        expect(encodedSize(message)).toBe(expected);
      }),
      { numRuns: 400 },
    );
  });

  it("equals it for frozen values sent again in later messages (as a leader sends one stored batch to followers and consumers)", () => {
    // A frozen value's size is stored only if it defines no structure of the frame's own and holds no bytes: the
    // later messages put it after other shapes of their own, inside new objects and next to its own parts.
    const ownShapes = (n: number) => Array.from({ length: n }, (_, i) => ({ [`s${i}`]: i }));
    fc.assert(
      fc.property(randomShape, randomShape, fc.integer({ min: 0, max: 40 }), (make, makeOther, before) => {
        const value = make();
        const first = { type: "SimPing", body: value } as unknown as Message;
        expect(sealMessage(first)).toBe(encode(first).length);
        const again = { type: "SimPing", lead: ownShapes(before), body: value, other: makeOther() } as unknown as Message;
        expect(sealMessage(again)).toBe(encode(again).length);
        const wrapped = { type: "SimPing", lead: ownShapes(40 - before), outer: { batch: again, value }, value } as unknown as Message;
        expect(sealMessage(wrapped)).toBe(encode(wrapped).length);
        expect(sealMessage(wrapped)).toBe(encode(wrapped).length);
        expect(sealMessage(first)).toBe(encode(first).length);
      }),
      { numRuns: 400 },
    );
  });

  it("equals it for a shape nested in itself and for more than 32 shapes of a frame's own under one object", () => {
    const nested = { a: { a: { a: 1 } }, b: [{ a: 2 }] };
    expect(encodedSize(nested as unknown as Message)).toBe(encode(nested as unknown as Message).length);
    for (let n = 28; n <= 40; n++) {
      const children = Array.from({ length: n }, (_, i) => ({ [`k${i}`]: { [`k${n - i}`]: i } }));
      const parent = { z: children, y: { k0: 1 }, x: children.slice(0, 3) };
      expect(encodedSize(parent as unknown as Message)).toBe(encode(parent as unknown as Message).length);
      expect(sealMessage(parent as unknown as Message)).toBe(encode(parent as unknown as Message).length);
    }
  });

  it("equals it when for-in also yields inherited keys (a prototype with enumerable keys, a polluted Object.prototype)", () => {
    const inherited = Object.assign(Object.create({ extra: 1 }) as object, { type: "SimPing", seq: 1 }) as unknown as Message;
    expect(encodedSize(inherited)).toBe(encode(inherited).length);
    const message = { type: "SimPing", seq: 2, nested: { a: 1 } } as unknown as Message;
    const before = encode(message).length;
    Object.defineProperty(Object.prototype, "polluted", { value: 7, enumerable: true, configurable: true, writable: true });
    try {
      expect(encodedSize(message)).toBe(encode(message).length);
    } finally {
      delete (Object.prototype as { polluted?: number }).polluted;
    }
    expect(encodedSize(message)).toBe(before);
  });

  it("equals it for values the pass does not model (it encodes them instead)", () => {
    const odd = { type: "SimPing", when: new Date(0), set: new Set([1]), big: 2n ** 70n } as unknown as Message;
    expect(() => encode(odd)).toThrow();
    expect(() => encodedSize(odd)).toThrow();
    const dated = { type: "SimPing", seq: 1, payload: "x", when: new Date(5) } as unknown as Message;
    expect(encodedSize(dated)).toBe(encode(dated).length);
  });
});

/** A JoinGroupRequest offering these protocols (their metadata is what a test varies). */
const joinGroupRequest = (protocols: { name: string; metadata: ArrayBufferView }[]): Message =>
  ({
    type: "JoinGroupRequest",
    correlationId: 1,
    apiVersion: 5,
    clientId: "c",
    groupId: "g",
    sessionTimeoutMs: 45_000,
    rebalanceTimeoutMs: 300_000,
    memberId: "",
    groupInstanceId: null,
    protocolType: "consumer",
    protocols,
    reason: null,
  }) as unknown as Message;

describe("sealMessage: a sent message becomes an immutable value", () => {
  it("deep-freezes it, returns its frame length, and keeps its own copy of its bytes", () => {
    const bytes = new Uint8Array([1, 2, 3]);
    const message = joinGroupRequest([{ name: "range", metadata: bytes }]);
    const size = encode(message).length;
    expect(sealMessage(message)).toBe(size);
    const protocols = (message as unknown as { protocols: { name: string; metadata: Uint8Array }[] }).protocols;
    expect(Object.isFrozen(message)).toBe(true);
    expect(Object.isFrozen(protocols)).toBe(true);
    expect(Object.isFrozen(protocols[0])).toBe(true);
    expect(() => {
      (message as unknown as { groupId: string }).groupId = "other";
    }).toThrow(TypeError);
    expect(() => protocols.push({ name: "x", metadata: bytes })).toThrow(TypeError);
    // The sender still holds `bytes`; changing them no longer changes the message.
    bytes[0] = 99;
    expect(Array.from(protocols[0]?.metadata ?? [])).toEqual([1, 2, 3]);
    // Sealing again (a re-send) changes nothing and gives the same size.
    expect(sealMessage(message)).toBe(size);
  });

  it("freezes what was closed but not frozen, and leaves frozen parts (another message's) as they are", () => {
    const bytes = new Uint8Array([1]);
    const closed = Object.preventExtensions({ name: "range", metadata: bytes });
    const sealedArray = Object.seal([1, 2]);
    const received = { type: "SimPing", seq: 1, list: [{ a: new Uint8Array([5]) }] } as unknown as Message;
    sealMessage(received);
    const receivedBytes = (received as unknown as { list: { a: Uint8Array }[] }).list[0]?.a;
    const message = { type: "SimPing", closed, sealedArray, received } as unknown as Message;
    expect(sealMessage(message)).toBe(encode(message).length);
    expect(Object.isFrozen(closed)).toBe(true);
    expect(Object.isFrozen(sealedArray)).toBe(true);
    // The closed object now holds its own copy of the bytes; the frozen part's bytes were copied when it was sealed, not again.
    expect(closed.metadata).not.toBe(bytes);
    expect((received as unknown as { list: { a: Uint8Array }[] }).list[0]?.a).toBe(receivedBytes);
  });

  it("deepFreeze freezes nested objects and arrays and skips byte arrays", () => {
    const value = { a: [{ b: 1 }], bytes: new Uint8Array(2) };
    deepFreeze(value);
    expect(Object.isFrozen(value.a[0])).toBe(true);
    expect(Object.isFrozen(value.a)).toBe(true);
    // Closed (not extensible) is not frozen: it is frozen too, and what it holds.
    const closed = Object.preventExtensions({ inner: { c: 1 } });
    deepFreeze(closed);
    expect(Object.isFrozen(closed)).toBe(true);
    expect(Object.isFrozen(closed.inner)).toBe(true);
  });
});

/** What sealing left of a value, in walk order: each object's frozenness, and whether each byte array is still the one it held before. */
function sealedState(value: unknown, before: readonly Uint8Array[], out: (string | boolean)[] = [], at = { i: 0 }): (string | boolean)[] {
  if (ArrayBuffer.isView(value)) out.push("bytes", value === before[at.i++]);
  else if (typeof value === "object" && value !== null) {
    out.push(Array.isArray(value) ? "array" : "object", Object.isFrozen(value));
    for (const item of Object.values(value)) sealedState(item, before, out, at);
  }
  return out;
}

/** The byte arrays a value holds, in walk order. */
function bytesOf(value: unknown, out: Uint8Array[] = []): Uint8Array[] {
  if (ArrayBuffer.isView(value)) out.push(value as Uint8Array);
  else if (typeof value === "object" && value !== null) for (const item of Object.values(value)) bytesOf(item, out);
  return out;
}

describe("sealUnsized: sealMessage without the size", () => {
  it("freezes the same objects and copies the same byte arrays as sealMessage, on random nestings with frozen and closed parts", () => {
    fc.assert(
      fc.property(randomShape, fc.boolean(), (make, withReceived) => {
        // Two equal messages, one sealed each way; a part already sealed (another message's) and a closed one in each.
        const build = () => {
          const received = { type: "SimPing", seq: 1, body: make() };
          if (withReceived) sealMessage(received as unknown as Message);
          return { type: "SimPing", body: make(), closed: Object.preventExtensions({ a: make() }), received } as unknown as Message;
        };
        const sized = build();
        const unsized = build();
        const sizedBytes = bytesOf(sized);
        const unsizedBytes = bytesOf(unsized);
        sealMessage(sized);
        sealUnsized(unsized);
        expect(sealedState(unsized, unsizedBytes)).toEqual(sealedState(sized, sizedBytes));
        expect(encode(unsized)).toEqual(encode(sized));
      }),
      { numRuns: 300 },
    );
  });

  it("throws what sealMessage throws for a value the codec cannot write, and freezes what the pass does not model", () => {
    const odd = () => ({ type: "SimPing", set: new Set([1]), big: 2n ** 70n }) as unknown as Message;
    let sizedError: unknown;
    try {
      sealMessage(odd());
    } catch (error) {
      sizedError = error;
    }
    expect(sizedError).toBeInstanceOf(Error);
    expect(() => sealUnsized(odd())).toThrow((sizedError as Error).message);
    const dated = { type: "SimPing", seq: 1, nested: { when: new Date(5) }, list: [{ a: 1 }] } as unknown as Message;
    sealUnsized(dated);
    const parts = dated as unknown as { nested: object; list: object[] };
    expect(Object.isFrozen(dated) && Object.isFrozen(parts.nested) && Object.isFrozen(parts.list) && Object.isFrozen(parts.list[0])).toBe(
      true,
    );
  });

  it("keeps its own copy of the bytes the sender still holds", () => {
    const bytes = new Uint8Array([1, 2, 3]);
    const message = { type: "SimPing", seq: 1, protocols: [{ name: "range", metadata: bytes }] } as unknown as Message;
    sealUnsized(message);
    bytes[0] = 99;
    const held = (message as unknown as { protocols: { metadata: Uint8Array }[] }).protocols[0]?.metadata;
    expect(Array.from(held ?? [])).toEqual([1, 2, 3]);
    expect(() => {
      (message as unknown as { seq: number }).seq = 2;
    }).toThrow(TypeError);
  });
});

/** The record header of a shared structure as msgpackr writes it: ids from 0x40, two bytes from 0x60 (the table has more than 32). */
function sharedRecordHeader(keys: readonly string[]): number | undefined {
  const index = SHARED_STRUCTURES.findIndex((shared) => shared.join("\u0000") === keys.join("\u0000"));
  return index < 0 ? undefined : index + 0x40 >= 0x60 ? 2 : 1;
}

/** Compiled code of every message type for one mode, with hooks that count the frozen values they are handed. */
function compiledSizers(mode: SizerMode): { sizers: SchemaSizers; frozenValues: object[] } {
  const frozenValues: object[] = [];
  const hooks: SizePassHooks = {
    sharedRecordHeader,
    frozenSize(value, walk) {
      frozenValues.push(value);
      return walk(value, false);
    },
    frozenSealed(value, walk) {
      frozenValues.push(value);
      walk(value, false);
      return 0;
    },
    bytesMet: () => {},
  };
  return { sizers: new SchemaSizers(SCHEMA_BY_TYPE, hooks, mode), frozenValues };
}

/** Expects every object and array of a sealed value frozen and each byte array it holds a copy of the one it held (`held`). */
function expectSealed(value: unknown, held: readonly Uint8Array[]): void {
  const state = sealedState(value, held);
  for (let i = 0; i < state.length; i += 2) expect(state[i + 1]).toBe(state[i] !== "bytes");
  const contents = (arrays: readonly ArrayBufferView[]) =>
    arrays.map((bytes) => Array.from(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)));
  expect(contents(bytesOf(value))).toEqual(contents(held));
}

/** A record batch of one record, as a producer sends it and a broker stores it. */
const recordBatch = () => ({
  baseOffset: 0,
  lastOffsetDelta: 0,
  partitionLeaderEpoch: 1,
  sizeInBytes: 80,
  baseTimestamp: 5,
  producerId: -1,
  producerEpoch: -1,
  baseSequence: -1,
  isTransactional: false,
  isControl: false,
  records: [{ offsetDelta: 0, timestampDelta: 0, key: null, value: "v-0", sizeInBytes: 80 }],
});

/** Ways a message can depart from its schema's shape, each of which its compiled sizer must refuse. */
const departures: Record<string, (message: Record<string, unknown>) => unknown> = {
  "keys reversed": (message) => reversedKeys(message),
  "an extra key": (message) => ({ ...message, extra: 1 }),
  "its last key missing": (message) => {
    const copy = { ...message };
    delete copy[Object.keys(copy).at(-1) as string];
    return copy;
  },
  "a number where a string goes": (message) => ({ ...message, type: 7 }),
  "an object of another class": (message) => Object.assign(new (class Envelope {})(), message),
  "a null-prototype object": (message) => Object.assign(Object.create(null) as object, message),
};

describe("compiled sizers: sizes from code generated per message schema", () => {
  it("size a message of its schema's shape exactly, for random messages of every message type", () => {
    const { sizers } = compiledSizers("size");
    expect(SHARED_STRUCTURES.length).toBeGreaterThan(32);
    for (const schema of MESSAGE_SCHEMAS) {
      fc.assert(
        fc.property(arbitraryOf(schema), (drawn) => {
          // fast-check draws some records without a prototype; a message is a plain object.
          const message = structuredClone(drawn) as Message;
          expect(sizers.size(message)).toBe(encode(message).length);
        }),
        { numRuns: 40 },
      );
    }
  });

  it("refuse a message that departs from its schema's shape (the generic walk sizes it), and a type without a schema", () => {
    const { sizers } = compiledSizers("size");
    const sealing = compiledSizers("size-and-seal").sizers;
    const sealer = compiledSizers("seal").sizers;
    for (const schema of MESSAGE_SCHEMAS) {
      fc.assert(
        fc.property(arbitraryOf(schema), fc.constantFrom(...Object.keys(departures)), (drawn, departure) => {
          const message = structuredClone(drawn) as Record<string, unknown>;
          const departed = (departures[departure] as (m: Record<string, unknown>) => unknown)(message);
          expect(sizers.size(departed as object)).toBe(NOT_SIZED);
          expect(sealing.size(departed as object)).toBe(NOT_SIZED);
          expect(sealer.size(departed as object)).toBe(NOT_SIZED);
          // The top object was refused before anything was frozen.
          expect(Object.isFrozen(departed)).toBe(false);
          if (departure !== "a null-prototype object" && departure !== "an object of another class") {
            // The generic pass sizes it, freezes every object and array, and copies every byte array.
            const held = bytesOf(departed);
            expect(sealMessage(departed as Message)).toBe(encode(departed as Message).length);
            expectSealed(departed, held);
          }
        }),
        { numRuns: 6 },
      );
    }
    // A value of another kind than its schema's, at the top and nested, in every mode.
    for (const compiled of [sizers, sealing, sealer]) {
      expect(compiled.size({ type: "SimPing", seq: "1", payload: "p" })).toBe(NOT_SIZED);
      expect(compiled.size(joinGroupRequest([{ name: 5 as unknown as string, metadata: new Uint8Array(1) }]))).toBe(NOT_SIZED);
      expect(compiled.size({ type: "SimPing", seq: 1, payload: null })).toBe(NOT_SIZED);
      expect(compiled.size({ type: "SimPing", seq: 1, payload: "p" })).not.toBe(NOT_SIZED);
    }
    expect(sizers.size({ type: "NoSuchMessage" })).toBe(NOT_SIZED);
    expect(sizers.size({ kind: "SimPing" })).toBe(NOT_SIZED);
  });

  it("refuse a nested part of another shape, and sealMessage then seals and sizes the whole message generically", () => {
    const bytes = new Uint8Array([1, 2]);
    // The first protocol has its schema's shape, the second holds its bytes as a Uint16Array (not the schema's kind).
    const build = () =>
      joinGroupRequest([
        { name: "range", metadata: bytes },
        { name: "sticky", metadata: new Uint16Array([3]) },
      ]);
    expect(compiledSizers("size-and-seal").sizers.size(build())).toBe(NOT_SIZED);
    expect(compiledSizers("seal").sizers.size(build())).toBe(NOT_SIZED);
    const unsized = build();
    const unsizedHeld = bytesOf(unsized);
    sealUnsized(unsized);
    expectSealed(unsized, unsizedHeld);
    const message = build();
    const held = bytesOf(message);
    expect(sealMessage(message)).toBe(encode(build()).length);
    // Every object frozen, every byte array (the refused one too) the message's own copy.
    expect(sealedState(message, held)).toEqual([
      "object",
      true,
      "array",
      true,
      "object",
      true,
      "bytes",
      false,
      "object",
      true,
      "bytes",
      false,
    ]);
  });

  it("seal, sized or not: every object and array frozen, every byte array copied, for random messages of every type", () => {
    const sizing = compiledSizers("size-and-seal").sizers;
    const sealing = compiledSizers("seal").sizers;
    for (const schema of MESSAGE_SCHEMAS) {
      fc.assert(
        fc.property(arbitraryOf(schema), (drawn) => {
          const sized = structuredClone(drawn) as object;
          const unsized = structuredClone(drawn) as object;
          const sizedHeld = bytesOf(sized);
          const unsizedHeld = bytesOf(unsized);
          expect(sizing.size(sized)).toBe(encode(drawn as Message).length);
          expect(sealing.size(unsized)).toBe(0);
          expectSealed(sized, sizedHeld);
          expectSealed(unsized, unsizedHeld);
        }),
        { numRuns: 20 },
      );
    }
  });

  it("seal, sized or not, what was closed but not frozen, and leave frozen parts (another message's) as they are", () => {
    for (const seal of [(m: Message) => void sealMessage(m), sealUnsized]) {
      const bytes = new Uint8Array([1]);
      const closed = Object.preventExtensions({ name: "range", metadata: bytes });
      const earlier = joinGroupRequest([{ name: "sticky", metadata: new Uint8Array([5]) }]);
      seal(earlier);
      const sent = (earlier as unknown as { protocols: { name: string; metadata: Uint8Array }[] }).protocols;
      const sentBytes = sent[0]?.metadata;
      const message = joinGroupRequest([closed, ...sent]);
      seal(message);
      expect(Object.isFrozen(closed) && Object.isFrozen(message)).toBe(true);
      expect(closed.metadata).not.toBe(bytes);
      expect(Array.from(closed.metadata)).toEqual([1]);
      expect(sent[0]?.metadata).toBe(sentBytes);
    }
  });

  it("remember a value sealed whole without sizing, once it is sent again, unless it holds bytes", () => {
    const produce = (records: object) =>
      ({
        type: "ProduceRequest",
        correlationId: 1,
        apiVersion: 9,
        clientId: "p",
        transactionalId: null,
        acks: -1,
        timeoutMs: 30_000,
        topicData: [{ name: "t", partitionData: [{ index: 0, records }] }],
      }) as unknown as Message;
    // A ProduceRequest has its compiled sealer (it does not give up on one).
    expect(compiledSizers("seal").sizers.size(produce(recordBatch()))).toBe(0);
    const sent = recordBatch();
    sealUnsized(produce(sent));
    // Sealed as it was sent (fresh, frozen now); remembered as sealed whole when it is met frozen, sent again.
    expect(Object.isFrozen(sent.records[0])).toBe(true);
    expect(isSealedWhole(sent)).toBe(false);
    sealUnsized(produce(sent));
    expect(isSealedWhole(sent)).toBe(true);
    // A protocol holding bytes is frozen but not sealed whole: its bytes could still change.
    const withBytes = joinGroupRequest([{ name: "range", metadata: new Uint8Array([1]) }]);
    sealUnsized(withBytes);
    const protocol = (withBytes as unknown as { protocols: object[] }).protocols[0] as object;
    sealUnsized(joinGroupRequest([protocol as { name: string; metadata: Uint8Array }]));
    expect(Object.isFrozen(protocol)).toBe(true);
    expect(isSealedWhole(protocol)).toBe(false);
  });

  it("hand a value frozen by an earlier message to the pass's cache, and size it the same", () => {
    const { sizers, frozenValues } = compiledSizers("size-and-seal");
    const batch = recordBatch();
    const response = (records: unknown[]) => ({
      type: "FetchResponse",
      correlationId: 3,
      throttleTimeMs: 0,
      errorCode: 0,
      sessionId: 9,
      responses: [
        {
          topicId: "t",
          partitions: [
            {
              partitionIndex: 0,
              errorCode: 0,
              highWatermark: 1,
              lastStableOffset: 1,
              logStartOffset: 0,
              abortedTransactions: null,
              preferredReadReplica: -1,
              records,
            },
          ],
        },
      ],
    });
    const first = response([batch]);
    expect(sizers.size(first)).toBe(encode(first as unknown as Message).length);
    expect(frozenValues).toEqual([]);
    const again = response([batch, batch]);
    expect(sizers.size(again)).toBe(encode(again as unknown as Message).length);
    // Each of the two batches is handed over whole (its parts are then handed over inside it, which the pass does not cache).
    expect(frozenValues.filter((value) => value === batch)).toHaveLength(2);
    expect(frozenValues.every((value) => value === batch || value === batch.records || value === batch.records[0])).toBe(true);
  });
});
