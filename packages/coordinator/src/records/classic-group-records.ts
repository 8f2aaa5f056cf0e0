import type { ClassicGroup } from "../classic-group/classic-group.js";
import { IllegalStateError } from "../runtime/coordinator-error.js";
import { type GroupMetadataMemberValue, type GroupMetadataRecord, RecordType } from "./coordinator-record.js";

/**
 * Kafka's `newGroupMetadataRecord`: the classic group with every member's
 * subscription (its metadata for the selected protocol) and the given
 * assignment. A group with members must have a selected protocol and an
 * assignment for each member. An empty group's record doubles as Kafka's
 * `newEmptyGroupMetadataRecord`.
 */
export function groupMetadataRecord(group: ClassicGroup, assignments: ReadonlyMap<string, Uint8Array>): GroupMetadataRecord {
  const members: GroupMetadataMemberValue[] = [];
  for (const member of group.members().values()) {
    const protocolName = group.protocolName;
    if (protocolName === null)
      throw new IllegalStateError(`attempted to write group ${group.groupId} with members and no selected protocol`);
    const assignment = assignments.get(member.memberId);
    if (assignment === undefined)
      throw new IllegalStateError(`attempted to write member ${member.memberId} of group ${group.groupId} with no assignment`);
    members.push({
      memberId: member.memberId,
      groupInstanceId: member.instanceId,
      clientId: member.clientId,
      clientHost: member.clientHost,
      rebalanceTimeout: member.rebalanceTimeoutMs,
      sessionTimeout: member.sessionTimeoutMs,
      subscription: member.metadata(protocolName),
      assignment,
    });
  }
  return {
    type: RecordType.GroupMetadata,
    key: { group: group.groupId },
    value: {
      protocolType: group.protocolType ?? "",
      generation: group.generationId,
      protocol: group.protocolName,
      leader: group.leaderId,
      currentStateTimestamp: group.currentStateTimestampMs,
      members,
    },
  };
}

/**
 * Kafka's `newEmptyGroupMetadataRecord`: what a JoinGroup writes for a
 * group it created without writing anything else (no protocol, no members).
 */
export function emptyGroupMetadataRecord(group: ClassicGroup): GroupMetadataRecord {
  return {
    type: RecordType.GroupMetadata,
    key: { group: group.groupId },
    value: {
      protocolType: "",
      generation: 0,
      protocol: null,
      leader: null,
      currentStateTimestamp: group.currentStateTimestampMs,
      members: [],
    },
  };
}

/** Every member's current assignment, for a record that keeps them as they are. */
export function currentAssignments(group: ClassicGroup): Map<string, Uint8Array> {
  return new Map([...group.members().values()].map((member) => [member.memberId, member.assignment]));
}

export function groupMetadataTombstone(groupId: string): GroupMetadataRecord {
  return { type: RecordType.GroupMetadata, key: { group: groupId }, value: null };
}
