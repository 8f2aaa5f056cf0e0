import { type DurableLog, decodeUnchecked, encodeValue, ValueTape } from "@kcsim/protocol";

/**
 * An in-memory DurableLog. What an actor reads back after a restart can
 * never share an object with the instance that crashed, and changing an
 * object after appending it does not change the log:
 * - `append` writes the record to a ValueTape (structure and numbers in
 *   typed arrays, strings by reference, byte arrays copied), or encodes it
 *   when the tape does not model the value. Nothing is encoded for records
 *   that are never read back, and the tape makes no object per record.
 * - `readAll`, fresh on every call, hands out what decoding each record's
 *   bytes gives, exactly what it handed out when every record was encoded
 *   at its append: a taped record rebuilt as the codec would give it back,
 *   a stored frame copied and decoded (its byte arrays decode as views
 *   into the frame, which must stay the log's).
 * A host that mirrors the log on another thread uses `appendAndEncode` and
 * ships the bytes; the mirror is rebuilt from them with `appendEncoded`.
 */
export class MemoryDurableLog implements DurableLog {
  /** Each record's bytes, or null: the record is the next value on the tape. */
  readonly #records: (Uint8Array | null)[];
  readonly #tape = new ValueTape();

  constructor(records: readonly Uint8Array[] = []) {
    this.#records = [...records];
  }

  append(record: unknown): void {
    this.#records.push(this.#tape.write(record) ? null : encodeValue(record));
  }

  /** Appends a record and returns its bytes (for a mirror of this log elsewhere). */
  appendAndEncode(record: unknown): Uint8Array {
    const bytes = encodeValue(record);
    this.#records.push(bytes);
    return bytes;
  }

  /** Appends an already-encoded record (mirroring a log kept elsewhere). */
  appendEncoded(record: Uint8Array): void {
    this.#records.push(record);
  }

  readAll(): unknown[] {
    const tape = this.#tape.reader();
    return this.#records.map((bytes) => (bytes === null ? tape.next() : decodeUnchecked(Uint8Array.prototype.slice.call(bytes))));
  }

  get length(): number {
    return this.#records.length;
  }

  /** The encoded records, oldest first. */
  encoded(): Uint8Array[] {
    const tape = this.#tape.reader();
    return this.#records.map((bytes) => bytes ?? encodeValue(tape.next()));
  }
}
