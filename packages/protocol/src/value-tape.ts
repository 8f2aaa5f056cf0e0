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
 * tag per value in a byte array, int32 numbers, object shapes and array
 * lengths in an Int32Array (both off the heap), other numbers, strings and
 * bigints (immutable) by reference, byte arrays copied. A value that
 * sending has sealed whole (frozen with everything in it, no byte arrays:
 * a record batch a broker fetched, see isSealedWhole) is immutable too,
 * and is kept by reference; it is copied only when read.
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
/** The number is the next reference (one that is not an int32: most numbers are, see INT). */
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
/** The number is the next cell (an int32; -0 is written as 0, as the codec writes it). */
const INT = 11;

/** Any UTF-16 surrogate code unit (paired or not). */
const SURROGATE = /[\ud800-\udfff]/;

/** Thrown inside the walk for a value it does not model. */
const UNMODELLED = Symbol("unmodelled");

/** A node of a tape's key-sequence trie: the object shape reached by the keys so far. */
interface KeyNode extends KeyTrieNode<KeyNode> {
  /** Its index in the tape's shapes, once an object ended here; else -1. */
  shape: number;
}

/**
 * The tape's typed arrays grow by adding chunks, never by copying: a tape
 * that doubled one array would copy everything it held at each doubling, and
 * each large array is fresh memory that the kernel must fault in page by
 * page (on this project's machines, growing one Float64Array to 32 MB by
 * doubling took about 100 ms; 64 KB chunks of the same, reused, 6 ms).
 * Integers take 4 bytes, not 8 (INT). Chunks start small (many logs stay
 * empty) and double up to CHUNK_BYTES, under glibc's mmap threshold, so
 * the memory of a finished run's tapes is reused by the next run's.
 */
const CHUNK_BYTES = 64 * 1024;
const FIRST_TAG_CHUNK = 256;
const FIRST_CELL_CHUNK = 64;
const REF_CHUNK = 8192;

/**
 * The chunk at `index` of `chunks`: one a refused value left there (see write), or a new one, twice as long
 * as the chunk before it (`previous` items) up to CHUNK_BYTES.
 */
function chunkAt<A extends Uint8Array | Int32Array>(
  chunks: A[],
  index: number,
  previous: number,
  make: { new (length: number): A; readonly BYTES_PER_ELEMENT: number },
): A {
  let chunk = chunks[index];
  if (chunk === undefined) {
    chunk = new make(Math.min(previous * 2, CHUNK_BYTES / make.BYTES_PER_ELEMENT));
    chunks.push(chunk);
  }
  return chunk;
}

const keyNode = (): KeyNode => ({ ...unlinkedNode<KeyNode>(), shape: -1 });

/** The streams a reader rebuilds values from. */
interface TapeStreams {
  /** The tags in chunks, in order (a chunk's items all written, except past the tape's end in the last ones). */
  readonly tags: readonly Uint8Array[];
  readonly cells: readonly Int32Array[];
  readonly refs: readonly (readonly unknown[])[];
  readonly shapes: readonly (readonly string[])[];
}

/** An append-only tape of values; `reader` rebuilds them in order. */
export class ValueTape {
  // Chunks (see CHUNK_BYTES): the current one, its index, and the next free item in it.
  readonly #tagChunks: Uint8Array[] = [new Uint8Array(FIRST_TAG_CHUNK)];
  #tags = this.#tagChunks[0] as Uint8Array;
  #tagChunk = 0;
  #tagAt = 0;
  readonly #cellChunks: Int32Array[] = [new Int32Array(FIRST_CELL_CHUNK)];
  #cells = this.#cellChunks[0] as Int32Array;
  #cellChunk = 0;
  #cellAt = 0;
  /** References in chunks of REF_CHUNK (one growing array would be copied as it grew, and the copies are fresh memory). */
  readonly #refChunks: unknown[][] = [[]];
  #refs = this.#refChunks[0] as unknown[];
  readonly #root = keyNode();
  /** The key lists of the objects written, by shape index. */
  readonly #shapes: string[][] = [];
  /** Whether Object.prototype has no enumerable keys (checked once per value): then for-in of a plain object yields its own keys only. */
  #plainPrototype = true;

  /** Appends `value` and returns true; false (the tape unchanged) if the value holds something the tape does not model. */
  write(value: unknown): boolean {
    const tagChunk = this.#tagChunk;
    const tagAt = this.#tagAt;
    const cellChunk = this.#cellChunk;
    const cellAt = this.#cellAt;
    const refChunk = this.#refChunks.length - 1;
    const refs = this.#refs.length;
    this.#plainPrototype = objectPrototypeIsClean();
    try {
      this.#value(value);
      return true;
    } catch {
      // UNMODELLED, or anything the walk ran into (a cycle's stack overflow, a throwing getter): let the codec answer.
      // The chunks it filled stay, to be written over by the next values.
      this.#tagChunk = tagChunk;
      this.#tags = this.#tagChunks[tagChunk] as Uint8Array;
      this.#tagAt = tagAt;
      this.#cellChunk = cellChunk;
      this.#cells = this.#cellChunks[cellChunk] as Int32Array;
      this.#cellAt = cellAt;
      this.#refChunks.length = refChunk + 1;
      this.#refs = this.#refChunks[refChunk] as unknown[];
      this.#refs.length = refs;
      return false;
    }
  }

  /** A reader of the values written so far, oldest first. */
  reader(): ValueTapeReader {
    return new ValueTapeReader({ tags: this.#tagChunks, cells: this.#cellChunks, refs: this.#refChunks, shapes: this.#shapes });
  }

  #tag(tag: number): void {
    if (this.#tagAt === this.#tags.length) this.#nextTagChunk();
    this.#tags[this.#tagAt++] = tag;
  }

  #cell(cell: number): void {
    if (this.#cellAt === this.#cells.length) this.#nextCellChunk();
    this.#cells[this.#cellAt++] = cell;
  }

  #ref(ref: unknown): void {
    if (this.#refs.length === REF_CHUNK) {
      this.#refs = [];
      this.#refChunks.push(this.#refs);
    }
    this.#refs.push(ref);
  }

  #nextTagChunk(): void {
    this.#tags = chunkAt(this.#tagChunks, ++this.#tagChunk, this.#tags.length, Uint8Array);
    this.#tagAt = 0;
  }

  #nextCellChunk(): void {
    this.#cells = chunkAt(this.#cellChunks, ++this.#cellChunk, this.#cells.length, Int32Array);
    this.#cellAt = 0;
  }

  #value(value: unknown): void {
    switch (typeof value) {
      case "number":
        if ((value | 0) === value) {
          this.#tag(INT);
          this.#cell(value);
        } else {
          this.#tag(NUMBER);
          this.#ref(value);
        }
        return;
      case "string":
        this.#tag(STRING);
        this.#ref(value);
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
        this.#ref(value);
        return;
      case "object": {
        if (value === null) {
          this.#tag(NULL);
          return;
        }
        // A record batch a broker appends was sent in a message before: sealed, it needs no copy (no walk).
        if (!Object.isExtensible(value) && isSealedWhole(value)) {
          this.#tag(SEALED);
          this.#ref(value);
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
          this.#ref(bytes);
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
  /** The chunk of the next tag, its index and the position in it (so for cells and references). */
  #tags: Uint8Array;
  #tagChunk = 0;
  #tagAt = 0;
  #cells: Int32Array;
  #cellChunk = 0;
  #cellAt = 0;
  #refs: readonly unknown[];
  #refChunk = 0;
  #refAt = 0;
  /** Tags asked for (one past the last chunk included), for errors. */
  #tagsRead = 0;

  constructor(tape: TapeStreams) {
    this.#tape = tape;
    this.#tags = tape.tags[0] as Uint8Array;
    this.#cells = tape.cells[0] as Int32Array;
    this.#refs = tape.refs[0] as readonly unknown[];
  }

  #nextTag(): number | undefined {
    this.#tagsRead++;
    if (this.#tagAt === this.#tags.length) {
      const next = this.#tape.tags[this.#tagChunk + 1];
      if (next === undefined) return undefined;
      this.#tags = next;
      this.#tagChunk++;
      this.#tagAt = 0;
    }
    return this.#tags[this.#tagAt++];
  }

  #nextCell(): number {
    if (this.#cellAt === this.#cells.length) {
      this.#cells = this.#tape.cells[++this.#cellChunk] as Int32Array;
      this.#cellAt = 0;
    }
    return this.#cells[this.#cellAt++] as number;
  }

  #nextRef(): unknown {
    if (this.#refAt === REF_CHUNK) {
      this.#refs = this.#tape.refs[++this.#refChunk] as readonly unknown[];
      this.#refAt = 0;
    }
    return this.#refs[this.#refAt++];
  }

  next(): unknown {
    const tape = this.#tape;
    const tag = this.#nextTag();
    switch (tag) {
      case UNDEFINED:
        return undefined;
      case NULL:
        return null;
      case FALSE:
        return false;
      case TRUE:
        return true;
      case INT:
        // Read from an Int32Array, a small integer as the codec's decoder gives it: a heap number stored in a
        // rebuilt object would turn a field that actors' objects of the same shape keep as a small integer
        // into a double field (hidden classes are shared), and their optimized code would be thrown away
        // (measured, when numbers were kept as doubles: twice the deoptimizations on chaos-data).
        return this.#nextCell();
      case NUMBER:
        return this.#nextRef();
      case STRING: {
        const text = this.#nextRef() as string;
        // The codec does not keep a lone surrogate: a string with surrogates reads as its round trip gives it.
        return SURROGATE.test(text) ? decodeUnchecked(encodeValue(text)) : text;
      }
      case BIGINT:
        return this.#nextRef();
      case OBJECT: {
        const keys = tape.shapes[this.#nextCell()] as readonly string[];
        const object: Record<string, unknown> = {};
        for (const key of keys) object[key] = this.next();
        return object;
      }
      case ARRAY: {
        const length = this.#nextCell();
        const array: unknown[] = [];
        for (let i = 0; i < length; i++) array.push(this.next());
        return array;
      }
      case BYTES:
        return Buffer.from(this.#nextRef() as Uint8Array);
      case SEALED:
        // Read only when an actor restarts: a fresh copy, as the codec's round trip gives the value back.
        return decodeUnchecked(encodeValue(this.#nextRef()));
      default:
        throw new Error(`value tape: unknown tag ${tag} at ${this.#tagsRead - 1}`);
    }
  }
}
