import type { AbortedTransaction } from "@kcsim/protocol";

/** An aborted transaction of one partition (Kafka's `AbortedTxn`): its producer, first data offset and ABORT marker offset. */
export interface AbortedTxn {
  readonly producerId: number;
  readonly firstOffset: number;
  readonly lastOffset: number;
}

/**
 * A partition's aborted transactions in marker order (Kafka's
 * `TransactionIndex`, one per log rather than per segment): read_committed
 * fetches get the ones overlapping the range they read, so the consumer can
 * skip their batches.
 */
export class TransactionIndex {
  #entries: AbortedTxn[] = [];

  get size(): number {
    return this.#entries.length;
  }

  append(txn: AbortedTxn): void {
    this.#entries.push(txn);
  }

  /** Aborted transactions with data in [fetchOffset, upperBoundOffset) (Kafka's `collectAbortedTxns`). */
  collect(fetchOffset: number, upperBoundOffset: number): AbortedTransaction[] {
    const out: AbortedTransaction[] = [];
    for (const txn of this.#entries) {
      if (txn.lastOffset >= fetchOffset && txn.firstOffset < upperBoundOffset) {
        out.push({ producerId: txn.producerId, firstOffset: txn.firstOffset });
      }
    }
    return out;
  }

  /** Forgets transactions whose marker lies below the log start (their segments are gone). */
  truncateHead(logStartOffset: number): void {
    this.#entries = this.#entries.filter((txn) => txn.lastOffset >= logStartOffset);
  }

  clone(): TransactionIndex {
    const copy = new TransactionIndex();
    copy.#entries = [...this.#entries];
    return copy;
  }
}
