import { distinctAscending, type Observation, type PartitionsByTopic } from "@kcsim/protocol";
import type { ConsumerGroup } from "../consumer-group/consumer-group.js";
import type { ConsumerGroupMember } from "../consumer-group/consumer-group-member.js";
import type { Group } from "../groups/group.js";
import type { MetadataImage } from "../metadata/metadata-image.js";
import type {
  ClassicGroupState,
  GroupCoordinatorMarkerObservation,
  GroupEpochObservation,
  MemberAssignmentObservation,
  MemberRemovalReason,
  MemberRemovedObservation,
  OffsetCommitObservation,
  ServerMemberState,
  TargetAssignmentObservation,
  TransactionalOffsetObservation,
} from "../observations.js";
import { memberStateName } from "../reconciliation/member-state.js";
import type { TopicIdPartitions } from "../topic-id-partitions.js";

/** Builders of the coordinator's observations (observations.ts is the contract). */

/** An assignment by topic id as canonical PartitionsByTopic (by topic name; unknown ids keep the id). */
export function partitionsByTopicName(assignment: readonly TopicIdPartitions[], image: MetadataImage): PartitionsByTopic {
  const byName = new Map<string, number[]>();
  for (const { topicId, partitions } of assignment) {
    if (partitions.length === 0) continue;
    const name = image.topicById(topicId)?.name ?? topicId;
    const list = byName.get(name);
    if (list === undefined) byName.set(name, [...partitions]);
    else list.push(...partitions);
  }
  // Null prototype: "__proto__" is a legal topic name, and on a plain object it would set the prototype instead.
  const out: Record<string, number[]> = Object.create(null);
  for (const name of [...byName.keys()].sort()) {
    out[name] = distinctAscending(byName.get(name) ?? []);
  }
  return out;
}

export function groupObservation(group: Group): Observation {
  if (group.protocol === "classic") return classicGroupObservation(group.groupId, group.generationId, group.state(), group.numMembers);
  const observation: GroupEpochObservation = {
    type: "gc.group",
    groupId: group.groupId,
    protocol: "consumer",
    groupEpoch: group.groupEpoch,
    assignmentEpoch: group.assignmentEpoch,
    state: group.state(),
    members: group.numMembers,
  };
  return { ...observation };
}

/** A classic group's gc.group: both epochs are its generation. */
export function classicGroupObservation(groupId: string, generationId: number, state: ClassicGroupState, members: number): Observation {
  const observation: GroupEpochObservation = {
    type: "gc.group",
    groupId,
    protocol: "classic",
    groupEpoch: generationId,
    assignmentEpoch: generationId,
    state,
    members,
  };
  return { ...observation };
}

export function memberObservation(group: ConsumerGroup, member: ConsumerGroupMember, image: MetadataImage): Observation {
  const observation: MemberAssignmentObservation = {
    type: "gc.member",
    groupId: group.groupId,
    memberId: member.memberId,
    instanceId: member.instanceId,
    memberEpoch: member.memberEpoch,
    previousMemberEpoch: member.previousMemberEpoch,
    state: memberStateName(member.state) as ServerMemberState,
    assigned: partitionsByTopicName(member.assignedPartitions, image),
    pendingRevocation: partitionsByTopicName(member.partitionsPendingRevocation, image),
  };
  return { ...observation };
}

/** Who was removed: a consumer-group member, or a classic member at its group's generation. */
export interface RemovedMember {
  readonly memberId: string;
  readonly instanceId: string | null;
  readonly memberEpoch: number;
}

export function memberRemovedObservation(groupId: string, member: RemovedMember, reason: MemberRemovalReason): Observation {
  const observation: MemberRemovedObservation = {
    type: "gc.member-removed",
    groupId,
    memberId: member.memberId,
    instanceId: member.instanceId,
    memberEpoch: member.memberEpoch,
    reason,
  };
  return { ...observation };
}

/**
 * A classic member's assignment as its group's SyncGroup handed it out (or
 * a conversion carried it over): epoch = the generation, state STABLE,
 * nothing pending revocation (classic members revoke on their own side).
 */
export function classicMemberObservation(
  groupId: string,
  member: { readonly memberId: string; readonly instanceId: string | null },
  generationId: number,
  previousGenerationId: number,
  assigned: PartitionsByTopic,
): Observation {
  const observation: MemberAssignmentObservation = {
    type: "gc.member",
    groupId,
    memberId: member.memberId,
    instanceId: member.instanceId,
    memberEpoch: generationId,
    previousMemberEpoch: previousGenerationId,
    state: "STABLE",
    assigned,
    pendingRevocation: {},
  };
  return { ...observation };
}

export function targetObservation(groupId: string, assignmentEpoch: number, assignor: string, members: number, moved: number): Observation {
  const observation: TargetAssignmentObservation = { type: "gc.target", groupId, assignmentEpoch, assignor, members, moved };
  return { ...observation };
}

export function offsetCommitObservation(fields: Omit<OffsetCommitObservation, "type">): Observation {
  const observation: OffsetCommitObservation = {
    type: "gc.offset-commit",
    groupId: fields.groupId,
    memberId: fields.memberId,
    epoch: fields.epoch,
    transactional: fields.transactional,
    topics: fields.topics,
  };
  return observation as unknown as Observation;
}

export function transactionalOffsetObservation(fields: Omit<TransactionalOffsetObservation, "type">): Observation {
  const observation: TransactionalOffsetObservation = { type: "gc.txn-offset", ...fields };
  return { ...observation };
}

export function groupCoordinatorMarkerObservation(fields: Omit<GroupCoordinatorMarkerObservation, "type">): Observation {
  const observation: GroupCoordinatorMarkerObservation = { type: "gc.txn-marker", ...fields };
  return { ...observation };
}
