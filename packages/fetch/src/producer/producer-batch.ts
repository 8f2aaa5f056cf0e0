import { type Micros, NO_PARTITION_LEADER_EPOCH, NO_PRODUCER_EPOCH, NO_PRODUCER_ID, NO_SEQUENCE, type RecordBatch } from "@kcsim/protocol";
import { incrementSequence } from "../records/sequence.js";
import type { ProducerError } from "./producer-error.js";
import type { ProducerIdAndEpoch } from "./producer-id-and-epoch.js";
import { RECORD_BATCH_OVERHEAD, recordSizeInBytes } from "./record-size.js";
import type { SendHandle } from "./send-handle.js";

/** A record as the application handed it to the producer. */
export interface ProducerRecord {
  readonly key: string | null;
  /** UTF-8 bytes of the key (null for a null key), measured once when the record is made. */
  readonly keyBytes: number | null;
  readonly value: string;
  /** Bytes of the value the workload stands for (the value itself is only a tag). */
  readonly valueBytes: number;
  readonly timestampMs: number;
  readonly createdAt: Micros;
}

/** UTF-8 bytes of a record key (null for a null key). */
export function keyBytesOf(key: string | null): number | null {
  return key === null ? null : Buffer.byteLength(key, "utf8");
}

/**
 * Records for one partition that travel together (Kafka's `ProducerBatch`
 * with its `MemoryRecordsBuilder`): records are added while the estimated
 * size stays within the write limit (batch.size, or the first record if it
 * alone is bigger). It remembers its attempts for retries and the delivery
 * timeout. An idempotent producer stamps it with its producer id, epoch
 * and base sequence when it is first drained (they stay across retries,
 * unless the producer resets its sequences); each record's SendHandle is
 * completed with the batch.
 */
export class ProducerBatch {
  readonly topic: string;
  readonly partition: number;
  readonly createdAt: Micros;
  readonly #records: { record: ProducerRecord; sizeInBytes: number; handle: SendHandle | null }[] = [];
  readonly #writeLimit: number;
  #sizeInBytes = RECORD_BATCH_OVERHEAD;
  #closed = false;
  attempts = 0;
  lastAttemptAt: Micros;
  /** The retry backoff drawn at the last re-enqueue (with its jitter). */
  retryBackoff: Micros = 0;
  /** Acknowledged, failed or expired: later answers are ignored. */
  done = false;
  /** Sent at least once: the broker may have appended it. */
  everSent = false;
  #producerId = NO_PRODUCER_ID;
  #producerEpoch = NO_PRODUCER_EPOCH;
  #baseSequence = NO_SEQUENCE;
  #isTransactional = false;
  /** Its sequence was rewritten after it was first assigned (Kafka's `sequenceHasBeenReset`). */
  #sequenceReset = false;

  constructor(topic: string, partition: number, batchSize: number, first: ProducerRecord, handle: SendHandle | null = null) {
    this.topic = topic;
    this.partition = partition;
    this.createdAt = first.createdAt;
    this.lastAttemptAt = first.createdAt;
    const firstBytes = ProducerBatch.recordBytes(first, 0, 0);
    this.#writeLimit = Math.max(batchSize, RECORD_BATCH_OVERHEAD + firstBytes);
    this.#add(first, handle, firstBytes);
  }

  get producerId(): number {
    return this.#producerId;
  }

  get producerEpoch(): number {
    return this.#producerEpoch;
  }

  get baseSequence(): number {
    return this.#baseSequence;
  }

  get lastSequence(): number {
    return incrementSequence(this.#baseSequence, this.#records.length - 1);
  }

  get hasSequence(): boolean {
    return this.#baseSequence !== NO_SEQUENCE;
  }

  get isTransactional(): boolean {
    return this.#isTransactional;
  }

  get sequenceHasBeenReset(): boolean {
    return this.#sequenceReset;
  }

  /** Stamps the producer id, epoch and base sequence (at its first drain). */
  setProducerState(producer: ProducerIdAndEpoch, baseSequence: number, isTransactional: boolean): void {
    this.#producerId = producer.producerId;
    this.#producerEpoch = producer.epoch;
    this.#baseSequence = baseSequence;
    this.#isTransactional = isTransactional;
  }

  /** Rewrites the producer state of a batch already stamped (an epoch bump, or a failed batch before it). */
  resetProducerState(producer: ProducerIdAndEpoch, baseSequence: number, isTransactional: boolean): void {
    this.#sequenceReset = true;
    this.setProducerState(producer, baseSequence, isTransactional);
  }

  /** A record's size if it were appended at `offsetDelta`, `timestampDelta` into a batch. */
  static recordBytes(record: ProducerRecord, offsetDelta: number, timestampDelta: number): number {
    return recordSizeInBytes(offsetDelta, timestampDelta, record.keyBytes, record.valueBytes);
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

  /**
   * Appends if there is room (Kafka's `hasRoomFor`); otherwise closes the
   * batch to appends, so that it counts as full from then on (Kafka's
   * `closeForRecordAppends` after a failed `tryAppend`), and returns false.
   */
  tryAppend(record: ProducerRecord, handle: SendHandle | null = null): boolean {
    if (this.isFull) return false;
    const size = ProducerBatch.recordBytes(record, this.#records.length, record.timestampMs - this.baseTimestampMs);
    if (this.#sizeInBytes + size > this.#writeLimit) {
      this.close();
      return false;
    }
    this.#add(record, handle, size);
    return true;
  }

  /** Adds a record whose size at the batch's end (its offset and timestamp deltas) is `sizeInBytes`. */
  #add(record: ProducerRecord, handle: SendHandle | null, sizeInBytes: number): void {
    this.#records.push({ record, sizeInBytes, handle });
    this.#sizeInBytes += sizeInBytes;
  }

  /** Completes the records' handles: acknowledged from `baseOffset` (-1: offsets unknown), or failed with `error`. */
  completeHandles(baseOffset: number, error: ProducerError | null): void {
    this.#records.forEach(({ handle }, i) => {
      handle?.complete(error === null && baseOffset >= 0 ? baseOffset + i : -1, error);
    });
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
      producerId: this.#producerId,
      producerEpoch: this.#producerEpoch,
      baseSequence: this.#baseSequence,
      isTransactional: this.#isTransactional,
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

  /**
   * Splits a batch the broker found too large into batches of at most
   * `batchSize` (Kafka's `split`); a stamped batch's parts take consecutive
   * sequences from its base sequence.
   */
  split(batchSize: number): ProducerBatch[] {
    const parts: ProducerBatch[] = [];
    for (const { record, handle } of this.#records) {
      const last = parts[parts.length - 1];
      if (last === undefined || !last.tryAppend(record, handle))
        parts.push(new ProducerBatch(this.topic, this.partition, batchSize, record, handle));
    }
    let sequence = this.#baseSequence;
    for (const part of parts) {
      // Every part is closed to appends (Kafka's split closes each), so no new record joins a batch going back.
      part.close();
      part.attempts = this.attempts;
      part.lastAttemptAt = this.lastAttemptAt;
      if (this.hasSequence) {
        part.setProducerState({ producerId: this.#producerId, epoch: this.#producerEpoch }, sequence, this.#isTransactional);
        sequence = incrementSequence(sequence, part.recordCount);
      }
    }
    return parts;
  }
}
