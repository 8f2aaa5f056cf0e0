import type { ConsumedRecord, OffsetResetStrategy, PositionProblem, RecordSource } from "@kcsim/fetch";
import { type Context, compareTp, MICROS_PER_SECOND, type Micros, type TopicPartition, tpKey } from "@kcsim/protocol";
import type { SyntheticSourceConfig } from "./consumer-member-config.js";

interface HeldPartition {
  readonly partition: TopicPartition;
  fetchable: boolean;
  position: number | null;
}

/**
 * A RecordSource without a data path: every partition of every topic is a
 * log that grows at recordsPerSecondPerPartition from virtual time 0
 * (offset n arrives at n / rate seconds; log start offset 0), and poll()
 * hands out what has arrived at the partitions' positions. Keys and values
 * name the record ("T1-3@17"), so checkers can follow it.
 */
export class SyntheticRecordSource implements RecordSource {
  readonly #rate: number;
  readonly #recordBytes: number;
  readonly #held = new Map<string, HeldPartition>();
  #problems: PositionProblem[] = [];
  #lastNow: Micros = 0;
  #rotation = 0;

  constructor(config: SyntheticSourceConfig) {
    this.#rate = config.recordsPerSecondPerPartition;
    this.#recordBytes = config.recordBytes;
  }

  /** When offset `offset` of any partition arrives (integer microseconds). */
  arrivalTime(offset: number): Micros {
    return Math.ceil((offset * MICROS_PER_SECOND) / this.#rate);
  }

  /** The log end offset at `now`: how many records have arrived. */
  endOffset(now: Micros): number {
    if (this.#rate <= 0 || now < 0) return 0;
    // Estimate with floats, then settle exactly against arrivalTime.
    let end = Math.floor((now * this.#rate) / MICROS_PER_SECOND) + 1;
    while (end > 0 && this.arrivalTime(end - 1) > now) end--;
    while (this.arrivalTime(end) <= now) end++;
    return end;
  }

  assign(partitions: readonly TopicPartition[], ctx: Context): void {
    this.#lastNow = ctx.now();
    const wanted = new Map(partitions.map((tp) => [tpKey(tp.topic, tp.partition), tp]));
    for (const key of [...this.#held.keys()]) if (!wanted.has(key)) this.#held.delete(key);
    for (const [key, partition] of wanted) if (!this.#held.has(key)) this.#held.set(key, { partition, fetchable: true, position: null });
  }

  setFetchable(partitions: readonly TopicPartition[], fetchable: boolean, ctx: Context): void {
    this.#lastNow = ctx.now();
    for (const tp of partitions) {
      const held = this.#held.get(tpKey(tp.topic, tp.partition));
      if (held !== undefined) held.fetchable = fetchable;
    }
  }

  seek(partition: TopicPartition, offset: number, ctx: Context): void {
    this.#lastNow = ctx.now();
    const held = this.#held.get(tpKey(partition.topic, partition.partition));
    if (held !== undefined) held.position = Math.max(0, offset);
  }

  resetPosition(partition: TopicPartition, strategy: OffsetResetStrategy, ctx: Context): void {
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

  poll(maxRecords: number, ctx: Context): ConsumedRecord[] {
    const now = ctx.now();
    this.#lastNow = now;
    const end = this.endOffset(now);
    const ready = this.#readyPartitions(end);
    const records: ConsumedRecord[] = [];
    if (ready.length === 0) return records;
    // Start each poll at a different partition so a small max.poll.records does not starve any.
    const start = this.#rotation++ % ready.length;
    for (let i = 0; i < ready.length && records.length < maxRecords; i++) {
      const held = ready[(start + i) % ready.length] as HeldPartition;
      const { topic, partition } = held.partition;
      let offset = held.position as number;
      while (offset < end && records.length < maxRecords) {
        const name = `${topic}-${partition}@${offset}`;
        records.push({
          topic,
          partition,
          offset,
          timestampMs: Math.floor(this.arrivalTime(offset) / 1000),
          key: name,
          value: name,
          sizeInBytes: this.#recordBytes,
        });
        offset++;
      }
      held.position = offset;
    }
    return records;
  }

  /** Whether records are ready as of the last time the source saw (this source has no clock of its own). */
  hasRecords(): boolean {
    return this.#readyPartitions(this.endOffset(this.#lastNow)).length > 0;
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
    let next: Micros | null = null;
    for (const held of this.#held.values()) {
      if (!held.fetchable || held.position === null) continue;
      const at = Math.max(now, this.arrivalTime(held.position));
      next = next === null ? at : Math.min(next, at);
    }
    return next;
  }

  #readyPartitions(end: number): HeldPartition[] {
    // An idle poll (nothing arrived past the positions) is the common case: no array is sorted for it.
    const ready: HeldPartition[] = [];
    // Positions are never negative: nothing is ready before the first record arrives.
    if (end <= 0) return ready;
    for (const held of this.#held.values()) {
      if (held.fetchable && held.position !== null && held.position < end) ready.push(held);
    }
    if (ready.length > 1) ready.sort((a, b) => compareTp(a.partition, b.partition));
    return ready;
  }
}
