import type { DurableLog } from "@kcsim/protocol";
import type { ProducerIdBlockRecord, TransactionCoordinatorRecord } from "./transaction-log-records.js";

/** Kafka's `ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE`. */
export const PRODUCER_ID_BLOCK_SIZE = 1000;

/**
 * Hands out producer ids, unique across the cluster and across restarts
 * (Kafka's `ProducerIdManager`, which takes blocks of 1000 ids from the
 * controller). Without a controller, the coordinator at index i of n takes
 * blocks i, i + n, i + 2n, ... (ids [1000 b, 1000 b + 1000) for block b),
 * and writes each block it takes to its log before using it; a restarted
 * coordinator moves on to its next block (the rest of the last one is
 * lost, as in Kafka).
 */
export class ProducerIdManager {
  #nextProducerId = 0;
  #blockEnd = 0;
  #lastBlock: number | null = null;

  constructor(
    readonly coordinatorIndex: number,
    readonly coordinatorCount: number,
  ) {}

  /** Picks up the last block taken before a restart. */
  load(records: readonly TransactionCoordinatorRecord[]): void {
    for (const record of records) {
      if (record.type === "kcsim.ProducerIdBlock") this.#lastBlock = Math.floor(record.firstProducerId / PRODUCER_ID_BLOCK_SIZE);
    }
    this.#nextProducerId = 0;
    this.#blockEnd = 0;
  }

  /** The next producer id; takes (and durably records) a new block when the current one is used up. */
  generateProducerId(storage: DurableLog): number {
    if (this.#nextProducerId >= this.#blockEnd) {
      const block = this.#lastBlock === null ? this.coordinatorIndex : this.#lastBlock + this.coordinatorCount;
      const record: ProducerIdBlockRecord = {
        type: "kcsim.ProducerIdBlock",
        firstProducerId: block * PRODUCER_ID_BLOCK_SIZE,
        size: PRODUCER_ID_BLOCK_SIZE,
      };
      storage.append(record);
      this.#lastBlock = block;
      this.#nextProducerId = record.firstProducerId;
      this.#blockEnd = record.firstProducerId + PRODUCER_ID_BLOCK_SIZE;
    }
    return this.#nextProducerId++;
  }

  /** The next id it would hand out (for snapshots); null before its first block. */
  get nextProducerId(): number | null {
    return this.#nextProducerId < this.#blockEnd ? this.#nextProducerId : null;
  }
}
