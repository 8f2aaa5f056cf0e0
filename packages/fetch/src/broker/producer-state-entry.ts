import { NO_PRODUCER_EPOCH, NO_SEQUENCE } from "@kcsim/protocol";

/** How many of a producer's latest batches a partition remembers for duplicate detection (Kafka's `NUM_BATCHES_TO_RETAIN`). */
export const NUM_BATCHES_TO_RETAIN = 5;

/** Kafka's `BatchMetadata`: where one of a producer's batches landed. */
export interface BatchMetadata {
  readonly firstSeq: number;
  readonly lastSeq: number;
  readonly firstOffset: number;
  readonly lastOffset: number;
}

/**
 * What one partition knows of one producer id (Kafka's
 * `ProducerStateEntry`): its epoch, the coordinator epoch of its last
 * transaction marker, the sequence ranges and offsets of its latest
 * batches (at most five, lowest sequence first), and the first offset of
 * its open transaction, if one is open here.
 */
export class ProducerStateEntry {
  readonly producerId: number;
  producerEpoch = NO_PRODUCER_EPOCH;
  coordinatorEpoch = -1;
  currentTxnFirstOffset: number | null = null;
  #batches: BatchMetadata[] = [];

  constructor(producerId: number) {
    this.producerId = producerId;
  }

  get isEmpty(): boolean {
    return this.#batches.length === 0;
  }

  get lastSeq(): number {
    return this.#batches[this.#batches.length - 1]?.lastSeq ?? NO_SEQUENCE;
  }

  batches(): readonly BatchMetadata[] {
    return this.#batches;
  }

  /** A new epoch forgets the batches of the old one (Kafka's `maybeUpdateProducerEpoch`). */
  maybeUpdateProducerEpoch(epoch: number): void {
    if (epoch === this.producerEpoch) return;
    this.#batches = [];
    this.producerEpoch = epoch;
  }

  addBatch(epoch: number, batch: BatchMetadata): void {
    this.maybeUpdateProducerEpoch(epoch);
    if (this.#batches.length === NUM_BATCHES_TO_RETAIN) this.#batches.shift();
    this.#batches.push(batch);
  }

  /** The remembered batch with exactly this epoch and sequence range (Kafka's `findDuplicateBatch`). */
  findDuplicate(epoch: number, firstSeq: number, lastSeq: number): BatchMetadata | undefined {
    if (epoch !== this.producerEpoch) return undefined;
    // A loop, not find(): this runs for every idempotent batch appended, and a predicate closure is made per call.
    const batches = this.#batches;
    for (let i = 0; i < batches.length; i++) {
      const batch = batches[i] as BatchMetadata;
      if (batch.firstSeq === firstSeq && batch.lastSeq === lastSeq) return batch;
    }
    return undefined;
  }

  clone(): ProducerStateEntry {
    const copy = new ProducerStateEntry(this.producerId);
    copy.producerEpoch = this.producerEpoch;
    copy.coordinatorEpoch = this.coordinatorEpoch;
    copy.currentTxnFirstOffset = this.currentTxnFirstOffset;
    copy.#batches = [...this.#batches];
    return copy;
  }
}
