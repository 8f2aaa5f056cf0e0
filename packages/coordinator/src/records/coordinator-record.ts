import type { TopicIdPartitions } from "../topic-id-partitions.js";

/**
 * The records the coordinator writes to its `__consumer_offsets` partition
 * (ctx.storage), as Kafka defines them in
 * `group-coordinator/src/main/resources/common/message/` (spec 1.8). The
 * record type is the key version; a null value is a tombstone. Field names
 * are Kafka's. Records are plain data: they travel through msgpack.
 */
export const RecordType = {
  /** Key version 0 and 1 are both OffsetCommit; the coordinator writes 1. */
  OffsetCommit: 1,
  /** A classic group: its generation, members, subscriptions and assignments. */
  GroupMetadata: 2,
  ConsumerGroupMetadata: 3,
  ConsumerGroupPartitionMetadata: 4,
  ConsumerGroupMemberMetadata: 5,
  ConsumerGroupTargetAssignmentMetadata: 6,
  ConsumerGroupTargetAssignmentMember: 7,
  ConsumerGroupCurrentMemberAssignment: 8,
} as const;

export interface GroupKey {
  readonly groupId: string;
}

export interface GroupMemberKey {
  readonly groupId: string;
  readonly memberId: string;
}

/** GroupMetadataKey (its field is `group`, as in Kafka). */
export interface ClassicGroupKey {
  readonly group: string;
}

/** GroupMetadataValue.MemberMetadata: one classic member with its subscription and assignment. */
export interface GroupMetadataMemberValue {
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  readonly clientId: string;
  readonly clientHost: string;
  readonly rebalanceTimeout: number;
  readonly sessionTimeout: number;
  /** The member's metadata for the group's selected protocol. */
  readonly subscription: Uint8Array;
  readonly assignment: Uint8Array;
}

/** GroupMetadataValue: a classic group as of its last stored generation. */
export interface GroupMetadataValue {
  /** "" when the group has no protocol type yet. */
  readonly protocolType: string;
  readonly generation: number;
  readonly protocol: string | null;
  readonly leader: string | null;
  /** Milliseconds; -1 when unknown. */
  readonly currentStateTimestamp: number;
  readonly members: readonly GroupMetadataMemberValue[];
}

/** A JoinGroup protocol as a classic member supports it (name and its metadata). */
export interface ClassicProtocolValue {
  readonly name: string;
  readonly metadata: Uint8Array;
}

/** ConsumerGroupMemberMetadataValue.ClassicMemberMetadata: what a classic member of a consumer group keeps. */
export interface ClassicMemberMetadataValue {
  readonly sessionTimeoutMs: number;
  readonly supportedProtocols: readonly ClassicProtocolValue[];
}

/** ConsumerGroupMetadataValue: the group epoch. */
export interface ConsumerGroupMetadataValue {
  readonly epoch: number;
}

export interface PartitionMetadataTopic {
  readonly topicId: string;
  readonly topicName: string;
  readonly numPartitions: number;
  /** Per-partition racks: deprecated in Kafka 4.0 and always empty here. */
  readonly partitionMetadata: readonly { readonly partition: number; readonly racks: readonly string[] }[];
}

/** ConsumerGroupPartitionMetadataValue: the subscribed topics' metadata. */
export interface ConsumerGroupPartitionMetadataValue {
  readonly topics: readonly PartitionMetadataTopic[];
}

/** ConsumerGroupMemberMetadataValue: a member's subscription and settings. */
export interface ConsumerGroupMemberMetadataValue {
  readonly instanceId: string | null;
  readonly rackId: string | null;
  readonly clientId: string;
  readonly clientHost: string;
  readonly subscribedTopicNames: readonly string[];
  /** "" when the member has no regex subscription. */
  readonly subscribedTopicRegex: string;
  readonly rebalanceTimeoutMs: number;
  readonly serverAssignor: string | null;
  /** Tagged field, present only for members that use the classic protocol (a mixed group). */
  readonly classicMemberMetadata?: ClassicMemberMetadataValue;
}

/** ConsumerGroupTargetAssignmentMetadataValue: the epoch of the target assignment. */
export interface ConsumerGroupTargetAssignmentMetadataValue {
  readonly assignmentEpoch: number;
}

/** ConsumerGroupTargetAssignmentMemberValue: one member's target. */
export interface ConsumerGroupTargetAssignmentMemberValue {
  readonly topicPartitions: readonly TopicIdPartitions[];
}

/** ConsumerGroupCurrentMemberAssignmentValue: where a member is in its reconciliation. */
export interface ConsumerGroupCurrentMemberAssignmentValue {
  readonly memberEpoch: number;
  readonly previousMemberEpoch: number;
  /** MemberState as its int8 value. */
  readonly state: number;
  readonly assignedPartitions: readonly TopicIdPartitions[];
  readonly partitionsPendingRevocation: readonly TopicIdPartitions[];
}

export interface OffsetCommitKey {
  readonly group: string;
  readonly topic: string;
  readonly partition: number;
}

/** OffsetCommitValue (the v1 layout: with expireTimestamp, -1 when the request set no retention). */
export interface OffsetCommitValue {
  readonly offset: number;
  /** -1 when unknown. */
  readonly leaderEpoch: number;
  readonly metadata: string;
  /** Milliseconds. */
  readonly commitTimestamp: number;
  readonly expireTimestamp: number;
}

export interface ConsumerGroupMetadataRecord {
  readonly type: typeof RecordType.ConsumerGroupMetadata;
  readonly key: GroupKey;
  readonly value: ConsumerGroupMetadataValue | null;
}

export interface ConsumerGroupPartitionMetadataRecord {
  readonly type: typeof RecordType.ConsumerGroupPartitionMetadata;
  readonly key: GroupKey;
  readonly value: ConsumerGroupPartitionMetadataValue | null;
}

export interface ConsumerGroupMemberMetadataRecord {
  readonly type: typeof RecordType.ConsumerGroupMemberMetadata;
  readonly key: GroupMemberKey;
  readonly value: ConsumerGroupMemberMetadataValue | null;
}

export interface ConsumerGroupTargetAssignmentMetadataRecord {
  readonly type: typeof RecordType.ConsumerGroupTargetAssignmentMetadata;
  readonly key: GroupKey;
  readonly value: ConsumerGroupTargetAssignmentMetadataValue | null;
}

export interface ConsumerGroupTargetAssignmentMemberRecord {
  readonly type: typeof RecordType.ConsumerGroupTargetAssignmentMember;
  readonly key: GroupMemberKey;
  readonly value: ConsumerGroupTargetAssignmentMemberValue | null;
}

export interface ConsumerGroupCurrentMemberAssignmentRecord {
  readonly type: typeof RecordType.ConsumerGroupCurrentMemberAssignment;
  readonly key: GroupMemberKey;
  readonly value: ConsumerGroupCurrentMemberAssignmentValue | null;
}

export interface GroupMetadataRecord {
  readonly type: typeof RecordType.GroupMetadata;
  readonly key: ClassicGroupKey;
  readonly value: GroupMetadataValue | null;
}

/**
 * Where a transactional OffsetCommit record came from: the producer of its
 * transactional batch (Kafka's RecordBatch producer id and epoch; a record
 * without it is in a plain batch, NO_PRODUCER_ID) and, not in Kafka, the
 * TxnOffsetCommit that wrote it (kept for the observations of its
 * materialisation after a restart).
 */
export interface TransactionalOffsetCommitOrigin {
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly transactionalId: string;
  readonly memberId: string;
  readonly generationId: number;
}

export interface OffsetCommitRecord {
  readonly type: typeof RecordType.OffsetCommit;
  readonly key: OffsetCommitKey;
  readonly value: OffsetCommitValue | null;
  /** Set on a TxnOffsetCommit's records: pending until the producer's transaction marker. */
  readonly transaction?: TransactionalOffsetCommitOrigin;
}

/**
 * A transaction marker written by WriteTxnMarkers to one of the
 * coordinator's `__consumer_offsets` partitions: Kafka's control batch
 * (producer id and epoch in the batch header) holding one
 * EndTransactionMarker record (COMMIT or ABORT, with the transaction
 * coordinator's epoch). Replaying it materialises (COMMIT) or drops (ABORT)
 * the producer's pending offsets of the groups on that partition.
 */
export interface EndTransactionMarkerRecord {
  readonly type: "EndTransactionMarker";
  /** The `__consumer_offsets` partition the marker was written to. */
  readonly partition: number;
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly coordinatorEpoch: number;
  /** ControlRecordType COMMIT (true) or ABORT (false). */
  readonly committed: boolean;
}

/** The records of KIP-848 consumer groups (types 3-8). */
export type ConsumerGroupRecord =
  | ConsumerGroupMetadataRecord
  | ConsumerGroupPartitionMetadataRecord
  | ConsumerGroupMemberMetadataRecord
  | ConsumerGroupTargetAssignmentMetadataRecord
  | ConsumerGroupTargetAssignmentMemberRecord
  | ConsumerGroupCurrentMemberAssignmentRecord;

/** Everything the coordinator writes through its batched appends. */
export type CoordinatorRecord = ConsumerGroupRecord | GroupMetadataRecord | OffsetCommitRecord | EndTransactionMarkerRecord;

/**
 * Not a Kafka record: a change of the cluster's metadata image (a topic
 * created or grown). In Kafka the image comes from the KRaft metadata log,
 * which survives a broker restart; the simulated coordinator keeps that log
 * in its own storage, so a restarted coordinator sees the same topics.
 */
export interface TopicImageRecord {
  readonly type: "kcsim.TopicImage";
  readonly topic: { readonly name: string; readonly id: string; readonly partitions: number };
}

/** Every record ctx.storage holds. */
export type StoredRecord = CoordinatorRecord | TopicImageRecord;

const COORDINATOR_RECORD_TYPES = new Set<unknown>([
  RecordType.OffsetCommit,
  RecordType.GroupMetadata,
  RecordType.ConsumerGroupMetadata,
  RecordType.ConsumerGroupPartitionMetadata,
  RecordType.ConsumerGroupMemberMetadata,
  RecordType.ConsumerGroupTargetAssignmentMetadata,
  RecordType.ConsumerGroupTargetAssignmentMember,
  RecordType.ConsumerGroupCurrentMemberAssignment,
]);

/** Whether a value read back from storage looks like a record this coordinator wrote. */
export function isStoredRecord(value: unknown): value is StoredRecord {
  if (typeof value !== "object" || value === null) return false;
  const type = (value as { type?: unknown }).type;
  if (type === "kcsim.TopicImage") return typeof (value as { topic?: unknown }).topic === "object";
  if (type === "EndTransactionMarker") {
    const marker = value as { partition?: unknown; producerId?: unknown; committed?: unknown };
    return typeof marker.partition === "number" && typeof marker.producerId === "number" && typeof marker.committed === "boolean";
  }
  return COORDINATOR_RECORD_TYPES.has(type) && typeof (value as { key?: unknown }).key === "object" && "value" in value;
}

/** The group a record belongs to, or null for a metadata-image record or a transaction marker (it spans groups). */
export function groupIdOf(record: StoredRecord): string | null {
  if (record.type === "kcsim.TopicImage" || record.type === "EndTransactionMarker") return null;
  if (record.type === RecordType.OffsetCommit || record.type === RecordType.GroupMetadata) return record.key.group;
  return record.key.groupId;
}
