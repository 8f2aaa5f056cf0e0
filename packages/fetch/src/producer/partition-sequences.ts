import { NO_SEQUENCE } from "@kcsim/protocol";
import { incrementSequence } from "../records/sequence.js";
import type { ProducerBatch } from "./producer-batch.js";
import { NO_PRODUCER_ID_AND_EPOCH, type ProducerIdAndEpoch } from "./producer-id-and-epoch.js";

export const NO_LAST_ACKED_SEQUENCE = -1;

/** How many of a producer's latest batches a partition leader remembers for duplicate detection (Kafka's `NUM_BATCHES_TO_RETAIN`). */
export const BROKER_DUPLICATE_WINDOW = 5;

/**
 * One partition's sequence bookkeeping (Kafka's `TopicPartitionEntry`): the
 * producer id and epoch its sequences belong to, the next sequence to
 * assign, the last acknowledged sequence and offset, and the batches with
 * a sequence that are not completed yet, by sequence.
 */
export class PartitionSequence {
  producerIdAndEpoch: ProducerIdAndEpoch = NO_PRODUCER_ID_AND_EPOCH;
  nextSequence = 0;
  lastAckedSequence = NO_LAST_ACKED_SEQUENCE;
  lastAckedOffset = -1;
  #inFlight: ProducerBatch[] = [];
  /** The latest batches given a sequence, oldest first (at most BROKER_DUPLICATE_WINDOW). */
  #recent: ProducerBatch[] = [];

  /** The batches in flight (or in retry) by base sequence. */
  inFlight(): readonly ProducerBatch[] {
    return this.#inFlight;
  }

  add(batch: ProducerBatch): void {
    if (this.#inFlight.includes(batch)) return;
    this.#inFlight.push(batch);
    this.#inFlight.sort((a, b) => a.baseSequence - b.baseSequence);
    this.#recent.push(batch);
    if (this.#recent.length > BROKER_DUPLICATE_WINDOW) this.#recent.shift();
  }

  /**
   * Whether one more new batch would push a batch that is still unanswered
   * out of the leader's duplicate window: then a retry of it could no longer
   * be recognised as a duplicate. Over TCP a lost answer breaks the
   * connection, so later answers never arrive before it; the simulated
   * network loses single messages, so the client holds new batches back
   * instead (not in Kafka's client, which does not need it).
   */
  get windowFull(): boolean {
    const oldest = this.#recent[0];
    return this.#recent.length >= BROKER_DUPLICATE_WINDOW && oldest !== undefined && this.#inFlight.includes(oldest);
  }

  remove(batch: ProducerBatch): void {
    this.#inFlight = this.#inFlight.filter((b) => b !== batch);
  }

  /** Rewrites the sequences of the batches in flight, in order (Kafka's `resetSequenceNumbers`). */
  rewriteSequences(rewrite: (batch: ProducerBatch) => void): void {
    for (const batch of this.#inFlight) rewrite(batch);
    this.#inFlight.sort((a, b) => a.baseSequence - b.baseSequence);
  }
}

/**
 * The idempotent producer's per-partition sequences (Kafka's
 * `TopicPartitionBookkeeper`).
 */
export class PartitionSequences {
  /** By topic, then partition index: looked up on every send and answer, so no key string is built. */
  readonly #byTopic = new Map<string, Map<number, PartitionSequence>>();

  get(topic: string, partition: number): PartitionSequence | undefined {
    return this.#byTopic.get(topic)?.get(partition);
  }

  getOrCreate(topic: string, partition: number): PartitionSequence {
    let partitions = this.#byTopic.get(topic);
    if (partitions === undefined) {
      partitions = new Map();
      this.#byTopic.set(topic, partitions);
    }
    let entry = partitions.get(partition);
    if (entry === undefined) {
      entry = new PartitionSequence();
      partitions.set(partition, entry);
    }
    return entry;
  }

  contains(topic: string, partition: number): boolean {
    return this.#byTopic.get(topic)?.has(partition) ?? false;
  }

  remove(topic: string, partition: number): void {
    this.#byTopic.get(topic)?.delete(partition);
  }

  reset(): void {
    this.#byTopic.clear();
  }

  /** The base sequence of the lowest batch in flight, or NO_SEQUENCE. */
  firstInFlightSequence(topic: string, partition: number): number {
    return this.get(topic, partition)?.inFlight()[0]?.baseSequence ?? NO_SEQUENCE;
  }

  /**
   * Restarts a partition's sequences at 0 under a new producer id and epoch
   * (Kafka's `startSequencesAtBeginning`): the batches in flight get
   * consecutive sequences from 0, in their order.
   */
  startSequencesAtBeginning(topic: string, partition: number, producer: ProducerIdAndEpoch): void {
    const entry = this.getOrCreate(topic, partition);
    let sequence = 0;
    entry.rewriteSequences((batch) => {
      batch.resetProducerState(producer, sequence, batch.isTransactional);
      sequence = incrementSequence(sequence, batch.recordCount);
    });
    entry.producerIdAndEpoch = producer;
    entry.nextSequence = sequence;
    entry.lastAckedSequence = NO_LAST_ACKED_SEQUENCE;
  }
}
