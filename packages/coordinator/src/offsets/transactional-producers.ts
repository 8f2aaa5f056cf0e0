import { ErrorCode } from "@kcsim/protocol";

/** What the log has seen of one producer: its newest epoch, and the epoch of the transaction coordinator that last wrote its marker. */
interface ProducerEntry {
  readonly producerEpoch: number;
  /** -1 before its first marker. */
  readonly coordinatorEpoch: number;
}

/**
 * The producers that wrote transactional records to the coordinator's
 * `__consumer_offsets` partitions (Kafka's `ProducerStateManager` of those
 * partitions, reduced to the epoch checks), rebuilt by replay. A write
 * from an older producer epoch than the log has seen is refused
 * (INVALID_PRODUCER_EPOCH: the producer was fenced); so is a marker from an
 * older producer epoch, or from an older transaction coordinator epoch
 * (TRANSACTION_COORDINATOR_FENCED).
 */
export class TransactionalProducers {
  readonly #entries = new Map<number, ProducerEntry>();

  /** The newest epoch seen for the producer, or undefined. */
  epochOf(producerId: number): number | undefined {
    return this.#entries.get(producerId)?.producerEpoch;
  }

  /** The error a transactional write (TxnOffsetCommit) of (producerId, producerEpoch) gets, or NONE. */
  writeError(producerId: number, producerEpoch: number): number {
    const entry = this.#entries.get(producerId);
    return entry !== undefined && producerEpoch < entry.producerEpoch ? ErrorCode.INVALID_PRODUCER_EPOCH : ErrorCode.NONE;
  }

  /** The error a transaction marker gets (Kafka's `appendEndTxnMarker` checks), or NONE. */
  markerError(producerId: number, producerEpoch: number, coordinatorEpoch: number): number {
    const entry = this.#entries.get(producerId);
    if (entry === undefined) return ErrorCode.NONE;
    if (producerEpoch < entry.producerEpoch) return ErrorCode.INVALID_PRODUCER_EPOCH;
    if (coordinatorEpoch < entry.coordinatorEpoch) return ErrorCode.TRANSACTION_COORDINATOR_FENCED;
    return ErrorCode.NONE;
  }

  onWrite(producerId: number, producerEpoch: number): void {
    const entry = this.#entries.get(producerId);
    if (entry === undefined) this.#entries.set(producerId, { producerEpoch, coordinatorEpoch: -1 });
    else if (producerEpoch > entry.producerEpoch) this.#entries.set(producerId, { ...entry, producerEpoch });
  }

  onMarker(producerId: number, producerEpoch: number, coordinatorEpoch: number): void {
    const entry = this.#entries.get(producerId);
    this.#entries.set(producerId, {
      producerEpoch: Math.max(producerEpoch, entry?.producerEpoch ?? producerEpoch),
      coordinatorEpoch: Math.max(coordinatorEpoch, entry?.coordinatorEpoch ?? coordinatorEpoch),
    });
  }
}
