import type { FetchResponsePartition, Micros, RecordBatch, TopicPartition } from "@kcsim/protocol";
import type { FetchMetricsAggregator } from "./fetch-metrics-aggregator.js";
import type { ConsumedRecord } from "./record-source.js";

/** The offset after a batch (Kafka's `RecordBatch.nextOffset`). */
function nextOffsetOf(batch: RecordBatch): number {
  return batch.baseOffset + batch.lastOffsetDelta + 1;
}

/**
 * One partition's data from one fetch response, read record by record as
 * the application polls (Kafka's `CompletedFetch`). Records before the fetch
 * offset (a batch is returned whole even when the fetch starts inside it)
 * are skipped, and so are control batches, whose offsets still advance the
 * next fetch offset; after the last batch the next fetch offset is the
 * batch's next offset, so a batch whose tail was compacted away is not
 * fetched again.
 */
export class CompletedFetch {
  readonly partition: TopicPartition;
  readonly key: string;
  readonly data: FetchResponsePartition;
  /** The offset the request asked for. */
  readonly fetchOffset: number;
  readonly #aggregator: FetchMetricsAggregator;
  #nextFetchOffset: number;
  #batchIndex = 0;
  #recordIndex = 0;
  #bytesRead = 0;
  #recordsRead = 0;
  #consumed = false;

  constructor(
    partition: TopicPartition,
    key: string,
    data: FetchResponsePartition,
    fetchOffset: number,
    aggregator: FetchMetricsAggregator,
  ) {
    this.partition = partition;
    this.key = key;
    this.data = data;
    this.fetchOffset = fetchOffset;
    this.#nextFetchOffset = fetchOffset;
    this.#aggregator = aggregator;
  }

  /** The offset after the last record handed out or skipped: the partition's position once this data is consumed. */
  get nextFetchOffset(): number {
    return this.#nextFetchOffset;
  }

  get isConsumed(): boolean {
    return this.#consumed;
  }

  get bytesRead(): number {
    return this.#bytesRead;
  }

  /**
   * Moves past everything the application never sees, up to the next record
   * to hand out; at the end of the data, drains. True if a record is next.
   */
  advanceToNextRecord(now: Micros): boolean {
    if (this.#consumed) return false;
    const batches = this.data.records;
    while (this.#batchIndex < batches.length) {
      const batch = batches[this.#batchIndex] as RecordBatch;
      if (batch.isControl) {
        // Control records are never returned, but their offsets are consumed.
        this.#nextFetchOffset = Math.max(this.#nextFetchOffset, nextOffsetOf(batch));
        this.#nextBatch();
        continue;
      }
      const record = batch.records[this.#recordIndex];
      if (record === undefined) {
        this.#nextBatch();
        continue;
      }
      if (batch.baseOffset + record.offsetDelta >= this.#nextFetchOffset) return true;
      this.#recordIndex++;
    }
    const last = batches[batches.length - 1];
    if (last !== undefined) this.#nextFetchOffset = Math.max(this.#nextFetchOffset, nextOffsetOf(last));
    this.drain(now);
    return false;
  }

  /** Up to `maxRecords` records, advancing the next fetch offset past each. */
  fetchRecords(maxRecords: number, now: Micros): ConsumedRecord[] {
    const out: ConsumedRecord[] = [];
    while (out.length < maxRecords && this.advanceToNextRecord(now)) {
      const batch = this.data.records[this.#batchIndex] as RecordBatch;
      const record = batch.records[this.#recordIndex];
      if (record === undefined) break;
      const offset = batch.baseOffset + record.offsetDelta;
      out.push({
        topic: this.partition.topic,
        partition: this.partition.partition,
        offset,
        timestampMs: batch.baseTimestamp + record.timestampDelta,
        key: record.key,
        value: record.value,
        sizeInBytes: record.sizeInBytes,
      });
      this.#recordsRead++;
      this.#bytesRead += record.sizeInBytes;
      this.#nextFetchOffset = offset + 1;
      this.#recordIndex++;
    }
    return out;
  }

  /** Done with this data (consumed, stale or dropped): reports what was read to the response's metrics, once. */
  drain(now: Micros): void {
    if (this.#consumed) return;
    this.#consumed = true;
    this.#aggregator.record(this.key, this.#bytesRead, this.#recordsRead, now);
  }

  #nextBatch(): void {
    this.#batchIndex++;
    this.#recordIndex = 0;
  }
}
