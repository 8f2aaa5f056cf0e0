import type { RecordBatch } from "@kcsim/protocol";

const INT32_MAX = 2147483647;

/** The sequence `increment` records after `sequence`, wrapping at Integer.MAX_VALUE (Kafka's `DefaultRecordBatch.incrementSequence`). */
export function incrementSequence(sequence: number, increment: number): number {
  if (sequence > INT32_MAX - increment) return increment - (INT32_MAX - sequence) - 1;
  return sequence + increment;
}

/** Whether `nextSeq` directly follows `lastSeq` (Kafka's `ProducerAppendInfo.inSequence`). */
export function inSequence(lastSeq: number, nextSeq: number): boolean {
  return nextSeq === lastSeq + 1 || (nextSeq === 0 && lastSeq === INT32_MAX);
}

/** The sequence of a batch's last record (Kafka's `RecordBatch.lastSequence`). */
export function lastSequenceOf(batch: RecordBatch): number {
  return incrementSequence(batch.baseSequence, batch.lastOffsetDelta);
}
