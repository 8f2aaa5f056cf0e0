import { sameProtocols } from "../classic-group/classic-group-member.js";
import { type MemberReconciliationState, MemberState } from "../reconciliation/member-state.js";
import type {
  ClassicMemberMetadataValue,
  ConsumerGroupCurrentMemberAssignmentValue,
  ConsumerGroupMemberMetadataValue,
} from "../records/coordinator-record.js";
import type { TopicIdPartitions } from "../topic-id-partitions.js";

/** `ConsumerGroupHeartbeatRequest.LEAVE_GROUP_MEMBER_EPOCH`: the member leaves (or was fenced). */
export const LEAVE_GROUP_MEMBER_EPOCH = -1;
/** `LEAVE_GROUP_STATIC_MEMBER_EPOCH`: a static member left for now and keeps its partitions. */
export const LEAVE_GROUP_STATIC_MEMBER_EPOCH = -2;

/**
 * A KIP-848 group member as the coordinator holds it (Kafka's
 * `ConsumerGroupMember`): its subscription and settings (the
 * MemberMetadata record) and where it is in its reconciliation (the
 * CurrentMemberAssignment record). Immutable: every change is a new object.
 */
export interface ConsumerGroupMember extends MemberReconciliationState {
  readonly memberId: string;
  readonly instanceId: string | null;
  readonly rackId: string | null;
  readonly clientId: string;
  readonly clientHost: string;
  /** Sorted, without duplicates (Kafka keeps a set). */
  readonly subscribedTopicNames: readonly string[];
  /** "" when the member has no regex subscription. */
  readonly subscribedTopicRegex: string;
  readonly rebalanceTimeoutMs: number;
  readonly serverAssignor: string | null;
  /**
   * Set for a member that uses the classic protocol inside this consumer
   * group (JoinGroup/SyncGroup/Heartbeat; a mixed group, spec 8): its
   * session timeout and JoinGroup protocols. Null for consumer-protocol members.
   */
  readonly classicMemberMetadata: ClassicMemberMetadataValue | null;
}

/** Whether the member uses the classic protocol (Kafka's `useClassicProtocol`). */
export function usesClassicProtocol(member: ConsumerGroupMember): boolean {
  return member.classicMemberMetadata !== null;
}

const NO_PARTITIONS: readonly TopicIdPartitions[] = [];
const NO_TOPICS: readonly string[] = [];

/** A member that has just been created: epoch 0, nothing assigned (Kafka's `ConsumerGroupMember.Builder(memberId)`). */
export function newConsumerGroupMember(memberId: string): ConsumerGroupMember {
  return {
    memberId,
    instanceId: null,
    rackId: null,
    clientId: "",
    clientHost: "",
    subscribedTopicNames: NO_TOPICS,
    subscribedTopicRegex: "",
    rebalanceTimeoutMs: -1,
    serverAssignor: null,
    classicMemberMetadata: null,
    state: MemberState.STABLE,
    memberEpoch: 0,
    previousMemberEpoch: 0,
    assignedPartitions: NO_PARTITIONS,
    partitionsPendingRevocation: NO_PARTITIONS,
  };
}

/** Kafka's `isReconciledTo`: STABLE at exactly that epoch. */
export function isReconciledTo(member: ConsumerGroupMember, targetAssignmentEpoch: number): boolean {
  return member.state === MemberState.STABLE && member.memberEpoch === targetAssignmentEpoch;
}

/** The sorted, duplicate-free form a subscription is kept in. */
export function canonicalTopicNames(names: readonly string[]): readonly string[] {
  const sorted = [...new Set(names)].sort();
  return sorted.length === 0 ? NO_TOPICS : sorted;
}

export function sameTopicNames(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The MemberMetadata record value of a member. */
export function memberMetadataValue(member: ConsumerGroupMember): ConsumerGroupMemberMetadataValue {
  const value: ConsumerGroupMemberMetadataValue = {
    instanceId: member.instanceId,
    rackId: member.rackId,
    clientId: member.clientId,
    clientHost: member.clientHost,
    subscribedTopicNames: member.subscribedTopicNames,
    subscribedTopicRegex: member.subscribedTopicRegex,
    rebalanceTimeoutMs: member.rebalanceTimeoutMs,
    serverAssignor: member.serverAssignor,
  };
  // A tagged field: written only for classic members.
  return member.classicMemberMetadata === null ? value : { ...value, classicMemberMetadata: member.classicMemberMetadata };
}

function sameClassicMemberMetadata(a: ClassicMemberMetadataValue | null, b: ClassicMemberMetadataValue | null): boolean {
  if (a === b) return true;
  if (a === null || b === null) return false;
  return a.sessionTimeoutMs === b.sessionTimeoutMs && sameProtocols(a.supportedProtocols, b.supportedProtocols);
}

/** Whether two members differ in anything the MemberMetadata record holds. */
export function sameMemberMetadata(a: ConsumerGroupMember, b: ConsumerGroupMember): boolean {
  return (
    a.instanceId === b.instanceId &&
    a.rackId === b.rackId &&
    a.clientId === b.clientId &&
    a.clientHost === b.clientHost &&
    sameTopicNames(a.subscribedTopicNames, b.subscribedTopicNames) &&
    a.subscribedTopicRegex === b.subscribedTopicRegex &&
    a.rebalanceTimeoutMs === b.rebalanceTimeoutMs &&
    a.serverAssignor === b.serverAssignor &&
    sameClassicMemberMetadata(a.classicMemberMetadata, b.classicMemberMetadata)
  );
}

/** The member with the MemberMetadata record's fields (`Builder.updateWith(MemberMetadataValue)`). */
export function withMemberMetadata(member: ConsumerGroupMember, value: ConsumerGroupMemberMetadataValue): ConsumerGroupMember {
  return {
    ...member,
    instanceId: value.instanceId,
    rackId: value.rackId,
    clientId: value.clientId,
    clientHost: value.clientHost,
    subscribedTopicNames: canonicalTopicNames(value.subscribedTopicNames),
    subscribedTopicRegex: value.subscribedTopicRegex,
    rebalanceTimeoutMs: value.rebalanceTimeoutMs,
    serverAssignor: value.serverAssignor,
    classicMemberMetadata: value.classicMemberMetadata ?? null,
  };
}

/** The CurrentMemberAssignment record value of a member. */
export function currentAssignmentValue(member: ConsumerGroupMember): ConsumerGroupCurrentMemberAssignmentValue {
  return {
    memberEpoch: member.memberEpoch,
    previousMemberEpoch: member.previousMemberEpoch,
    state: member.state,
    assignedPartitions: member.assignedPartitions,
    partitionsPendingRevocation: member.partitionsPendingRevocation,
  };
}

function memberStateOf(value: number): MemberState {
  switch (value) {
    case MemberState.STABLE:
    case MemberState.UNREVOKED_PARTITIONS:
    case MemberState.UNRELEASED_PARTITIONS:
      return value;
    default:
      // A state a newer coordinator wrote: reconciliation fences the member.
      return MemberState.UNKNOWN;
  }
}

/** The member with the CurrentMemberAssignment record's fields (`Builder.updateWith(CurrentMemberAssignmentValue)`). */
export function withCurrentAssignment(member: ConsumerGroupMember, value: ConsumerGroupCurrentMemberAssignmentValue): ConsumerGroupMember {
  return {
    ...member,
    memberEpoch: value.memberEpoch,
    previousMemberEpoch: value.previousMemberEpoch,
    state: memberStateOf(value.state),
    assignedPartitions: value.assignedPartitions,
    partitionsPendingRevocation: value.partitionsPendingRevocation,
  };
}

/** What a CurrentMemberAssignment tombstone leaves of a member: epoch -1, nothing owned. */
export function withAssignmentRemoved(member: ConsumerGroupMember): ConsumerGroupMember {
  return {
    ...member,
    memberEpoch: LEAVE_GROUP_MEMBER_EPOCH,
    previousMemberEpoch: LEAVE_GROUP_MEMBER_EPOCH,
    assignedPartitions: NO_PARTITIONS,
    partitionsPendingRevocation: NO_PARTITIONS,
  };
}
