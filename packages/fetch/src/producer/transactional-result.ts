import type { ProducerError } from "./producer-error.js";

/** Called once a transactional operation is over: with null when it succeeded, else with its error. */
export type TransactionalCallback = (error: ProducerError | null) => void;

/**
 * The outcome of a transactional operation (Kafka's
 * `TransactionalRequestResult`): initTransactions, beginTransaction,
 * sendOffsetsToTransaction, commitTransaction, abortTransaction. Nothing
 * blocks in an actor, so instead of `await()` a caller registers a
 * callback; one registered after completion is called at once. Callbacks
 * run after the producer has finished handling the event that completed
 * the operation, so they may call the producer again.
 */
export class TransactionalResult {
  readonly operation: string;
  #completed = false;
  #error: ProducerError | null = null;
  #callbacks: TransactionalCallback[] = [];
  readonly #schedule: (notify: () => void) => void;

  /** `schedule` runs a notification once the producer is done with the current event. */
  constructor(operation: string, schedule: (notify: () => void) => void) {
    this.operation = operation;
    this.#schedule = schedule;
  }

  get isCompleted(): boolean {
    return this.#completed;
  }

  get isSuccessful(): boolean {
    return this.#completed && this.#error === null;
  }

  /** The error it failed with (null while running or after success). */
  get error(): ProducerError | null {
    return this.#error;
  }

  done(): void {
    this.#complete(null);
  }

  fail(error: ProducerError): void {
    this.#complete(error);
  }

  onComplete(callback: TransactionalCallback): this {
    if (this.#completed) callback(this.#error);
    else this.#callbacks.push(callback);
    return this;
  }

  #complete(error: ProducerError | null): void {
    if (this.#completed) return;
    this.#completed = true;
    this.#error = error;
    const callbacks = this.#callbacks;
    this.#callbacks = [];
    if (callbacks.length > 0)
      this.#schedule(() => {
        for (const callback of callbacks) callback(error);
      });
  }
}
