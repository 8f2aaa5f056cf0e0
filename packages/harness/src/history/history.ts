import { createHash, type Hash } from "node:crypto";
import { BlockStore } from "./block-store.js";
import { ByteWriter } from "./byte-writer.js";
import { EventLog } from "./event-log.js";
import { HistoryEncoder } from "./history-codec.js";
import type { HistoryEvent, HistoryHeader } from "./history-event.js";

/** Whatever reads a run's events as they are recorded (a run's HistoryPass: its checkers and metrics judge as it goes). */
export interface HistoryFollower {
  accept(event: HistoryEvent, index: number): void;
}

export interface HistoryOptions {
  /** Keep the events (their binary records) for checkers and reports to read back. Default true. */
  readonly keepEvents?: boolean;
  /**
   * Handed each event as it is recorded, with its index. An object, not a callback: the History calls its
   * accept method directly, which a hunt does for every event (a callback that forwarded to a pass was one more
   * call per event: at most about 1% of a hunt's instructions, see docs/performance.md).
   */
  readonly follower?: HistoryFollower;
  /** Called with each event's JSON line, the header's first (history.jsonl, written as the run goes). */
  readonly onLine?: (line: string) => void;
  /** Bytes of records kept in memory before later ones spill to a temporary file (default 256 MiB). */
  readonly memoryBudget?: number;
  /**
   * Default true. False: the events are only handed to the follower, with their indexes, as they are recorded;
   * nothing is encoded, hashed or kept, and finish() returns the empty string (a hunt's run is judged as it
   * goes, and a failing seed is run again with its history). Cannot be combined with onLine.
   */
  readonly recorded?: boolean;
}

/** A block is sealed (hashed, stored) once it holds this many bytes; blocks are read back one at a time. */
const BLOCK_BYTES = 64 * 1024;

/**
 * The run's history: every event recorded as a compact binary record
 * (history-codec.ts), hashed block by block as it is written. The history
 * hash, which proves two runs (or two hosts) made the same decisions, is
 * the SHA-256 of the header's JSON line (with its "\n") followed by the
 * record stream. JSON lines are made only for whoever asks (onLine):
 * `run --out` streams them to history.jsonl.
 */
export class History {
  readonly header: HistoryHeader;
  readonly #keep: boolean;
  readonly #recorded: boolean;
  readonly #follower: HistoryFollower | undefined;
  readonly #onLine: ((line: string) => void) | undefined;
  readonly #hash: Hash = createHash("sha256");
  readonly #encoder = new HistoryEncoder();
  /** The open block (a history that is not recorded writes nothing: a token buffer, not 128 KB per run). */
  readonly #writer: ByteWriter;
  readonly #store: BlockStore;
  /** The index of each stored block's first event. */
  readonly #firstEvents: number[] = [];
  readonly #log: EventLog;
  #blockStart = 0;
  #count = 0;
  #digest: string | null = null;
  /** Events recorded while held (hold()), in order, not yet encoded. */
  #held: HistoryEvent[] | null = null;

  constructor(header: HistoryHeader, options: HistoryOptions = {}) {
    this.header = header;
    this.#recorded = options.recorded ?? true;
    this.#writer = new ByteWriter(this.#recorded ? 2 * BLOCK_BYTES : 8);
    if (!this.#recorded && options.onLine !== undefined) throw new Error("a history that is not recorded has no lines to write");
    this.#keep = this.#recorded && (options.keepEvents ?? true);
    this.#follower = options.follower;
    this.#onLine = options.onLine;
    this.#store = new BlockStore(options.memoryBudget);
    if (this.#recorded) {
      const line = JSON.stringify(header);
      this.#hash.update(`${line}\n`);
      this.#onLine?.(line);
    }
    const history = this;
    this.#log = new EventLog({
      tables: this.#encoder.tables,
      get events() {
        return history.#keep ? history.#count : 0;
      },
      get blocks() {
        return history.#keep ? history.#store.count + (history.#writer.pos > 0 ? 1 : 0) : 0;
      },
      block: (index) => (index < this.#store.count ? this.#store.get(index) : this.#writer.bytes.subarray(0, this.#writer.pos)),
      firstEventOf: (index) => (index < this.#firstEvents.length ? (this.#firstEvents[index] as number) : this.#blockStart),
    });
  }

  record(event: HistoryEvent): void {
    if (this.#digest !== null) throw new Error("history already finished");
    if (this.#held !== null) {
      this.#held.push(event);
      return;
    }
    const index = this.#count++;
    if (!this.#recorded) {
      this.#follower?.accept(event, index);
      return;
    }
    const writer = this.#writer;
    this.#encoder.encode(event, writer);
    if (writer.pos >= BLOCK_BYTES) this.#seal();
    this.#follower?.accept(event, index);
    if (this.#onLine !== undefined) this.#onLine(JSON.stringify(event));
  }

  /**
   * Holds back the encoding of the events recorded from now on until release(): they keep their order, and
   * nothing may change an event after recording it. The lockstep host holds a window's events while it
   * applies the window's effects and releases them once the next window is on its way to the workers, so
   * their encoding overlaps the workers' turn instead of preceding it.
   */
  hold(): void {
    this.#held ??= [];
  }

  /** Records the events held back since hold(), in order, and stops holding. */
  release(): void {
    const held = this.#held;
    if (held === null) return;
    this.#held = null;
    for (const event of held) this.record(event);
  }

  /** Events recorded, the header excluded (held ones once released). */
  get length(): number {
    return this.#count;
  }

  /** The recorded events, read back from their records (none when the history keeps no events). */
  get log(): EventLog {
    return this.#log;
  }

  /** Bytes of binary records so far. */
  get bytes(): number {
    return this.#store.bytes + this.#writer.pos;
  }

  /** Seals the history and returns its hash (hex), or the empty string when it is not recorded. Idempotent. */
  finish(): string {
    this.release();
    if (this.#digest === null) {
      if (!this.#recorded) this.#digest = "";
      else {
        if (this.#writer.pos > 0) this.#seal();
        this.#digest = this.#hash.digest("hex");
      }
    }
    return this.#digest;
  }

  /** Hashes the open block, stores it (when events are kept) and starts the next; each block's times start from 0. */
  #seal(): void {
    const block = this.#writer.take();
    this.#hash.update(block);
    if (this.#keep) {
      this.#store.add(block);
      this.#firstEvents.push(this.#blockStart);
    }
    this.#blockStart = this.#count;
    this.#encoder.startBlock();
  }
}
