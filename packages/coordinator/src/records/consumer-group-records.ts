import type { ConsumerGroup } from "../consumer-group/consumer-group.js";
import { type ConsumerGroupMember, currentAssignmentValue, memberMetadataValue } from "../consumer-group/consumer-group-member.js";
import { partitionMetadataValue, type SubscriptionMetadata } from "../consumer-group/subscription-metadata.js";
import type { TopicIdPartitions } from "../topic-id-partitions.js";
import {
  type ConsumerGroupCurrentMemberAssignmentRecord,
  type ConsumerGroupMemberMetadataRecord,
  type ConsumerGroupMetadataRecord,
  type ConsumerGroupPartitionMetadataRecord,
  type ConsumerGroupRecord,
  type ConsumerGroupTargetAssignmentMemberRecord,
  type ConsumerGroupTargetAssignmentMetadataRecord,
  RecordType,
} from "./coordinator-record.js";

/** The consumer-group records (Kafka's `GroupCoordinatorRecordHelpers`). */

export function groupEpochRecord(groupId: string, epoch: number): ConsumerGroupMetadataRecord {
  return { type: RecordType.ConsumerGroupMetadata, key: { groupId }, value: { epoch } };
}

export function groupEpochTombstone(groupId: string): ConsumerGroupMetadataRecord {
  return { type: RecordType.ConsumerGroupMetadata, key: { groupId }, value: null };
}

export function partitionMetadataRecord(groupId: string, metadata: SubscriptionMetadata): ConsumerGroupPartitionMetadataRecord {
  return { type: RecordType.ConsumerGroupPartitionMetadata, key: { groupId }, value: partitionMetadataValue(metadata) };
}

export function partitionMetadataTombstone(groupId: string): ConsumerGroupPartitionMetadataRecord {
  return { type: RecordType.ConsumerGroupPartitionMetadata, key: { groupId }, value: null };
}

export function memberSubscriptionRecord(groupId: string, member: ConsumerGroupMember): ConsumerGroupMemberMetadataRecord {
  return { type: RecordType.ConsumerGroupMemberMetadata, key: { groupId, memberId: member.memberId }, value: memberMetadataValue(member) };
}

export function memberSubscriptionTombstone(groupId: string, memberId: string): ConsumerGroupMemberMetadataRecord {
  return { type: RecordType.ConsumerGroupMemberMetadata, key: { groupId, memberId }, value: null };
}

export function targetAssignmentMetadataRecord(groupId: string, assignmentEpoch: number): ConsumerGroupTargetAssignmentMetadataRecord {
  return { type: RecordType.ConsumerGroupTargetAssignmentMetadata, key: { groupId }, value: { assignmentEpoch } };
}

export function targetAssignmentMetadataTombstone(groupId: string): ConsumerGroupTargetAssignmentMetadataRecord {
  return { type: RecordType.ConsumerGroupTargetAssignmentMetadata, key: { groupId }, value: null };
}

export function targetAssignmentRecord(
  groupId: string,
  memberId: string,
  topicPartitions: readonly TopicIdPartitions[],
): ConsumerGroupTargetAssignmentMemberRecord {
  return { type: RecordType.ConsumerGroupTargetAssignmentMember, key: { groupId, memberId }, value: { topicPartitions } };
}

export function targetAssignmentTombstone(groupId: string, memberId: string): ConsumerGroupTargetAssignmentMemberRecord {
  return { type: RecordType.ConsumerGroupTargetAssignmentMember, key: { groupId, memberId }, value: null };
}

export function currentAssignmentRecord(groupId: string, member: ConsumerGroupMember): ConsumerGroupCurrentMemberAssignmentRecord {
  return {
    type: RecordType.ConsumerGroupCurrentMemberAssignment,
    key: { groupId, memberId: member.memberId },
    value: currentAssignmentValue(member),
  };
}

export function currentAssignmentTombstone(groupId: string, memberId: string): ConsumerGroupCurrentMemberAssignmentRecord {
  return { type: RecordType.ConsumerGroupCurrentMemberAssignment, key: { groupId, memberId }, value: null };
}

/**
 * Kafka's `ConsumerGroup.createGroupTombstoneRecords`, in the order replay
 * requires: every current assignment, every target, the target metadata,
 * every member, the subscription metadata, the group epoch.
 */
export function consumerGroupTombstones(group: ConsumerGroup): ConsumerGroupRecord[] {
  const memberIds = [...group.members().keys()];
  return [
    ...memberIds.map((memberId) => currentAssignmentTombstone(group.groupId, memberId)),
    ...memberIds.map((memberId) => targetAssignmentTombstone(group.groupId, memberId)),
    targetAssignmentMetadataTombstone(group.groupId),
    ...memberIds.map((memberId) => memberSubscriptionTombstone(group.groupId, memberId)),
    partitionMetadataTombstone(group.groupId),
    groupEpochTombstone(group.groupId),
  ];
}
