import { createHash, type Hash } from "node:crypto";
import type { HistoryEvent, HistoryHeader } from "./history-event.js";

export interface HistoryOptions {
  /** Keep the events in memory (checkers and reports read them). Default true. */
  readonly keepEvents?: boolean;
  /** Called with each serialized line (header included), e.g. to write history.jsonl. */
  readonly onLine?: (line: string) => void;
}

/**
 * Lines are fed to the hash in chunks of about this many characters: one
 * `hash.update` per line (two with its newline) cost more than hashing the
 * bytes themselves. SHA-256 over the concatenation is the same digest.
 */
const HASH_CHUNK_CHARS = 64 * 1024;

/**
 * The run's history: one JSON line per event after a header line, and a
 * SHA-256 over all lines (each followed by "\n"): the history hash that
 * proves two runs (or two hosts) made the same decisions.
 */
export class History {
  readonly header: HistoryHeader;
  readonly events: HistoryEvent[] = [];
  readonly #keep: boolean;
  readonly #onLine: ((line: string) => void) | undefined;
  readonly #hash: Hash = createHash("sha256");
  /** Lines (each with its "\n") not yet fed to the hash. */
  #pending = "";
  #count = 0;
  #digest: string | null = null;

  constructor(header: HistoryHeader, options: HistoryOptions = {}) {
    this.header = header;
    this.#keep = options.keepEvents ?? true;
    this.#onLine = options.onLine;
    this.#line(JSON.stringify(header));
  }

  record(event: HistoryEvent): void {
    if (this.#digest !== null) throw new Error("history already finished");
    this.#count++;
    if (this.#keep) this.events.push(event);
    this.#line(JSON.stringify(event));
  }

  /** Events recorded, the header excluded. */
  get length(): number {
    return this.#count;
  }

  /** Seals the history and returns its hash (hex). Idempotent. */
  finish(): string {
    if (this.#digest === null) {
      this.#flush();
      this.#digest = this.#hash.digest("hex");
    }
    return this.#digest;
  }

  #line(line: string): void {
    this.#pending += `${line}\n`;
    if (this.#pending.length >= HASH_CHUNK_CHARS) this.#flush();
    this.#onLine?.(line);
  }

  #flush(): void {
    this.#hash.update(this.#pending);
    this.#pending = "";
  }
}
