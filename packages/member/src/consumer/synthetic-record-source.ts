import {
  NO_RECORDS,
  type OffsetResetStrategy,
  type PolledRange,
  type PolledRecords,
  type PositionProblem,
  type RecordSource,
} from "@kcsim/fetch";
import { type Context, compareTp, MICROS_PER_SECOND, type Micros, type TopicPartition, tpKey } from "@kcsim/protocol";
import type { SyntheticSourceConfig } from "./consumer-member-config.js";
import { type SyntheticRecordClock, SyntheticRecords } from "./synthetic-records.js";

interface HeldPartition {
  readonly partition: TopicPartition;
  fetchable: boolean;
  position: number | null;
  /** The assign() that last listed it. */
  assignedAt: number;
}

/**
 * A RecordSource without a data path: every partition of every topic is a
 * log that grows at recordsPerSecondPerPartition from virtual time 0
 * (offset n arrives at n / rate seconds; log start offset 0), and poll()
 * hands out what has arrived at the partitions' positions. Keys and values
 * name the record ("T1-3@17"), so checkers can follow it.
 */
export class SyntheticRecordSource implements RecordSource, SyntheticRecordClock {
  readonly #rate: number;
  readonly recordBytes: number;
  readonly #held = new Map<string, HeldPartition>();
  /** The held partitions sorted by partition (the order poll() takes them in), rebuilt when the assignment changes. */
  #sorted: HeldPartition[] = [];
  /** A poll's scratch: the places in #sorted of the partitions it found ready (as long as #sorted). */
  #readyAt = new Int32Array(0);
  /** The last endOffset() asked for: every poll and wake-up of a member asks again at the same instant. */
  #endAt: Micros = -1;
  #end = 0;
  /**
   * The lowest position of a fetchable partition (null: none has one), or
   * undefined once positions or fetchability changed: all partitions share
   * one end offset, so records are ready exactly when it is below the end,
   * and the first to arrive is at it. A waiting member asks after every
   * event; this spares it a pass over its partitions each time.
   */
  #lowest: number | null | undefined;
  #problems: PositionProblem[] = [];
  #assigns = 0;
  #lastNow: Micros = 0;
  #rotation = 0;

  constructor(config: SyntheticSourceConfig) {
    this.#rate = config.recordsPerSecondPerPartition;
    this.recordBytes = config.recordBytes;
  }

  /** When offset `offset` of any partition arrives (integer microseconds). */
  arrivalTime(offset: number): Micros {
    return arrivalMicros(offset, this.#rate);
  }

  /** The log end offset at `now`: how many records have arrived. */
  endOffset(now: Micros): number {
    if (this.#rate <= 0 || now < 0) return 0;
    if (now === this.#endAt) return this.#end;
    // Estimate with floats, then settle exactly against arrivalTime.
    let end = arrivedEstimate(now, this.#rate);
    while (end > 0 && this.arrivalTime(end - 1) > now) end--;
    while (this.arrivalTime(end) <= now) end++;
    this.#endAt = now;
    this.#end = end;
    return end;
  }

  assign(partitions: readonly TopicPartition[], ctx: Context): void {
    this.#lowest = undefined;
    this.#lastNow = ctx.now();
    // Each listed partition is stamped with this call; the unstamped ones are dropped after. A partition listed
    // twice is taken once (its first listing), one held already keeps its state.
    const assign = ++this.#assigns;
    const held = this.#held;
    const sorted: HeldPartition[] = [];
    let inOrder = true;
    for (const tp of partitions) {
      const key = tpKey(tp.topic, tp.partition);
      let entry = held.get(key);
      if (entry === undefined) {
        entry = { partition: tp, fetchable: true, position: null, assignedAt: assign };
        held.set(key, entry);
      } else if (entry.assignedAt === assign) {
        continue;
      } else {
        entry.assignedAt = assign;
      }
      const last = sorted[sorted.length - 1];
      if (last !== undefined && compareTp(last.partition, entry.partition) > 0) inOrder = false;
      sorted.push(entry);
    }
    if (held.size > sorted.length) for (const [key, entry] of held) if (entry.assignedAt !== assign) held.delete(key);
    // The assigned partitions usually come sorted already.
    this.#sorted = inOrder ? sorted : sorted.sort((a, b) => compareTp(a.partition, b.partition));
    if (this.#readyAt.length < sorted.length) this.#readyAt = new Int32Array(sorted.length);
  }

  setFetchable(partitions: readonly TopicPartition[], fetchable: boolean, ctx: Context): void {
    this.#lowest = undefined;
    this.#lastNow = ctx.now();
    for (const tp of partitions) {
      const held = this.#held.get(tpKey(tp.topic, tp.partition));
      if (held !== undefined) held.fetchable = fetchable;
    }
  }

  seek(partition: TopicPartition, offset: number, ctx: Context): void {
    this.#lowest = undefined;
    this.#lastNow = ctx.now();
    const held = this.#held.get(tpKey(partition.topic, partition.partition));
    if (held !== undefined) held.position = Math.max(0, offset);
  }

  resetPosition(partition: TopicPartition, strategy: OffsetResetStrategy, ctx: Context): void {
    this.#lowest = undefined;
    this.#lastNow = ctx.now();
    const held = this.#held.get(tpKey(partition.topic, partition.partition));
    if (held === undefined) return;
    switch (strategy) {
      case "earliest":
        held.position = 0;
        return;
      case "latest":
        held.position = this.endOffset(ctx.now());
        return;
      case "none":
        this.#problems.push({ partition, problem: "no-offset" });
        return;
    }
  }

  position(partition: TopicPartition): number | null {
    return this.#held.get(tpKey(partition.topic, partition.partition))?.position ?? null;
  }

  poll(maxRecords: number, ctx: Context): PolledRecords {
    const now = ctx.now();
    this.#lastNow = now;
    const end = this.endOffset(now);
    const lowest = this.#lowestPosition();
    if (lowest === null || lowest >= end) return NO_RECORDS;
    this.#lowest = undefined;
    // Take the ready partitions in order, starting each poll at a different one so a small max.poll.records does not starve any.
    const sorted = this.#sorted;
    const readyAt = this.#readyAt;
    let ready = 0;
    for (let i = 0; i < sorted.length; i++) if (isReady(sorted[i] as HeldPartition, end)) readyAt[ready++] = i;
    const first = this.#rotation++ % ready;
    // Each ready partition, in order from the first, takes a run of offsets from its position: as many as have
    // arrived and the poll still has room for.
    const ranges: PolledRange[] = [];
    let count = 0;
    for (let k = 0; k < ready && count < maxRecords; k++) {
      const held = sorted[readyAt[(first + k) % ready] as number] as HeldPartition;
      const { topic, partition } = held.partition;
      const firstOffset = held.position as number;
      const taken = Math.min(end - firstOffset, maxRecords - count);
      ranges.push({ topic, partition, firstOffset, lastOffset: firstOffset + taken - 1, count: taken });
      count += taken;
      held.position = firstOffset + taken;
    }
    return new SyntheticRecords(ranges, count, this);
  }

  /** Whether records are ready as of the last time the source saw (this source has no clock of its own). */
  hasRecords(): boolean {
    const lowest = this.#lowestPosition();
    return lowest !== null && lowest < this.endOffset(this.#lastNow);
  }

  takePositionProblems(): PositionProblem[] {
    const problems = this.#problems;
    this.#problems = [];
    return problems;
  }

  lag(partition: TopicPartition): number | null {
    const position = this.position(partition);
    return position === null ? null : Math.max(0, this.endOffset(this.#lastNow) - position);
  }

  receive(): boolean {
    return false;
  }

  fire(): boolean {
    return false;
  }

  nextReadyAt(now: Micros): Micros | null {
    this.#lastNow = now;
    if (this.#rate <= 0) return null;
    // Arrival times grow with the offset, so the lowest position arrives first.
    const lowest = this.#lowestPosition();
    return lowest === null ? null : Math.max(now, this.arrivalTime(lowest));
  }

  #lowestPosition(): number | null {
    if (this.#lowest !== undefined) return this.#lowest;
    let lowest: number | null = null;
    for (const held of this.#sorted) {
      if (held.fetchable && held.position !== null && (lowest === null || held.position < lowest)) lowest = held.position;
    }
    this.#lowest = lowest;
    return lowest;
  }
}

/**
 * When offset `offset` arrives at `rate` records per second (integer microseconds).
 *
 * V8 compiles `offset * MICROS_PER_SECOND` as a 32-bit integer multiply as
 * long as every product it has seen fitted in one. The first that does not
 * (offset 2,148 and up) throws away the optimized code of poll() and of
 * everything else that inlined this, to compile it all again: five
 * functions in a cold 600 s chaos-consumer run, about 2% of its
 * instructions. Products past 2^31 at load (below) teach it floating point
 * from the start; the numbers are the same either way.
 */
function arrivalMicros(offset: number, rate: number): Micros {
  return Math.ceil((offset * MICROS_PER_SECOND) / rate);
}

/** How many records have arrived by `now` at `rate`, estimated in floating point (endOffset settles it exactly). */
function arrivedEstimate(now: Micros, rate: number): number {
  return Math.floor((now * rate) / MICROS_PER_SECOND) + 1;
}

// See arrivalMicros. Sixteen calls each: V8 keeps no type feedback for a function's first eight.
for (let i = 0; i < 16; i++) {
  arrivalMicros(2 ** 31 + i, 1);
  arrivedEstimate(2 ** 31 + i, 1);
}

/** Whether records past the partition's position have arrived by `end` (and it may be fetched). */
function isReady(held: HeldPartition, end: number): boolean {
  return held.fetchable && held.position !== null && held.position < end;
}
