import type { PolledRange } from "@kcsim/fetch";
import type { PartitionsByTopic } from "@kcsim/protocol";

/**
 * What a consumer member reports to the history. Checkers, metrics and
 * reports read these; keep field names stable. `memberId` is the Kafka
 * member id (the actor id is the history line's `actor`). Partitions are by
 * topic name (canonical PartitionsByTopic).
 */
export type ClientMemberState =
  | "UNSUBSCRIBED"
  | "JOINING"
  | "RECONCILING"
  | "ACKNOWLEDGING"
  | "STABLE"
  | "FENCED"
  | "PREPARE_LEAVING"
  | "LEAVING"
  | "STALE"
  | "FATAL";

/**
 * The classic client's states (`AbstractCoordinator.MemberState`), plus
 * FATAL for a consumer that hit a fatal error. memberEpoch is the generation.
 */
export type ClassicMemberState = "UNJOINED" | "PREPARING_REBALANCE" | "COMPLETING_REBALANCE" | "STABLE" | "FATAL";

/** The client state machine moved (spec 2.1; classic members report their own coordinator states). */
export interface MemberStateObservation {
  readonly type: "member.state";
  readonly groupId: string;
  readonly memberId: string;
  readonly protocol: "consumer" | "classic";
  readonly from: string;
  readonly to: string;
  readonly memberEpoch: number;
}

/**
 * The partitions the application owns changed: what it may fetch and
 * process. A partition becomes owned when onPartitionsAssigned has
 * completed for it, and stops being owned when its revocation begins
 * (before onPartitionsRevoked runs), when it is lost, or on leave.
 */
export interface OwnedPartitionsObservation {
  readonly type: "member.owned";
  readonly groupId: string;
  readonly memberId: string;
  readonly memberEpoch: number;
  readonly owned: PartitionsByTopic;
  readonly cause: "assigned" | "revoked" | "lost" | "leave";
}

export type RebalanceCallback = "onPartitionsRevoked" | "onPartitionsAssigned" | "onPartitionsLost";

export interface CallbackObservation {
  readonly type: "member.callback";
  readonly groupId: string;
  readonly memberId: string;
  readonly callback: RebalanceCallback;
  readonly phase: "start" | "end";
  readonly partitions: PartitionsByTopic;
}

/**
 * The application's poll() returned no records. A poll that returned
 * records is its `member.records` instead: each poll() is one of the two,
 * when it returns.
 */
export interface PollObservation {
  readonly type: "member.poll";
  readonly memberId: string;
}

/**
 * The poll timer restarted: a pass of poll()'s loop began (Kafka restarts
 * it at the top of every pass: the KIP-848 consumer's PollEvent, the
 * classic client's `pollHeartbeat` in `ConsumerCoordinator.poll`), or a
 * classic member's JoinGroup was answered (`Heartbeat.resetTimeouts`).
 * A poll()'s return restarts nothing: an expiry is due max.poll.interval.ms
 * after the last of these, on the member's own clock.
 */
export interface PollTimerResetObservation {
  readonly type: "member.poll-timer-reset";
  readonly memberId: string;
}

/** max.poll.interval.ms expired: the member leaves the group as STALE (spec 2.2). */
export interface PollTimeoutObservation {
  readonly type: "member.poll-timeout";
  readonly groupId: string;
  readonly memberId: string;
  /** When the poll timer last restarted before the expiry (microseconds, on the member's own clock). */
  readonly lastPollUs: number;
  readonly maxPollIntervalMs: number;
}

/** The records of one partition in a poll's batch: its first and last offsets, and how many records (the poll's own ranges). */
export type RecordRange = PolledRange;

/**
 * Records handed to the application by one poll (one observation per poll
 * that returned records; a poll that returned none is a `member.poll`): a
 * range per partition, in the order the batch first holds each partition.
 * A real client's records (KafkaJS, a client on the wire) come the same way.
 */
export interface RecordsObservation {
  readonly type: "member.records";
  readonly memberId: string;
  readonly ranges: readonly RecordRange[];
}

/**
 * Records a Fetch answer brought for a partition the member did not own when
 * the answer arrived, which Kafka's clients drop (Java's FetchCollector:
 * "Not returning fetched records for partition ... since it is no longer
 * assigned"). Only a real client's tracker reports these (kcsim serve counts
 * what Fetch answers bring, not what the application is handed): a client
 * that hands them to its application anyway cannot be seen at the wire, so
 * no-loss names them where records were never consumed.
 */
export interface RecordsDroppedObservation {
  readonly type: "member.records-dropped";
  readonly memberId: string;
  readonly ranges: readonly RecordRange[];
}

/**
 * One topic's partitions of a member.commit, index by index: partition
 * `partitions[i]` at offset `offsets[i]` (columns, not an object keyed by
 * partition number: the history writes two arrays of numbers faster than an
 * object with a new set of keys per commit). A type, so it is a JsonValue.
 */
export type CommitTopicOffsets = {
  readonly topic: string;
  readonly partitions: readonly number[];
  readonly offsets: readonly number[];
};

/** An offset commit the member attempted, and how it ended. */
export interface CommitObservation {
  readonly type: "member.commit";
  readonly groupId: string;
  readonly memberId: string;
  readonly memberEpoch: number;
  readonly kind: "auto" | "sync" | "async" | "revocation" | "close";
  /** The request's partitions, topic by topic in its order (history format 6; before it, `offsets` by topic, then partition). */
  readonly topics: readonly CommitTopicOffsets[];
  /**
   * Kafka's error name, "NONE" on success, "TIMEOUT" when no answer came in
   * time, "NETWORK_EXCEPTION" when the connection closed under the request
   * (the coordinator's process reset it, or another request on it timed out).
   */
  readonly result: string;
}

/**
 * The group coordinator the member knows changed: found (a FindCoordinator
 * answer names it) or marked unknown (`coordinator` null: NOT_COORDINATOR,
 * COORDINATOR_NOT_AVAILABLE, a request that failed on the network, a classic
 * session timeout). A member starts, and restarts, with none known and
 * reports only changes. Like Kafka, both kinds of consumer check the poll
 * timer (max.poll.interval.ms) only while they know a coordinator.
 */
export interface CoordinatorObservation {
  readonly type: "member.coordinator";
  readonly groupId: string;
  readonly memberId: string;
  /** The coordinator's actor id, or null when it is unknown. */
  readonly coordinator: string | null;
}

/** A fatal error: the consumer is unusable (spec 1.7 FATAL errors, thrown from poll()). */
export interface FatalObservation {
  readonly type: "member.fatal";
  readonly groupId: string;
  readonly memberId: string;
  readonly error: string;
}

/**
 * A batch of a consume-process-produce application ended (one per batch):
 * - transactional output: `committed` (its results and next offsets
 *   committed in one transaction), `aborted` (the transaction aborted:
 *   an error, or partitions of the batch revoked or lost meanwhile), or
 *   `fenced` (the producer hit a fatal error, e.g. PRODUCER_FENCED after a
 *   transaction timeout or a restart of the same transactional.id: it is
 *   replaced and initialised again);
 * - idempotent output: `produced` (every result acknowledged; commitSync
 *   follows) or `send-failed`.
 * After anything but `committed` and `produced` the consumer is sought back
 * to the batch's first offsets (`rewoundTo`, partitions it still holds), so
 * the records are processed again.
 */
export interface ProcessedBatchObservation {
  readonly type: "member.batch";
  readonly groupId: string;
  readonly memberId: string;
  readonly memberEpoch: number;
  /** The output producer's transactional.id (null for the idempotent output). */
  readonly transactionalId: string | null;
  readonly outcome: "committed" | "aborted" | "fenced" | "produced" | "send-failed";
  /** What caused an abort, a fence or a failure (an error name, or "REVOKED"); "NONE" otherwise. */
  readonly reason: string;
  readonly records: number;
  /** The batch's input offsets by topic, then partition: [first, last]. */
  readonly offsets: { readonly [topic: string]: { readonly [partition: string]: readonly [number, number] } };
  /** Where each partition was sought back to (empty unless rolled back). */
  readonly rewoundTo: { readonly [topic: string]: { readonly [partition: string]: number } };
}

/**
 * The application wrote a processed record to its external store (app.sink).
 * `row` is the store key the write lands on: the input record's
 * `<topic>-<partition>@<offset>` for an upsert sink (a re-delivery
 * overwrites it), null for an append sink (every write adds a row).
 */
export interface SinkWriteObservation {
  readonly type: "sink.write";
  readonly groupId: string;
  readonly memberId: string;
  readonly mode: "append" | "upsert";
  readonly row: string | null;
  readonly key: string | null;
  readonly value: string | null;
  readonly inputTopic: string;
  readonly inputPartition: number;
  readonly inputOffset: number;
}

export type MemberObservation =
  | MemberStateObservation
  | OwnedPartitionsObservation
  | CallbackObservation
  | PollObservation
  | PollTimerResetObservation
  | PollTimeoutObservation
  | RecordsObservation
  | RecordsDroppedObservation
  | CommitObservation
  | CoordinatorObservation
  | FatalObservation
  | ProcessedBatchObservation
  | SinkWriteObservation;
