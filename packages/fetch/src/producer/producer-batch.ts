import { type Micros, NO_PARTITION_LEADER_EPOCH, NO_PRODUCER_EPOCH, NO_PRODUCER_ID, NO_SEQUENCE, type RecordBatch } from "@kcsim/protocol";
import { RECORD_BATCH_OVERHEAD, recordSizeInBytes } from "./record-size.js";

/** A record as the application handed it to the producer. */
export interface ProducerRecord {
  readonly key: string | null;
  readonly value: string;
  /** Bytes of the value the workload stands for (the value itself is only a tag). */
  readonly valueBytes: number;
  readonly timestampMs: number;
  readonly createdAt: Micros;
}

const utf8 = new TextEncoder();

/**
 * Records for one partition that travel together (Kafka's `ProducerBatch`
 * with its `MemoryRecordsBuilder`): records are added while the estimated
 * size stays within the write limit (batch.size, or the first record if it
 * alone is bigger). It remembers its attempts for retries and the delivery
 * timeout. Producer id, epoch and base sequence stay at their "none"
 * values until idempotence is implemented.
 */
export class ProducerBatch {
  readonly topic: string;
  readonly partition: number;
  readonly createdAt: Micros;
  readonly #records: { record: ProducerRecord; sizeInBytes: number }[] = [];
  readonly #writeLimit: number;
  #sizeInBytes = RECORD_BATCH_OVERHEAD;
  #closed = false;
  attempts = 0;
  lastAttemptAt: Micros;
  /** The retry backoff drawn at the last re-enqueue (with its jitter). */
  retryBackoff: Micros = 0;
  /** Acknowledged, failed or expired: later answers are ignored. */
  done = false;
  producerId = NO_PRODUCER_ID;
  producerEpoch = NO_PRODUCER_EPOCH;
  baseSequence = NO_SEQUENCE;

  constructor(topic: string, partition: number, batchSize: number, first: ProducerRecord) {
    this.topic = topic;
    this.partition = partition;
    this.createdAt = first.createdAt;
    this.lastAttemptAt = first.createdAt;
    this.#writeLimit = Math.max(batchSize, RECORD_BATCH_OVERHEAD + ProducerBatch.recordBytes(first, 0, 0));
    this.#add(first);
  }

  /** A record's size if it were appended at `offsetDelta`, `timestampDelta` into a batch. */
  static recordBytes(record: ProducerRecord, offsetDelta: number, timestampDelta: number): number {
    return recordSizeInBytes(offsetDelta, timestampDelta, record.key === null ? null : utf8.encode(record.key).length, record.valueBytes);
  }

  get recordCount(): number {
    return this.#records.length;
  }

  get sizeInBytes(): number {
    return this.#sizeInBytes;
  }

  get baseTimestampMs(): number {
    return (this.#records[0] as { record: ProducerRecord }).record.timestampMs;
  }

  /** Closed to appends: drained for sending, or no room left. */
  get isFull(): boolean {
    return this.#closed || this.#writeLimit <= this.#sizeInBytes;
  }

  /** Appends if there is room (Kafka's `hasRoomFor`); false otherwise. */
  tryAppend(record: ProducerRecord): boolean {
    if (this.isFull) return false;
    const size = ProducerBatch.recordBytes(record, this.#records.length, record.timestampMs - this.baseTimestampMs);
    if (this.#sizeInBytes + size > this.#writeLimit) return false;
    this.#add(record);
    return true;
  }

  #add(record: ProducerRecord): void {
    const offsetDelta = this.#records.length;
    const timestampDelta = offsetDelta === 0 ? 0 : record.timestampMs - this.baseTimestampMs;
    const sizeInBytes = ProducerBatch.recordBytes(record, offsetDelta, timestampDelta);
    this.#records.push({ record, sizeInBytes });
    this.#sizeInBytes += sizeInBytes;
  }

  close(): void {
    this.#closed = true;
  }

  records(): readonly ProducerRecord[] {
    return this.#records.map((r) => r.record);
  }

  /** Another try later (Kafka's `reenqueued`). */
  reenqueued(now: Micros, backoff: Micros): void {
    this.attempts++;
    this.lastAttemptAt = now;
    this.retryBackoff = backoff;
  }

  /** The batch as a Produce request carries it: offsets and leader epoch are the leader's to assign. */
  toRecordBatch(): RecordBatch {
    const base = this.baseTimestampMs;
    return {
      baseOffset: 0,
      lastOffsetDelta: this.#records.length - 1,
      partitionLeaderEpoch: NO_PARTITION_LEADER_EPOCH,
      sizeInBytes: this.#sizeInBytes,
      baseTimestamp: base,
      producerId: this.producerId,
      producerEpoch: this.producerEpoch,
      baseSequence: this.baseSequence,
      isTransactional: false,
      isControl: false,
      records: this.#records.map(({ record, sizeInBytes }, i) => ({
        offsetDelta: i,
        timestampDelta: record.timestampMs - base,
        key: record.key,
        value: record.value,
        sizeInBytes,
      })),
    };
  }

  /** Splits a batch the broker found too large into batches of at most `batchSize` (Kafka's `split`). */
  split(batchSize: number): ProducerBatch[] {
    const parts: ProducerBatch[] = [];
    for (const { record } of this.#records) {
      const last = parts[parts.length - 1];
      if (last === undefined || !last.tryAppend(record)) parts.push(new ProducerBatch(this.topic, this.partition, batchSize, record));
    }
    for (const part of parts) {
      part.attempts = this.attempts;
      part.lastAttemptAt = this.lastAttemptAt;
    }
    return parts;
  }
}
