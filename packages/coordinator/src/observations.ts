import type { PartitionsByTopic } from "@kcsim/protocol";

/**
 * What the group coordinator (`gc.*`) and the transaction coordinator
 * (`txn.*`) report to the history. Checkers, metrics and reports read
 * these; keep field names stable. Partitions are by topic NAME (canonical
 * PartitionsByTopic: topics sorted, partitions ascending).
 */
export type ConsumerGroupState = "EMPTY" | "ASSIGNING" | "RECONCILING" | "STABLE" | "DEAD";
export type ClassicGroupState = "EMPTY" | "PREPARING_REBALANCE" | "COMPLETING_REBALANCE" | "STABLE" | "DEAD";
export type ServerMemberState = "STABLE" | "UNREVOKED_PARTITIONS" | "UNRELEASED_PARTITIONS" | "UNKNOWN";

export type MemberRemovalReason =
  | "leave" // LeaveGroup / heartbeat with epoch -1
  | "session-timeout"
  | "rebalance-timeout" // KIP-848: still UNREVOKED at the epoch it was given; classic: did not rejoin in time
  | "sync-timeout" // classic: never sent SyncGroup after the join phase
  | "join-timeout" // classic: new member join deadline
  | "static-replaced" // a static member's instance id was taken over by a new member id
  | "group-converted"; // online upgrade/downgrade removed the member object

/** The group's epochs or state changed (emitted on every change of any field). */
export interface GroupEpochObservation {
  readonly type: "gc.group";
  readonly groupId: string;
  readonly protocol: "consumer" | "classic";
  /** KIP-848 group epoch, or the classic generation id. */
  readonly groupEpoch: number;
  /** KIP-848 target assignment epoch (-1 before the first); the classic generation id. */
  readonly assignmentEpoch: number;
  readonly state: ConsumerGroupState | ClassicGroupState;
  readonly members: number;
}

/**
 * A member's current assignment as the coordinator holds it changed
 * (KIP-848 CurrentAssignment; for classic members, what SyncGroup handed
 * out). `assigned` are the partitions the member may own now;
 * `pendingRevocation` those it must still give up. Together they are the
 * partitions whose partition epoch the member holds.
 */
export interface MemberAssignmentObservation {
  readonly type: "gc.member";
  readonly groupId: string;
  readonly memberId: string;
  readonly instanceId: string | null;
  readonly memberEpoch: number;
  readonly previousMemberEpoch: number;
  readonly state: ServerMemberState;
  readonly assigned: PartitionsByTopic;
  readonly pendingRevocation: PartitionsByTopic;
}

/** The coordinator removed (fenced) a member: its partitions are free from now on. */
export interface MemberRemovedObservation {
  readonly type: "gc.member-removed";
  readonly groupId: string;
  readonly memberId: string;
  readonly instanceId: string | null;
  readonly memberEpoch: number;
  readonly reason: MemberRemovalReason;
}

/** A new target assignment was computed (KIP-848) or the classic leader's assignment was installed. */
export interface TargetAssignmentObservation {
  readonly type: "gc.target";
  readonly groupId: string;
  readonly assignmentEpoch: number;
  readonly assignor: string;
  readonly members: number;
  /** Partitions whose target owner changed relative to the previous target. */
  readonly moved: number;
}

/**
 * Offsets became the group's committed offsets, or an OffsetCommit was
 * refused. Plain commits: one per OffsetCommit, every partition of the
 * request with the coordinator's answer for it (0 = accepted and written).
 * Transactional commits (`transactional: true`): one per partition when
 * the producer's COMMIT marker materialises a pending TxnOffsetCommit
 * offset (always errorCode 0); `memberId` and `epoch` are then those the
 * TxnOffsetCommit carried, and the KIP-447 zombie check they passed
 * happened when it was accepted (see gc.txn-offset), not at
 * materialisation: the member may have moved on to a newer epoch by the
 * time the marker lands. Refused TxnOffsetCommits and pending or dropped
 * transactional offsets are gc.txn-offset only.
 *
 * One observation per request, not per partition: an idle consumer's
 * auto-commit sends every owned partition every few seconds (Kafka commits
 * unchanged offsets too), and per partition those were most of an idle
 * group's history.
 */
export interface OffsetCommitObservation {
  readonly type: "gc.offset-commit";
  readonly groupId: string;
  readonly memberId: string;
  /** generationIdOrMemberEpoch as the request carried it (TxnOffsetCommit: its GenerationId). */
  readonly epoch: number;
  readonly transactional: boolean;
  /** The request's partitions, topic by topic in its order. */
  readonly topics: readonly CommittedTopicOffsets[];
}

/**
 * One topic's partitions of a gc.offset-commit, index by index: partition
 * `partitions[i]` committed `offsets[i]` and was answered `errorCodes[i]`
 * (0 = accepted and written; transactional: materialised by the COMMIT
 * marker). A type, so it is a JsonValue.
 */
export type CommittedTopicOffsets = {
  readonly topic: string;
  readonly partitions: readonly number[];
  readonly offsets: readonly number[];
  readonly errorCodes: readonly number[];
};

/**
 * What happened to one partition of a TxnOffsetCommit (KIP-98, KIP-447),
 * apart from its materialisation (that is a gc.offset-commit with
 * `transactional: true`):
 * - `pending`: accepted (errorCode 0) and written, invisible to OffsetFetch
 *   until the producer's COMMIT marker (RequireStable fetches of the
 *   partition get UNSTABLE_OFFSET_COMMIT meanwhile);
 * - `rejected`: refused with `errorCode` (ILLEGAL_GENERATION for a stale
 *   generation or member epoch, UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID,
 *   INVALID_PRODUCER_EPOCH for a fenced producer, NOT_COORDINATOR, ...);
 * - `aborted`: dropped by the producer's ABORT marker;
 * - `superseded`: dropped by the COMMIT marker because a plain OffsetCommit
 *   of the partition was written after it (Kafka keeps the most recent).
 */
export interface TransactionalOffsetObservation {
  readonly type: "gc.txn-offset";
  readonly groupId: string;
  readonly memberId: string;
  /** The TxnOffsetCommit's GenerationId (a consumer group's member epoch, a classic group's generation). */
  readonly epoch: number;
  readonly transactionalId: string;
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly outcome: "pending" | "rejected" | "aborted" | "superseded";
  /** The TxnOffsetCommit's answer for the partition (pending: 0); 0 for aborted and superseded. */
  readonly errorCode: number;
}

/** A WriteTxnMarkers request reached this group coordinator: one per `__consumer_offsets` partition, with its answer. */
export interface GroupCoordinatorMarkerObservation {
  readonly type: "gc.txn-marker";
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly coordinatorEpoch: number;
  readonly committed: boolean;
  /** The `__consumer_offsets` partition. */
  readonly partition: number;
  /** 0 = the marker was written (and the producer's pending offsets of that partition materialised or dropped). */
  readonly errorCode: number;
}

/** The coordinator finished loading its log after a start or restart. */
export interface CoordinatorLoadedObservation {
  readonly type: "gc.loaded";
  readonly records: number;
  readonly groups: number;
}

// ---- the transaction coordinator (kind "transaction-coordinator") ----

/** Kafka's `TransactionState` names (DescribeTransactions spells them so). */
export type TransactionStateName =
  | "Empty"
  | "Ongoing"
  | "PrepareCommit"
  | "PrepareAbort"
  | "CompleteCommit"
  | "CompleteAbort"
  | "PrepareEpochFence"
  | "Dead";

/**
 * A transactional id changed state (each durable write of its
 * `__transaction_state` record, plus the in-memory PrepareEpochFence step
 * and the expiration to Dead). `from` = `to` is a rewrite in the same state:
 * an InitProducerId (Empty -> Empty with a new epoch) or partitions added to
 * an Ongoing transaction. `producerEpoch` is the epoch after the change (an
 * epoch fence shows the bumped epoch); `partitions` the transaction's
 * partitions after it (Kafka clears them on CompleteCommit/CompleteAbort;
 * `__consumer_offsets` partitions are those added by AddOffsetsToTxn).
 */
export interface TransactionStateObservation {
  readonly type: "txn.state";
  readonly transactionalId: string;
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly from: TransactionStateName;
  readonly to: TransactionStateName;
  readonly partitions: PartitionsByTopic;
}

/**
 * The answer about one partition's transaction marker (WriteTxnMarkers) as
 * the transaction coordinator received it: 0 = written; a retriable error
 * (NOT_LEADER_OR_FOLLOWER, ...; NETWORK_EXCEPTION for a reset connection,
 * REQUEST_TIMED_OUT for no answer within request.timeout.ms) means the
 * marker is sent again.
 */
export interface TransactionMarkerObservation {
  readonly type: "txn.marker";
  readonly transactionalId: string;
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly committed: boolean;
  readonly topic: string;
  readonly partition: number;
  readonly errorCode: number;
}

/** The transaction coordinator finished loading `__transaction_state` after a start or restart. */
export interface TransactionCoordinatorLoadedObservation {
  readonly type: "txn.loaded";
  readonly records: number;
  /** Transactional ids it holds. */
  readonly transactions: number;
  /** Its new coordinator epoch (one more per start), carried by its WriteTxnMarkers. */
  readonly coordinatorEpoch: number;
}

export type TransactionCoordinatorObservation =
  | TransactionStateObservation
  | TransactionMarkerObservation
  | TransactionCoordinatorLoadedObservation;

export type CoordinatorObservation =
  | GroupEpochObservation
  | MemberAssignmentObservation
  | MemberRemovedObservation
  | TargetAssignmentObservation
  | OffsetCommitObservation
  | TransactionalOffsetObservation
  | GroupCoordinatorMarkerObservation
  | CoordinatorLoadedObservation
  | TransactionCoordinatorObservation;
