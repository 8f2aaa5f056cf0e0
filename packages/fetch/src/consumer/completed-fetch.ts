import {
  type AbortedTransaction,
  type FetchResponsePartition,
  IsolationLevel,
  type Micros,
  type RecordBatch,
  type TopicPartition,
} from "@kcsim/protocol";
import { containsAbortMarker } from "../records/end-transaction-marker.js";
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
 *
 * Under read_committed, the batches of aborted transactions are skipped too
 * (Kafka's `nextFetchedBatch`): the response's aborted transactions, by
 * first offset, mark their producer as aborted once a batch reaches that
 * offset; that producer's transactional batches are skipped until its
 * ABORT marker, which clears it.
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
  readonly #readCommitted: boolean;
  /** Aborted transactions not reached yet, by first offset (Kafka's priority queue). */
  readonly #abortedTransactions: AbortedTransaction[];
  /** Producers whose aborted transaction is being skipped. */
  readonly #abortedProducerIds = new Set<number>();
  /** The batch whose transaction status was last worked out. */
  #checkedBatch = -1;

  constructor(
    partition: TopicPartition,
    key: string,
    data: FetchResponsePartition,
    fetchOffset: number,
    aggregator: FetchMetricsAggregator,
    isolationLevel: number = IsolationLevel.READ_UNCOMMITTED,
  ) {
    this.partition = partition;
    this.key = key;
    this.data = data;
    this.fetchOffset = fetchOffset;
    this.#nextFetchOffset = fetchOffset;
    this.#aggregator = aggregator;
    this.#readCommitted = isolationLevel === IsolationLevel.READ_COMMITTED;
    this.#abortedTransactions = [...(data.abortedTransactions ?? [])].sort((a, b) => a.firstOffset - b.firstOffset);
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
      if (this.#isAbortedOrMarker(batch)) {
        // An aborted transaction's batch, or a control batch: skipped, but its offsets are consumed.
        this.#nextFetchOffset = Math.max(this.#nextFetchOffset, nextOffsetOf(batch));
        this.#nextBatch();
        continue;
      }
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

  /**
   * Kafka's read_committed check of a batch, done once per batch: aborted
   * transactions starting at or before its last offset become active; an
   * ABORT marker ends its producer's; a transactional batch of a producer
   * with an active aborted transaction is skipped.
   */
  #isAbortedOrMarker(batch: RecordBatch): boolean {
    if (!this.#readCommitted || batch.producerId < 0 || this.#checkedBatch === this.#batchIndex) return false;
    this.#checkedBatch = this.#batchIndex;
    const lastOffset = nextOffsetOf(batch) - 1;
    while (this.#abortedTransactions.length > 0 && (this.#abortedTransactions[0] as AbortedTransaction).firstOffset <= lastOffset) {
      this.#abortedProducerIds.add((this.#abortedTransactions.shift() as AbortedTransaction).producerId);
    }
    if (containsAbortMarker(batch)) {
      this.#abortedProducerIds.delete(batch.producerId);
      return true;
    }
    return batch.isTransactional && this.#abortedProducerIds.has(batch.producerId);
  }

  #nextBatch(): void {
    this.#batchIndex++;
    this.#recordIndex = 0;
  }
}
