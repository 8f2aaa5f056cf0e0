/**
 * What the data path reports to the history: producers, brokers (partition
 * leaders and followers), the controller, and the client fetcher.
 * Checkers (no loss, contiguity), metrics and reports read these; keep
 * field names stable.
 */

/**
 * A produce request's outcome for one partition batch, as the producer saw
 * it. errorCode 0 = acknowledged (a duplicate the leader recognised is
 * acknowledged with the offsets of the original append; DUPLICATE_SEQUENCE_NUMBER
 * is acknowledged with -1 offsets, as Kafka's client does).
 */
export interface ProducerAckObservation {
  readonly type: "producer.ack";
  readonly topic: string;
  readonly partition: number;
  /** Offsets the leader assigned (-1 when not acknowledged). */
  readonly baseOffset: number;
  readonly lastOffset: number;
  readonly count: number;
  readonly acks: string;
  readonly errorCode: number;
  /** Delivery time from the record's creation to its acknowledgement, ms. */
  readonly latencyMs: number;
  /** The producer id, epoch and base sequence the batch was last sent with (-1 without idempotence, or never sent). */
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly baseSequence: number;
  /** The producer's transactional id (null for a non-transactional producer). */
  readonly transactionalId: string | null;
  /** The broker whose answer acknowledged it (null when no answer did: acks=0, or DUPLICATE_SEQUENCE_NUMBER). */
  readonly leader: string | null;
}

/**
 * A producer got a producer id and epoch: from InitProducerId ("init"), by
 * bumping its epoch itself ("epoch-bump": an idempotent producer after a
 * sequence gap), or from EndTxn v5's answer ("end-txn": under transaction
 * version 2 the coordinator bumps the epoch, or gives a new producer id
 * once the epoch runs out, at the end of every transaction it writes
 * markers for; observed after that transaction's `producer.txn`).
 */
export interface ProducerIdObservation {
  readonly type: "producer.id";
  readonly transactionalId: string | null;
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly reason: "init" | "epoch-bump" | "end-txn";
}

/**
 * A transactional producer's transaction ended, as the producer saw it:
 * committed or aborted (EndTxn answered), or failed (a fatal error, e.g.
 * PRODUCER_FENCED: the transaction is left to the coordinator). `records`
 * counts the records sent in it. The producer id and epoch are those the
 * transaction ran under (its records' own; under transaction version 2 its
 * markers carry the epoch after it, which a `producer.id` with reason
 * "end-txn" reports next).
 */
export interface ProducerTransactionObservation {
  readonly type: "producer.txn";
  readonly transactionalId: string;
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly outcome: "committed" | "aborted" | "failed";
  readonly records: number;
  /** The error that failed the transaction or forced the abort ("NONE" for an abort asked for). */
  readonly error: string;
}

/** A partition leader appended a transaction marker (WriteTxnMarkers): the producer's transaction there is committed or aborted. */
export interface BrokerTxnMarkerObservation {
  readonly type: "broker.txn-marker";
  readonly topic: string;
  readonly partition: number;
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly committed: boolean;
  /** The marker's offset. */
  readonly offset: number;
}

/** A leader appended a batch to a partition log. */
export interface BrokerAppendObservation {
  readonly type: "broker.append";
  readonly topic: string;
  readonly partition: number;
  readonly baseOffset: number;
  readonly lastOffset: number;
  readonly leaderEpoch: number;
}

/** A replica cut its log back (becoming a follower of a new leader): records at and above `offset` are gone from it. */
export interface BrokerTruncateObservation {
  readonly type: "broker.truncate";
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly previousEndOffset: number;
}

/** A broker became leader or follower of a partition. */
export interface BrokerRoleObservation {
  readonly type: "broker.role";
  readonly topic: string;
  readonly partition: number;
  readonly role: "leader" | "follower" | "none";
  readonly leaderEpoch: number;
  readonly isr: readonly number[];
  readonly logEndOffset: number;
  readonly highWatermark: number;
}

/** The leader's high watermark moved. */
export interface HighWatermarkObservation {
  readonly type: "broker.hw";
  readonly topic: string;
  readonly partition: number;
  readonly highWatermark: number;
}

/** Fetch-session cache events on a broker (KIP-227). */
export interface FetchSessionObservation {
  readonly type: "broker.fetch-session";
  readonly event: "created" | "evicted" | "closed" | "not-found" | "epoch-mismatch" | "cache-full";
  readonly sessionId: number;
  readonly partitions: number;
  readonly privileged: boolean;
}

/** The controller changed a partition's leader or ISR. */
export interface ControllerPartitionObservation {
  readonly type: "controller.partition";
  readonly topic: string;
  readonly partition: number;
  readonly leader: number;
  readonly leaderEpoch: number;
  readonly isr: readonly number[];
  readonly reason: string;
}

/** One fetch round trip of a client fetcher (request and response sizes in Kafka wire bytes). */
export interface FetchRoundObservation {
  readonly type: "fetch.round";
  readonly broker: string;
  readonly full: boolean;
  readonly sessionId: number;
  readonly requestPartitions: number;
  readonly requestBytes: number;
  readonly responseBytes: number;
  readonly records: number;
  /** Top-level error name ("NONE" when fine). */
  readonly error: string;
}

/** A consumer position was reset by auto.offset.reset. */
export interface OffsetResetObservation {
  readonly type: "fetch.reset";
  readonly topic: string;
  readonly partition: number;
  readonly strategy: "earliest" | "latest";
  readonly offset: number;
  readonly reason: "no-committed-offset" | "out-of-range";
}

export type FetchObservation =
  | ProducerAckObservation
  | ProducerIdObservation
  | ProducerTransactionObservation
  | BrokerTxnMarkerObservation
  | BrokerAppendObservation
  | BrokerTruncateObservation
  | BrokerRoleObservation
  | HighWatermarkObservation
  | FetchSessionObservation
  | ControllerPartitionObservation
  | FetchRoundObservation
  | OffsetResetObservation;
