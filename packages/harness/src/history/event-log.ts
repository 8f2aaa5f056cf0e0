import { ByteReader } from "./byte-reader.js";
import { HistoryDecoder, type HistoryTables } from "./history-codec.js";
import type { HistoryEvent } from "./history-event.js";

/** What an EventLog reads: the history's blocks (the last one may still be open) and its tables. */
export interface EventBlocks {
  readonly tables: HistoryTables;
  /** Events in all blocks. */
  readonly events: number;
  /** Blocks, the open one included when it holds events. */
  readonly blocks: number;
  block(index: number): Uint8Array;
  /** The index of the first event of a block. */
  firstEventOf(index: number): number;
}

/**
 * A run's recorded events, read back from the binary history: in order
 * (iteration, forEach), by index (at), or all at once as objects
 * (toArray, for code that wants an array). Each read decodes the events it
 * returns afresh, so holding the log costs only its bytes.
 */
export class EventLog implements Iterable<HistoryEvent> {
  readonly #source: EventBlocks;
  readonly #decoder: HistoryDecoder;
  #array: { readonly length: number; readonly events: HistoryEvent[] } | null = null;

  constructor(source: EventBlocks) {
    this.#source = source;
    this.#decoder = new HistoryDecoder(source.tables);
  }

  get length(): number {
    return this.#source.events;
  }

  /** Calls `visit` with every event and its index, in order; stops early when it returns false. */
  forEach(visit: (event: HistoryEvent, index: number) => undefined | boolean): void {
    const source = this.#source;
    const blocks = source.blocks;
    const decoder = this.#decoder;
    let index = 0;
    for (let b = 0; b < blocks; b++) {
      const input = new ByteReader(source.block(b));
      let t = 0;
      while (!input.done) {
        const event = decoder.decode(input, t);
        t = event.t;
        if (visit(event, index++) === false) return;
      }
    }
  }

  *[Symbol.iterator](): Iterator<HistoryEvent> {
    const source = this.#source;
    const blocks = source.blocks;
    for (let b = 0; b < blocks; b++) {
      const input = new ByteReader(source.block(b));
      let t = 0;
      while (!input.done) {
        const event = this.#decoder.decode(input, t);
        t = event.t;
        yield event;
      }
    }
  }

  /** The event at `index`, or undefined past the end. */
  at(index: number): HistoryEvent | undefined {
    const source = this.#source;
    if (!Number.isInteger(index) || index < 0 || index >= source.events) return undefined;
    // The last block whose first event is at or before `index`.
    let lo = 0;
    let hi = source.blocks - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (source.firstEventOf(mid) <= index) lo = mid;
      else hi = mid - 1;
    }
    const input = new ByteReader(source.block(lo));
    let t = 0;
    for (let i = source.firstEventOf(lo); ; i++) {
      const event = this.#decoder.decode(input, t);
      if (i === index) return event;
      t = event.t;
    }
  }

  /** Every event as an object, in one array (built once per length of the log). */
  toArray(): readonly HistoryEvent[] {
    if (this.#array !== null && this.#array.length === this.length) return this.#array.events;
    const events: HistoryEvent[] = [];
    this.forEach((event) => {
      events.push(event);
    });
    this.#array = { length: events.length, events };
    return events;
  }
}
