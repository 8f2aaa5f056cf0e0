import { ErrorCode, SENTINEL_GUARD, type VerificationGuard } from "@kcsim/protocol";

/** What the log has seen of one producer: its newest epoch, and the epoch of the transaction coordinator that last wrote its marker. */
interface ProducerEntry {
  readonly producerEpoch: number;
  /** -1 before its first marker. */
  readonly coordinatorEpoch: number;
}

/**
 * The producers that wrote transactional records to the coordinator's
 * `__consumer_offsets` partitions (Kafka's `ProducerStateManager` of those
 * partitions, reduced to the checks a transactional write meets), rebuilt
 * by replay. A write from an older producer epoch than the log has seen is
 * refused (INVALID_PRODUCER_EPOCH: the producer was fenced); so is a marker
 * from an older producer epoch, or from an older transaction coordinator
 * epoch (TRANSACTION_COORDINATOR_FENCED). These checks use the newest epoch
 * over all the partitions (Kafka keeps one per partition). A marker of
 * transaction version 2 is checked as Kafka 4.2's `ProducerAppendInfo`
 * does, against the producer's epoch on its own partition: it must be
 * newer (KIP-1228), or equal with no transaction open there (KAFKA-19999).
 *
 * Per partition, it also knows which producers have a transaction ongoing
 * (a transactional record written since their last marker: Kafka's
 * `currentTxnFirstOffset`) and the verification each producer without one
 * is waiting for (Kafka's `VerificationStateEntry`, in memory only): a
 * record or a marker of the producer on the partition ends it.
 */
export class TransactionalProducers {
  readonly #entries = new Map<number, ProducerEntry>();
  /** `partition:producerId` -> the newest epoch of the producer's records and markers on the partition. */
  readonly #partitionEpochs = new Map<string, number>();
  /** `partition:producerId` of the transactions ongoing. */
  readonly #ongoing = new Set<string>();
  /** `partition:producerId` -> the verification under way. */
  readonly #verifications = new Map<string, Verification>();
  #lastGuard = SENTINEL_GUARD;

  /** The newest epoch seen for the producer, or undefined. */
  epochOf(producerId: number): number | undefined {
    return this.#entries.get(producerId)?.producerEpoch;
  }

  /** The error a transactional write (TxnOffsetCommit) of (producerId, producerEpoch) gets, or NONE. */
  writeError(producerId: number, producerEpoch: number): number {
    const entry = this.#entries.get(producerId);
    return entry !== undefined && producerEpoch < entry.producerEpoch ? ErrorCode.INVALID_PRODUCER_EPOCH : ErrorCode.NONE;
  }

  /** The newest epoch of the producer's records and markers on the partition, or undefined (Kafka's partition producer state). */
  epochOn(partition: number, producerId: number): number | undefined {
    return this.#partitionEpochs.get(producerKey(partition, producerId));
  }

  /**
   * The error a transaction marker for the partition gets (Kafka's
   * `appendEndTxnMarker` checks), or NONE. Before transaction version 2 an
   * epoch older than the producer's newest is refused. From version 2
   * (WriteTxnMarkers v2's field, KIP-1228) the coordinator bumped the epoch
   * for the marker, so one not newer than the producer's epoch on the
   * partition is a late or repeated marker and refused
   * (`ProducerAppendInfo#checkProducerEpoch`), except one at that very
   * epoch when no transaction of the producer is open there: a repeat of a
   * marker already written (a reloaded coordinator, a lost answer), written
   * again (KAFKA-19999).
   */
  markerError(producerId: number, producerEpoch: number, coordinatorEpoch: number, partition: number, transactionVersion: number): number {
    if (transactionVersion >= 2) {
      const key = producerKey(partition, producerId);
      const current = this.#partitionEpochs.get(key);
      const repeated = producerEpoch === current && !this.#ongoing.has(key);
      if (current !== undefined && producerEpoch <= current && !repeated) return ErrorCode.INVALID_PRODUCER_EPOCH;
    }
    const entry = this.#entries.get(producerId);
    if (entry === undefined) return ErrorCode.NONE;
    if (transactionVersion < 2 && producerEpoch < entry.producerEpoch) return ErrorCode.INVALID_PRODUCER_EPOCH;
    if (coordinatorEpoch < entry.coordinatorEpoch) return ErrorCode.TRANSACTION_COORDINATOR_FENCED;
    return ErrorCode.NONE;
  }

  /** Whether the producer has a transaction ongoing on the `__consumer_offsets` partition (Kafka's `hasOngoingTransaction` before 4.0). */
  hasOngoingTransaction(partition: number, producerId: number): boolean {
    return this.#ongoing.has(producerKey(partition, producerId));
  }

  /**
   * Kafka 4.x's `UnifiedLog#hasOngoingTransaction(producerId, epoch)`
   * (KAFKA-18575): a transaction ongoing on the partition, at that epoch.
   */
  hasOngoingTransactionAtEpoch(partition: number, producerId: number, producerEpoch: number): boolean {
    const key = producerKey(partition, producerId);
    return this.#ongoing.has(key) && this.#partitionEpochs.get(key) === producerEpoch;
  }

  /**
   * Kafka's `maybeCreateVerificationStateEntry`: the guard of the
   * producer's verification on the partition, a new one if none is under
   * way; it keeps the newest epoch it was started for, and whether a writer
   * of transaction version 2 started it (`supportsEpochBump`).
   */
  startVerification(partition: number, producerId: number, producerEpoch: number, supportsEpochBump: boolean): VerificationGuard {
    const key = producerKey(partition, producerId);
    const verification = this.#verifications.get(key);
    if (verification === undefined) {
      const guard = ++this.#lastGuard;
      this.#verifications.set(key, { guard, epoch: producerEpoch, supportsEpochBump });
      return guard;
    }
    if (producerEpoch > verification.epoch) verification.epoch = producerEpoch;
    verification.supportsEpochBump ||= supportsEpochBump;
    return verification.guard;
  }

  /**
   * Whether a transactional write of the producer on the partition may go
   * ahead (Kafka's append check): its transaction is ongoing there, or the
   * write carries the guard of the verification still under way.
   */
  isVerified(partition: number, producerId: number, guard: VerificationGuard): boolean {
    if (this.hasOngoingTransaction(partition, producerId)) return true;
    return guard !== SENTINEL_GUARD && this.#verifications.get(producerKey(partition, producerId))?.guard === guard;
  }

  /** A transactional record of the producer on the partition: its transaction is ongoing there. */
  onWrite(producerId: number, producerEpoch: number, partition: number): void {
    const key = producerKey(partition, producerId);
    this.#ongoing.add(key);
    this.#verifications.delete(key);
    this.#raisePartitionEpoch(key, producerEpoch);
    const entry = this.#entries.get(producerId);
    if (entry === undefined) this.#entries.set(producerId, { producerEpoch, coordinatorEpoch: -1 });
    else if (producerEpoch > entry.producerEpoch) this.#entries.set(producerId, { ...entry, producerEpoch });
  }

  /**
   * A marker of the producer on the partition: its transaction there is
   * over, and so is a verification under way, but for the next
   * transaction's under transaction version 2, started at the epoch this
   * marker ends the previous one at (Kafka's `UnifiedLog.updateProducers`,
   * `isV2NextTransactionStarted`): the TxnOffsetCommit v5 that started it
   * still writes with its guard.
   */
  onMarker(producerId: number, producerEpoch: number, coordinatorEpoch: number, partition: number): void {
    const key = producerKey(partition, producerId);
    this.#ongoing.delete(key);
    const verification = this.#verifications.get(key);
    if (!(verification?.supportsEpochBump === true && verification.epoch === producerEpoch)) this.#verifications.delete(key);
    this.#raisePartitionEpoch(key, producerEpoch);
    const entry = this.#entries.get(producerId);
    this.#entries.set(producerId, {
      producerEpoch: Math.max(producerEpoch, entry?.producerEpoch ?? producerEpoch),
      coordinatorEpoch: Math.max(coordinatorEpoch, entry?.coordinatorEpoch ?? coordinatorEpoch),
    });
  }

  #raisePartitionEpoch(key: string, producerEpoch: number): void {
    const current = this.#partitionEpochs.get(key);
    if (current === undefined || producerEpoch > current) this.#partitionEpochs.set(key, producerEpoch);
  }
}

/** Kafka's `VerificationStateEntry` on a `__consumer_offsets` partition. */
interface Verification {
  readonly guard: VerificationGuard;
  /** The newest producer epoch it was started for. */
  epoch: number;
  /** Started by a writer of transaction version 2 (TxnOffsetCommit v5). */
  supportsEpochBump: boolean;
}

function producerKey(partition: number, producerId: number): string {
  return `${partition}:${producerId}`;
}
