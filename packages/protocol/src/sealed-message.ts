import { encode, MAX_OWN_STRUCTURES, SHARED_STRUCTURES } from "./codec.js";
import { follow, followKeys, type KeyTrieNode, unlinkedNode } from "./key-trie.js";
import { type Message, SCHEMA_BY_TYPE } from "./messages/index.js";
import { binHeader, lengthHeader, numberSize, stringSize } from "./msgpack-sizes.js";
import { objectPrototypeIsClean } from "./plain-object-keys.js";
import { NOT_SIZED, SchemaSizers, type SizePassHooks, type SizerState } from "./schema-sizer.js";

/**
 * Messages as immutable values, sized without encoding them.
 *
 * Where no thread boundary is crossed (the inline host), a message is handed
 * from sender to receiver as the object itself, deep-frozen when it is sent:
 * neither the sender (afterwards) nor the receiver can change it, which is
 * what the codec's copy used to guarantee. Its size in bytes (the router's
 * bandwidth faults, the history's `bytes`, the stats) must still be the
 * size of its frame, so `encodedSize` computes the length `encode` would
 * produce without producing it: msgpackr's encoding rules, followed byte
 * for byte (record headers for the shared structures and for the shapes a
 * frame defines itself, string, number and collection headers). A value the
 * pass does not model (a Map, a Date, a class instance, a function) makes it
 * fall back to encoding, so the answer is the codec's in every case. A
 * message that has its schema's shape is sized (and sealed) by code
 * compiled from its schema (schema-sizer.ts) instead of this walk: the same
 * answer and the same objects frozen, at a fraction of the cost.
 *
 * Byte arrays cannot be frozen: sealing copies each one a message holds (in
 * objects it freezes), so the sender cannot change the bytes it sent; the
 * receiver must treat them as read-only.
 */

/** A node of the key-sequence trie: the record shape reached by the keys so far. */
interface Shape extends KeyTrieNode<Shape> {
  /** Its record id in the shared table, or 0. */
  shared: number;
  /** The pass (frame) in which it was last defined as one of the frame's own structures, else -1. */
  ownFrame: number;
  ownId: number;
}

/** msgpackr's record-id layout for this codec's options (pack.js: sharedLimitId, maxStructureId, useTwoByteRecords). */
const RECORD_BASE = 0x40;
const SHARED_LIMIT_ID = SHARED_STRUCTURES.length + RECORD_BASE;
const MAX_STRUCTURE_ID = SHARED_LIMIT_ID + MAX_OWN_STRUCTURES;
const TWO_BYTE_RECORDS = SHARED_STRUCTURES.length > 32 || MAX_OWN_STRUCTURES + SHARED_STRUCTURES.length > 64;
/** Trie nodes made for shapes outside the table, past which the trie is rebuilt (keys of records are not bounded). */
const MAX_SHAPES = 10_000;

const shape = (): Shape => ({
  ...unlinkedNode<Shape>(),
  shared: 0,
  ownFrame: -1,
  ownId: 0,
});

function child(node: Shape, key: string): Shape {
  let next = node.next.get(key);
  if (next === undefined) {
    next = shape();
    node.next.set(key, next);
  }
  return next;
}

function sharedTrie(): Shape {
  const root = shape();
  SHARED_STRUCTURES.forEach((keys, index) => {
    let node = root;
    for (const key of keys) node = child(node, key);
    node.shared = index + RECORD_BASE;
  });
  return root;
}

let root = sharedTrie();
let madeShapes = 0;
/** A trie node made for a shape outside the table (counted towards MAX_SHAPES). */
const madeShape = (): Shape => {
  madeShapes++;
  return shape();
};

/** Thrown inside the pass for a value it does not model: the caller encodes instead. */
const UNMODELLED = Symbol("unmodelled");
/** Thrown inside a one-walk pass that cannot number the frame's own structures in msgpackr's order (see recordWalk). */
const OUT_OF_ORDER = Symbol("out of order");
/** Whether records are sized in one walk (see recordWalk); false while a frame is walked again in msgpackr's order. */
let fusedWalk = true;

/**
 * Sizes of values already frozen by an earlier pass, kept for values whose
 * records all have shared shapes: such a size does not depend on the frame
 * (the value defines no structure of the frame's own), so a value that is
 * sent again, as a leader sends one stored batch to each follower and each
 * consumer, is walked once. Only a pass's outermost frozen value is stored
 * (the values inside it are read through it); values inside it are still
 * looked up, for one stored from an earlier message.
 */
const frozenSizes = new WeakMap<object, number>();
/**
 * Whether a pass found `value` frozen and sized it whole (its size is
 * stored): then it and everything in it are frozen (the walk froze what was
 * not), it holds no byte arrays, and every part of it is something the
 * codec writes as this module models it. Nothing can change such a value
 * any more, so it may be kept by reference where a copy would be made.
 */
export function isSealedWhole(value: object): boolean {
  return frozenSizes.has(value) || sealedWithoutSize.has(value);
}

/**
 * Values sealed whole by a pass that did not size them (sealUnsized, under
 * the same conditions as frozenSizes: the outermost frozen value, no byte
 * arrays in it, everything in it modelled), so a run that sizes nothing
 * (a hunt's seed) can keep them by reference too.
 */
const sealedWithoutSize = new WeakSet<object>();

/** Records of the frame's own shapes met so far (defined or referenced): their headers depend on the frame. */
let ownShapesMet = 0;
/** Byte arrays met so far: a frozen value cannot freeze the bytes it holds. */
let bytesMet = 0;
/** Whether the pass is inside a frozen value whose size it will store. */
let insideStored = false;

/** The state of one pass (one frame): the frame's own structures, oldest first, as msgpackr cycles them. */
let frame = 0;
let nextOwnId = SHARED_LIMIT_ID;
const own: Shape[] = [];
let freezing = false;
/** Whether Object.prototype has no enumerable keys (checked once per pass): then for-in of a plain object yields its own keys only. */
let plainPrototype = true;

const recordRef = (id: number): number => (id >= 0x60 && TWO_BYTE_RECORDS ? 2 : 1);
// Tests of `typeof value` against literals, not a switch: V8 compiles each to a type check, where a switch
// first builds the type's name through a builtin call, once per value sized.
function sizeOf(value: unknown): number {
  if (typeof value === "string") return stringSize(value);
  if (typeof value === "number") return numberSize(value);
  if (typeof value === "object") {
    if (value === null) return 1;
    const valueClass = value.constructor;
    if (valueClass === Object) return recordSize(value as Record<string, unknown>);
    if (valueClass === Array) return arraySize(value as unknown[]);
    if (ArrayBuffer.isView(value) && !(value instanceof DataView)) {
      bytesMet++;
      return binHeader(value.byteLength) + value.byteLength;
    }
    throw UNMODELLED;
  }
  if (typeof value === "boolean") return 1;
  if (typeof value === "undefined") return 3; // fixext 1, type 0
  if (typeof value === "bigint" && value >= -0x8000000000000000n && value < 0x10000000000000000n) return 9;
  throw UNMODELLED;
}

const isBytes = (value: unknown): value is NodeJS.TypedArray =>
  typeof value === "object" && value !== null && ArrayBuffer.isView(value) && !(value instanceof DataView);

/**
 * Whether the pass must freeze `value` (and copy the byte arrays it holds).
 * Object.isExtensible is answered from the object's map without leaving
 * JavaScript; Object.isFrozen is a call into the runtime, so it is asked
 * only of objects that are already closed (a frozen object is never extensible).
 */
const toSeal = (value: object): boolean => freezing && (Object.isExtensible(value) || !Object.isFrozen(value));

function arraySize(array: unknown[]): number {
  const sealing = toSeal(array);
  if (freezing && !sealing && plainPrototype) return frozenSize(array, arrayWalk);
  return arrayWalk(array, sealing);
}

function arrayWalk(array: unknown[], sealing: boolean): number {
  let size = lengthHeader(array.length);
  for (let i = 0; i < array.length; i++) {
    let item = array[i];
    // Byte arrays cannot be frozen: the sealed message keeps a copy of its own.
    if (sealing && isBytes(item)) array[i] = item = Buffer.copyBytesFrom(item);
    size += sizeOf(item);
  }
  if (sealing) Object.freeze(array);
  return size;
}

/** The size of a value an earlier pass froze: stored, or walked (and stored if it qualifies, see walkFrozen). */
function frozenSize<T extends object>(value: T, walk: (value: T, sealing: boolean) => number, sizing: SizerState = WALKED): number {
  const stored = frozenSizes.get(value);
  if (stored !== undefined) return stored;
  return walkFrozen(value, walk, sizing, storeSize);
}

const storeSize = (value: object, size: number): void => {
  frozenSizes.set(value, size);
};

/**
 * Walks a value an earlier pass froze (what it holds may still need
 * sealing) and hands it to `whole` if it qualifies as sealed whole: it is
 * the outermost frozen value of the pass (those inside it are reached
 * through it), it defined no structure of the frame's own and held no byte
 * arrays (its size does not depend on the frame, nothing in it can change),
 * and a compiled walk did not give up in it.
 */
function walkFrozen<T extends object>(
  value: T,
  walk: (value: T, sealing: boolean) => number,
  sizing: SizerState,
  whole: (value: T, size: number) => void,
): number {
  if (insideStored) return walk(value, false);
  const ownBefore = ownShapesMet;
  const bytesBefore = bytesMet;
  insideStored = true;
  let size: number;
  try {
    size = walk(value, false);
  } finally {
    insideStored = false;
  }
  if (ownShapesMet === ownBefore && bytesMet === bytesBefore && !sizing.failed) whole(value, size);
  return size;
}

function recordSize(object: Record<string, unknown>): number {
  const sealing = toSeal(object);
  if (freezing && !sealing && plainPrototype) return frozenSize(object, recordWalk);
  return recordWalk(object, sealing);
}

/**
 * A record's size in one walk of its keys: the trie step and the value's
 * size together. msgpackr numbers a record's structure before those its
 * values define, so a record of the frame's own shape whose values met
 * another structure of the frame's own (rare: shapes outside the shared
 * table nested in one another) cannot be sized in this order; the pass is
 * then walked again in msgpackr's order (`recordWalkInOrder`).
 */
function recordWalk(object: Record<string, unknown>, sealing: boolean): number {
  if (!fusedWalk) return recordWalkInOrder(object, sealing);
  // For-in of a plain object whose prototype adds no enumerable keys yields own keys only (msgpackr's own-key test passes).
  const ownOnly = plainPrototype && Object.getPrototypeOf(object) === Object.prototype;
  const ownBefore = ownShapesMet;
  let node = root;
  let size = 0;
  for (const key in object) {
    if (ownOnly || typeof object.hasOwnProperty !== "function" || Object.hasOwn(object, key)) {
      node = node.lastKey === key && node.lastNext !== null ? node.lastNext : follow(node, key, madeShape);
      let value = object[key];
      // Byte arrays cannot be frozen: the sealed message keeps a copy of its own.
      if (sealing && isBytes(value)) object[key] = value = Buffer.copyBytesFrom(value);
      size += sizeOf(value);
    }
  }
  if (node.shared !== 0) {
    size += recordRef(node.shared);
  } else {
    if (ownShapesMet !== ownBefore) throw OUT_OF_ORDER;
    size += ownShapeHeader(node, object);
  }
  if (sealing) Object.freeze(object);
  return size;
}

/** The walk in msgpackr's order: the record's header (which may define a structure), then its values. */
function recordWalkInOrder(object: Record<string, unknown>, sealing: boolean): number {
  const ownOnly = plainPrototype && Object.getPrototypeOf(object) === Object.prototype;
  const node = followKeys(root, object, ownOnly, madeShape);
  let size = node.shared !== 0 ? recordRef(node.shared) : ownShapeHeader(node, object);
  for (const key in object) {
    if (ownOnly || typeof object.hasOwnProperty !== "function" || Object.hasOwn(object, key)) {
      let value = object[key];
      if (sealing && isBytes(value)) object[key] = value = Buffer.copyBytesFrom(value);
      size += sizeOf(value);
    }
  }
  if (sealing) Object.freeze(object);
  return size;
}

/** The header of a record whose shape is not in the shared table: a reference to the frame's structure, defined here if the frame has none yet. */
function ownShapeHeader(node: Shape, object: Record<string, unknown>): number {
  ownShapesMet++;
  if (node.ownFrame === frame) return recordRef(node.ownId);
  // A structure this frame defines: fixext 1 or 2 ("r", its id), then the array of its keys.
  let id = nextOwnId;
  if (id >= MAX_STRUCTURE_ID) id = SHARED_LIMIT_ID;
  nextOwnId = id + 1;
  if (own.length >= MAX_OWN_STRUCTURES) (own.shift() as Shape).ownFrame = -1;
  own.push(node);
  node.ownFrame = frame;
  node.ownId = id;
  const keys = Object.keys(object);
  let size = (id >= 0x60 && TWO_BYTE_RECORDS ? 4 : 3) + lengthHeader(keys.length);
  for (const key of keys) size += stringSize(key);
  return size;
}

/** The generic walk's state for frozenSize: it does not give up (it encodes instead). */
const WALKED: SizerState = { failed: false };

/** A compiled sealer's frozenSize: a value sealed whole needs nothing; another is walked, and remembered as sealed whole if it qualifies. */
function frozenSealed<T extends object>(value: T, walk: (value: T, sealing: boolean) => number, sealing: SizerState): number {
  if (isSealedWhole(value)) return 0;
  walkFrozen(value, walk, sealing, rememberSealed);
  return 0;
}

const rememberSealed = (value: object): void => {
  sealedWithoutSize.add(value);
};

const hooks: SizePassHooks = {
  sharedRecordHeader(keys) {
    let node = root;
    for (const key of keys) node = follow(node, key, madeShape);
    return node.shared !== 0 ? recordRef(node.shared) : undefined;
  },
  frozenSize,
  frozenSealed,
  bytesMet: () => {
    bytesMet++;
  },
};
/** Code compiled from the message schemas: for sealMessage (it seals too), encodedSize and sealUnsized. */
const sealingSizers = new SchemaSizers(SCHEMA_BY_TYPE, hooks, "size-and-seal");
const sizingSizers = new SchemaSizers(SCHEMA_BY_TYPE, hooks, "size");
const sealers = new SchemaSizers(SCHEMA_BY_TYPE, hooks, "seal");

function pass(value: unknown, freeze: boolean): number {
  // A message of its schema's shape is sized by its compiled sizer; any other value (or one it gives up on) is walked.
  if (typeof value === "object" && value !== null) {
    const size = (freeze ? sealingSizers : sizingSizers).size(value);
    if (size !== NOT_SIZED) return size;
  }
  freezing = freeze;
  plainPrototype = objectPrototypeIsClean();
  if (madeShapes > MAX_SHAPES) {
    root = sharedTrie();
    madeShapes = 0;
  }
  try {
    return sizeOfFrame(value);
  } catch (error) {
    if (error !== UNMODELLED) throw error;
    if (freeze) deepFreeze(value);
    return encode(value as Message).length;
  }
}

/** One frame's size: walked once, or walked again in msgpackr's order if the first walk met nested shapes of the frame's own. */
function sizeOfFrame(value: unknown): number {
  try {
    startFrame();
    return sizeOf(value);
  } catch (error) {
    if (error !== OUT_OF_ORDER) throw error;
    // What the first walk froze stays frozen (and its byte arrays copied): the second walk finds it sealed.
    startFrame();
    fusedWalk = false;
    try {
      return sizeOf(value);
    } finally {
      fusedWalk = true;
    }
  } finally {
    forgetOwnStructures();
  }
}

function startFrame(): void {
  frame++;
  nextOwnId = SHARED_LIMIT_ID;
  forgetOwnStructures();
}

function forgetOwnStructures(): void {
  // Emptied only if filled: setting an array's length is a call into the runtime.
  if (own.length !== 0) {
    for (const node of own) node.ownFrame = -1;
    own.length = 0;
  }
}

/** The length of `encode(message)`, computed without encoding it. */
export function encodedSize(message: Message): number {
  return pass(message, false);
}

/**
 * Deep-freezes a message that is being sent (its byte arrays copied) and
 * returns the length of its frame: from now on it is an immutable value
 * that can be handed to its receiver as it is.
 */
export function sealMessage(message: Message): number {
  return pass(message, true);
}

/**
 * Seals a message that is being sent as `sealMessage` does (the same objects
 * frozen, the same byte arrays copied, the same error for a value the codec
 * cannot write) without sizing it: for a run that needs no sizes (one that
 * records no history and has no bandwidth fault), where sizing is most of
 * the pass's cost.
 */
export function sealUnsized(message: Message): void {
  // A message of its schema's shape is sealed by its compiled sealer; any other (or one it gives up on) is walked.
  if (typeof message === "object" && message !== null && sealers.size(message) !== NOT_SIZED) return;
  plainPrototype = objectPrototypeIsClean();
  try {
    sealValue(message);
  } catch (error) {
    if (error !== UNMODELLED) throw error;
    deepFreeze(message);
    // Encoded only for its error, if any: what sealMessage would throw, this throws.
    encode(message);
  }
}

/** The walk of sealMessage without the sizes: it models the values the sized pass models, and no others. */
function sealValue(value: unknown): void {
  if (typeof value === "object") {
    if (value === null) return;
    const valueClass = value.constructor;
    if (valueClass === Object) sealRecord(value as Record<string, unknown>);
    else if (valueClass === Array) sealArray(value as unknown[]);
    else if (!ArrayBuffer.isView(value) || value instanceof DataView) throw UNMODELLED;
    return;
  }
  const kind = typeof value;
  if (kind === "string" || kind === "number" || kind === "boolean" || kind === "undefined") return;
  if (kind === "bigint" && (value as bigint) >= -0x8000000000000000n && (value as bigint) < 0x10000000000000000n) return;
  throw UNMODELLED;
}

const unsealed = (value: object): boolean => Object.isExtensible(value) || !Object.isFrozen(value);

function sealArray(array: unknown[]): void {
  const sealing = unsealed(array);
  for (let i = 0; i < array.length; i++) {
    let item = array[i];
    if (sealing && isBytes(item)) array[i] = item = Buffer.copyBytesFrom(item);
    sealValue(item);
  }
  if (sealing) Object.freeze(array);
}

function sealRecord(object: Record<string, unknown>): void {
  const ownOnly = plainPrototype && Object.getPrototypeOf(object) === Object.prototype;
  const sealing = unsealed(object);
  for (const key in object) {
    if (ownOnly || typeof object.hasOwnProperty !== "function" || Object.hasOwn(object, key)) {
      let value = object[key];
      if (sealing && isBytes(value)) object[key] = value = Buffer.copyBytesFrom(value);
      sealValue(value);
    }
  }
  if (sealing) Object.freeze(object);
}

/** Freezes a value and everything it holds (byte arrays excepted: they cannot be frozen). */
export function deepFreeze(value: unknown): void {
  if (typeof value !== "object" || value === null || ArrayBuffer.isView(value)) return;
  // Object.isFrozen is a runtime call; an extensible object (the usual case) is not frozen.
  if (!Object.isExtensible(value) && Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
}
