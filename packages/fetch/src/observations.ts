/**
 * What the data path reports to the history: producers, brokers (partition
 * leaders and followers), the controller, and the client fetcher.
 * Checkers (no loss, contiguity), metrics and reports read these; keep
 * field names stable.
 */

/** A produce request's outcome for one partition batch, as the producer saw it. errorCode 0 = acknowledged. */
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
  | BrokerAppendObservation
  | BrokerTruncateObservation
  | BrokerRoleObservation
  | HighWatermarkObservation
  | FetchSessionObservation
  | ControllerPartitionObservation
  | FetchRoundObservation
  | OffsetResetObservation;
