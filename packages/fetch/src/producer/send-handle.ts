import type { ProducerError } from "./producer-error.js";

/** Where a sent record ended up (Kafka's `RecordMetadata`), or why it did not. */
export interface SendResult {
  readonly topic: string;
  readonly partition: number;
  /** The record's offset (-1 when not known: failed, acks=0, or DUPLICATE_SEQUENCE_NUMBER). */
  readonly offset: number;
  /** null when the record was acknowledged. */
  readonly error: ProducerError | null;
}

export type SendCallback = (result: SendResult) => void;

/**
 * What `send` returns (Kafka's `Future<RecordMetadata>` with its
 * callback): register `onAck` to learn the record's fate. A callback
 * registered after completion is called at once; otherwise it runs after
 * the producer has finished handling the event that completed it.
 */
export class SendHandle {
  readonly topic: string;
  #partition: number;
  #result: SendResult | null = null;
  #callbacks: SendCallback[] = [];
  readonly #schedule: (notify: () => void) => void;

  constructor(topic: string, partition: number, schedule: (notify: () => void) => void) {
    this.topic = topic;
    this.#partition = partition;
    this.#schedule = schedule;
  }

  get partition(): number {
    return this.#partition;
  }

  get result(): SendResult | null {
    return this.#result;
  }

  get isDone(): boolean {
    return this.#result !== null;
  }

  onAck(callback: SendCallback): this {
    if (this.#result !== null) callback(this.#result);
    else this.#callbacks.push(callback);
    return this;
  }

  /** The partition the accumulator put the record in (a keyless record's is known only then). */
  setPartition(partition: number): void {
    this.#partition = partition;
  }

  complete(offset: number, error: ProducerError | null): void {
    if (this.#result !== null) return;
    const result: SendResult = { topic: this.topic, partition: this.#partition, offset, error };
    this.#result = result;
    const callbacks = this.#callbacks;
    this.#callbacks = [];
    if (callbacks.length > 0)
      this.#schedule(() => {
        for (const callback of callbacks) callback(result);
      });
  }
}
