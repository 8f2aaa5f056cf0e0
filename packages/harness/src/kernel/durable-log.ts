import { type DurableLog, decodeUnchecked, encodeValue } from "@kcsim/protocol";

/**
 * An in-memory DurableLog. Records are stored encoded, so what an actor
 * reads back after a restart is a copy: it can never share an object with
 * the instance that crashed. The encoded records can be handed to another
 * thread to rebuild the log there (the worker hosts do).
 */
export class MemoryDurableLog implements DurableLog {
  readonly #records: Uint8Array[];

  constructor(records: readonly Uint8Array[] = []) {
    this.#records = [...records];
  }

  append(record: unknown): void {
    this.#records.push(encodeValue(record));
  }

  /** Appends an already-encoded record (mirroring a log kept elsewhere). */
  appendEncoded(record: Uint8Array): void {
    this.#records.push(record);
  }

  readAll(): unknown[] {
    return this.#records.map((bytes) => decodeUnchecked(bytes));
  }

  get length(): number {
    return this.#records.length;
  }

  /** The encoded records, oldest first. */
  encoded(): readonly Uint8Array[] {
    return this.#records;
  }

  /** The most recently appended encoded record. */
  last(): Uint8Array | undefined {
    return this.#records[this.#records.length - 1];
  }
}
