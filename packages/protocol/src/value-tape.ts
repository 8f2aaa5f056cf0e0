import { decodeUnchecked, encodeValue } from "./codec.js";
import { followKeys, type KeyTrieNode, unlinkedNode } from "./key-trie.js";
import { objectPrototypeIsClean } from "./plain-object-keys.js";
import { isSealedWhole } from "./sealed-message.js";

/**
 * Values kept as a flat tape, to be rebuilt later as the codec would give
 * them back: `reader().next()` is `decodeUnchecked(encodeValue(value))` of
 * the value as it was when written, without encoding or decoding it.
 *
 * A durable log must keep what an actor appended as it was at the append
 * (the actor may change its objects afterwards), and it is read back only
 * when the actor restarts. Encoding every record at its append costs a
 * msgpackr frame each (its own record structures, written and reset per
 * frame). A deep copy costs a quarter of that, but keeps every copied
 * object alive and the garbage collector gives the saving back (measured
 * on group-join). The tape costs a walk and makes no object per value: a
 * tag per value in a byte array, numbers, object shapes and array lengths
 * in a Float64Array (both off the heap), strings and bigints (immutable)
 * by reference, byte arrays copied. A value that sending has sealed whole
 * (frozen with everything in it, no byte arrays: a record batch a broker
 * fetched, see isSealedWhole) is immutable too, and is kept by reference;
 * it is copied only when read.
 *
 * The tape models what the codec writes the same way whatever it is handed:
 * primitives (bigints in the 64-bit range the codec writes), plain objects
 * (their own enumerable keys, in for-in order, as msgpackr walks them),
 * arrays (their indices) and byte arrays (Uint8Array, Buffer). A rebuilt
 * value differs from the original where the codec's round trip does: -0
 * reads as 0, a string with a lone surrogate as the codec returns it,
 * byte arrays as Buffers (fresh copies), sparse arrays filled with
 * undefined. It encodes byte for byte as the original did. Anything else (a Map, a Set, a Date, a class instance, another typed
 * array, a function, a symbol, a bigint the codec cannot write, a
 * `__proto__` key) is refused, and the tape is left as it was: the caller
 * encodes that value instead, so its answer (bytes or an error) stays the
 * codec's.
 */

const UNDEFINED = 0;
const NULL = 1;
const FALSE = 2;
const TRUE = 3;
/** The number is the next cell. */
const NUMBER = 4;
/** The next reference (a string). */
const STRING = 5;
/** The next reference (a bigint). */
const BIGINT = 6;
/** The next cell is the object's shape (its keys, in order); the value of each key follows. */
const OBJECT = 7;
/** The next cell is the length; the items follow. */
const ARRAY = 8;
/** The next reference (a private copy of the bytes). */
const BYTES = 9;
/** The next reference: a value sealed whole (see isSealedWhole), kept as it is, since nothing can change it. */
const SEALED = 10;

/** Any UTF-16 surrogate code unit (paired or not). */
const SURROGATE = /[\ud800-\udfff]/;

/** Thrown inside the walk for a value it does not model. */
const UNMODELLED = Symbol("unmodelled");

/** A node of a tape's key-sequence trie: the object shape reached by the keys so far. */
interface KeyNode extends KeyTrieNode<KeyNode> {
  /** Its index in the tape's shapes, once an object ended here; else -1. */
  shape: number;
}

/** A copy of a full array in one twice as long (the tape's arrays grow only by doubling, so rarely). */
function doubled<A extends Uint8Array | Float64Array>(array: A, make: new (length: number) => A): A {
  const grown = new make(array.length * 2);
  grown.set(array);
  return grown;
}

const keyNode = (): KeyNode => ({ ...unlinkedNode<KeyNode>(), shape: -1 });

/** The streams a reader rebuilds values from. */
interface TapeStreams {
  readonly tags: Uint8Array;
  readonly cells: Float64Array;
  readonly refs: readonly unknown[];
  readonly shapes: readonly (readonly string[])[];
}

/** An append-only tape of values; `reader` rebuilds them in order. */
export class ValueTape {
  // Small to start with: many logs stay empty (the arrays double as they fill).
  #tags = new Uint8Array(256);
  #tagCount = 0;
  #cells = new Float64Array(64);
  #cellCount = 0;
  readonly #refs: unknown[] = [];
  readonly #root = keyNode();
  /** The key lists of the objects written, by shape index. */
  readonly #shapes: string[][] = [];
  /** Whether Object.prototype has no enumerable keys (checked once per value): then for-in of a plain object yields its own keys only. */
  #plainPrototype = true;

  /** Appends `value` and returns true; false (the tape unchanged) if the value holds something the tape does not model. */
  write(value: unknown): boolean {
    const tags = this.#tagCount;
    const cells = this.#cellCount;
    const refs = this.#refs.length;
    this.#plainPrototype = objectPrototypeIsClean();
    try {
      this.#value(value);
      return true;
    } catch {
      // UNMODELLED, or anything the walk ran into (a cycle's stack overflow, a throwing getter): let the codec answer.
      this.#tagCount = tags;
      this.#cellCount = cells;
      this.#refs.length = refs;
      return false;
    }
  }

  /** A reader of the values written so far, oldest first. */
  reader(): ValueTapeReader {
    return new ValueTapeReader({ tags: this.#tags, cells: this.#cells, refs: this.#refs, shapes: this.#shapes });
  }

  #tag(tag: number): void {
    if (this.#tagCount === this.#tags.length) this.#tags = doubled(this.#tags, Uint8Array);
    this.#tags[this.#tagCount++] = tag;
  }

  #cell(cell: number): void {
    if (this.#cellCount === this.#cells.length) this.#cells = doubled(this.#cells, Float64Array);
    this.#cells[this.#cellCount++] = cell;
  }

  #value(value: unknown): void {
    switch (typeof value) {
      case "number":
        this.#tag(NUMBER);
        this.#cell(value);
        return;
      case "string":
        this.#tag(STRING);
        this.#refs.push(value);
        return;
      case "boolean":
        this.#tag(value ? TRUE : FALSE);
        return;
      case "undefined":
        this.#tag(UNDEFINED);
        return;
      case "bigint":
        // msgpackr writes int64 or uint64; beyond those it throws (the caller's encoding then throws the same).
        if (value < -0x8000000000000000n || value >= 0x10000000000000000n) throw UNMODELLED;
        this.#tag(BIGINT);
        this.#refs.push(value);
        return;
      case "object": {
        if (value === null) {
          this.#tag(NULL);
          return;
        }
        // A record batch a broker appends was sent in a message before: sealed, it needs no copy (no walk).
        if (!Object.isExtensible(value) && isSealedWhole(value)) {
          this.#tag(SEALED);
          this.#refs.push(value);
          return;
        }
        const valueClass = value.constructor;
        if (valueClass === Object) this.#object(value as Record<string, unknown>);
        else if (valueClass === Array) this.#array(value as unknown[]);
        else if (valueClass === Uint8Array || valueClass === Buffer) {
          // Pooled like the codec's own frames (ownCopy in codec.ts).
          const bytes = Buffer.allocUnsafe((value as Uint8Array).length);
          bytes.set(value as Uint8Array);
          this.#tag(BYTES);
          this.#refs.push(bytes);
        } else throw UNMODELLED;
        return;
      }
      default:
        throw UNMODELLED;
    }
  }

  #object(object: Record<string, unknown>): void {
    const ownOnly = this.#plainPrototype && Object.getPrototypeOf(object) === Object.prototype;
    const node = followKeys(this.#root, object, ownOnly, keyNode);
    if (node.shape < 0) {
      const keys = Object.keys(object);
      // A rebuilt object could not take "__proto__" as a key (assigning it sets the prototype).
      if (keys.includes("__proto__")) throw UNMODELLED;
      node.shape = this.#shapes.length;
      this.#shapes.push(keys);
    }
    this.#tag(OBJECT);
    this.#cell(node.shape);
    for (const key in object) {
      if (ownOnly || typeof object.hasOwnProperty !== "function" || Object.hasOwn(object, key)) this.#value(object[key]);
    }
  }

  #array(array: unknown[]): void {
    const length = array.length;
    this.#tag(ARRAY);
    this.#cell(length);
    for (let i = 0; i < length; i++) this.#value(array[i]);
  }
}

/** Rebuilds a tape's values in the order they were written, as the codec gives them back (fresh objects, byte arrays copied). */
export class ValueTapeReader {
  readonly #tape: TapeStreams;
  #tag = 0;
  #cell = 0;
  #ref = 0;

  constructor(tape: TapeStreams) {
    this.#tape = tape;
  }

  next(): unknown {
    const tape = this.#tape;
    const tag = tape.tags[this.#tag++];
    switch (tag) {
      case UNDEFINED:
        return undefined;
      case NULL:
        return null;
      case FALSE:
        return false;
      case TRUE:
        return true;
      case NUMBER: {
        // A number read from a Float64Array is a heap number even when it is an integer. Stored in a rebuilt
        // object, it would turn a field that actors' objects of the same shape keep as a small integer into a
        // double field (hidden classes are shared): their optimized code would be thrown away and their
        // objects slowed (measured: twice the deoptimizations on chaos-data). `| 0` makes it a small integer
        // again, as the codec's decoder gives it (and -0 becomes 0, as the codec writes it).
        const number = tape.cells[this.#cell++] as number;
        return (number | 0) === number ? number | 0 : number;
      }
      case STRING: {
        const text = tape.refs[this.#ref++] as string;
        // The codec does not keep a lone surrogate: a string with surrogates reads as its round trip gives it.
        return SURROGATE.test(text) ? decodeUnchecked(encodeValue(text)) : text;
      }
      case BIGINT:
        return tape.refs[this.#ref++];
      case OBJECT: {
        const keys = tape.shapes[tape.cells[this.#cell++] as number] as readonly string[];
        const object: Record<string, unknown> = {};
        for (const key of keys) object[key] = this.next();
        return object;
      }
      case ARRAY: {
        const length = tape.cells[this.#cell++] as number;
        const array: unknown[] = [];
        for (let i = 0; i < length; i++) array.push(this.next());
        return array;
      }
      case BYTES:
        return Buffer.from(tape.refs[this.#ref++] as Uint8Array);
      case SEALED:
        // Read only when an actor restarts: a fresh copy, as the codec's round trip gives the value back.
        return decodeUnchecked(encodeValue(tape.refs[this.#ref++]));
      default:
        throw new Error(`value tape: unknown tag ${tag} at ${this.#tag - 1}`);
    }
  }
}
