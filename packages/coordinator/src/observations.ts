import type { PartitionsByTopic } from "@kcsim/protocol";

/**
 * What the group coordinator reports to the history. Checkers, metrics and
 * reports read these; keep field names stable. Partitions are by topic
 * NAME (canonical PartitionsByTopic: topics sorted, partitions ascending).
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

/** One partition of an OffsetCommit (or TxnOffsetCommit) and the coordinator's answer to it. */
export interface OffsetCommitObservation {
  readonly type: "gc.offset-commit";
  readonly groupId: string;
  readonly memberId: string;
  /** generationIdOrMemberEpoch as the request carried it. */
  readonly epoch: number;
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  /** 0 = accepted and written. */
  readonly errorCode: number;
  readonly transactional: boolean;
}

/** The coordinator finished loading its log after a start or restart. */
export interface CoordinatorLoadedObservation {
  readonly type: "gc.loaded";
  readonly records: number;
  readonly groups: number;
}

export type CoordinatorObservation =
  | GroupEpochObservation
  | MemberAssignmentObservation
  | MemberRemovedObservation
  | TargetAssignmentObservation
  | OffsetCommitObservation
  | CoordinatorLoadedObservation;
