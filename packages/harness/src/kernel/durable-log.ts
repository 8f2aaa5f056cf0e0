import { type DurableLog, decodeUnchecked, encodeValue } from "@kcsim/protocol";
import { NOT_PLAIN, plainRecordCopy } from "./plain-record-copy.js";

/** A record kept only as its frame. */
const FRAME_ONLY: unique symbol = Symbol("frame only");

export interface MemoryDurableLogOptions {
  /**
   * Whether the log is mirrored elsewhere, so each appended record's frame
   * is wanted at once (`last()`): the worker hosts ship it to the main
   * thread. An unmirrored log (the inline host's) encodes a plain record
   * only if `encoded()` is asked for. Default: mirrored.
   */
  readonly mirrored?: boolean;
}

/**
 * An in-memory DurableLog. What an actor reads back after a restart is a
 * copy: it can never share an object with the instance that crashed.
 * - A plain-data record (plainRecordCopy) is kept as a private deep copy
 *   made when it is appended (nothing encoded), and every read hands out a
 *   fresh copy of that, which reads exactly as a decoded copy of the
 *   record's frame would. Its frame is made lazily, once, for a host that
 *   needs bytes.
 * - Any other record (byte arrays, Maps, ...), and every record of a log
 *   rebuilt from frames, is kept as its frame; every read decodes it.
 * The worker hosts mirror every appended record (`last()`) and hand the
 * frames (`encoded()`) to another thread to rebuild the log there.
 */
export class MemoryDurableLog implements DurableLog {
  /** Each record as the log's own plain copy, or FRAME_ONLY. */
  readonly #values: unknown[] = [];
  /** Each record's frame, or undefined until one is needed. */
  readonly #frames: (Uint8Array | undefined)[] = [];
  readonly #mirrored: boolean;

  constructor(records: readonly Uint8Array[] = [], options: MemoryDurableLogOptions = {}) {
    this.#mirrored = options.mirrored ?? true;
    for (const frame of records) this.appendEncoded(frame);
  }

  append(record: unknown): void {
    const copy = plainRecordCopy(record);
    if (copy !== NOT_PLAIN) {
      this.#values.push(copy);
      this.#frames.push(undefined);
    } else {
      this.#values.push(FRAME_ONLY);
      this.#frames.push(encodeValue(record));
    }
  }

  /** Appends an already-encoded record (mirroring a log kept elsewhere). */
  appendEncoded(record: Uint8Array): void {
    this.#values.push(FRAME_ONLY);
    this.#frames.push(record);
  }

  /** Every record, oldest first: fresh copies, so mutating them changes nothing. */
  readAll(): unknown[] {
    const values = this.#values;
    const all = new Array<unknown>(values.length);
    for (let i = 0; i < values.length; i++) {
      const value = values[i];
      all[i] = value === FRAME_ONLY ? decodeUnchecked(this.#frames[i] as Uint8Array) : plainRecordCopy(value);
    }
    return all;
  }

  get length(): number {
    return this.#values.length;
  }

  /** The encoded records, oldest first. */
  encoded(): readonly Uint8Array[] {
    const frames = this.#frames;
    for (let i = 0; i < frames.length; i++) this.#frameAt(i);
    return frames as readonly Uint8Array[];
  }

  /**
   * The most recently appended encoded record, for a host that mirrors the
   * log; undefined when the log is empty or not mirrored (then nobody reads
   * its frames one by one, so none is made here).
   */
  last(): Uint8Array | undefined {
    const index = this.#frames.length - 1;
    if (index < 0 || !this.#mirrored) return undefined;
    return this.#frameAt(index);
  }

  #frameAt(index: number): Uint8Array {
    let frame = this.#frames[index];
    if (frame === undefined) {
      frame = encodeValue(this.#values[index]);
      this.#frames[index] = frame;
    }
    return frame;
  }
}
