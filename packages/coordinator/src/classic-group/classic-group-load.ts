import type { GroupMetadataValue } from "../records/coordinator-record.js";
import { ClassicGroup } from "./classic-group.js";
import { ClassicGroupMember } from "./classic-group-member.js";
import { assignedPartitionsOf } from "./embedded-consumer-protocol.js";

/**
 * A classic group rebuilt from its GroupMetadata record (Kafka's replay of
 * GroupMetadataKey/Value): STABLE with its members, or EMPTY; each member
 * supports only the selected protocol (with its stored subscription) and
 * keeps its stored assignment. Join and sync bookkeeping start afresh.
 */
export function classicGroupFromRecord(groupId: string, value: GroupMetadataValue): ClassicGroup {
  const group = new ClassicGroup(groupId, {
    state: value.members.length === 0 ? "EMPTY" : "STABLE",
    generationId: value.generation,
    protocolType: value.protocolType.length === 0 ? null : value.protocolType,
    protocolName: value.protocol,
    leaderId: value.leader,
    currentStateTimestampMs: value.currentStateTimestamp,
  });
  for (const member of value.members) {
    const loaded = new ClassicGroupMember({
      memberId: member.memberId,
      instanceId: member.groupInstanceId,
      clientId: member.clientId,
      clientHost: member.clientHost,
      // Records of JoinGroup v0 members carry no rebalance timeout: their session timeout stands in.
      rebalanceTimeoutMs: member.rebalanceTimeout === -1 ? member.sessionTimeout : member.rebalanceTimeout,
      sessionTimeoutMs: member.sessionTimeout,
      protocolType: value.protocolType,
      supportedProtocols: value.protocol === null ? [] : [{ name: value.protocol, metadata: member.subscription }],
      assignment: member.assignment,
    });
    loaded.lastReportedGeneration = value.generation;
    loaded.reportedAssignment = assignedPartitionsOf(member.assignment);
    group.add(loaded, null);
  }
  return group;
}
