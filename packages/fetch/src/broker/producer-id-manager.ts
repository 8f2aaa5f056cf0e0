import type { DurableLog } from "@kcsim/protocol";
import type { BrokerStorageRecord } from "./broker-storage.js";

/**
 * Where a broker's producer ids start: broker n hands out ids from
 * (n + 1) * 10^9, far above the ids a transaction coordinator allocates
 * from 0, so the two never collide.
 */
export const BROKER_PRODUCER_ID_BASE = 1_000_000_000;

/** Ids reserved in durable storage at a time (Kafka's producer id blocks hold 1000). */
export const PRODUCER_ID_BLOCK_SIZE = 1000;

/**
 * The producer ids a broker allocates for InitProducerId without a
 * transactional id (idempotent producers; Kafka's `ProducerIdManager`,
 * whose blocks come from the controller). Here each broker owns a range
 * of its own and reserves it in blocks in its durable storage, so a
 * restarted broker never hands out an id twice.
 */
export class ProducerIdManager {
  readonly #rangeStart: number;
  #next = 0;
  #reservedUpTo = 0;

  constructor(brokerId: number) {
    this.#rangeStart = BROKER_PRODUCER_ID_BASE * (brokerId + 1);
  }

  /** Resumes after the last reserved block (a restart). */
  recover(records: readonly BrokerStorageRecord[]): void {
    for (const record of records) {
      if ("producerIdBlockEnd" in record) this.#reservedUpTo = Math.max(this.#reservedUpTo, record.producerIdBlockEnd);
    }
    this.#next = this.#reservedUpTo;
  }

  /** A fresh producer id, reserving a new block first when the current one is used up. */
  generate(storage: DurableLog): number {
    if (this.#next >= this.#reservedUpTo) {
      this.#reservedUpTo = this.#next + PRODUCER_ID_BLOCK_SIZE;
      const record: BrokerStorageRecord = { producerIdBlockEnd: this.#reservedUpTo };
      storage.append(record);
    }
    return this.#rangeStart + this.#next++;
  }
}
