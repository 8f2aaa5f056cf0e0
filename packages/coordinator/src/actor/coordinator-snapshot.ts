import type { JsonValue } from "@kcsim/protocol";
import { assignedPartitionsOf } from "../classic-group/embedded-consumer-protocol.js";
import { memberStateName } from "../reconciliation/member-state.js";
import type { CoordinatorState } from "../runtime/coordinator-state.js";
import type { GroupTimers } from "../runtime/group-timers.js";
import { partitionsByTopicName } from "../runtime/observation-builders.js";

/** The coordinator's state as JSON (Actor.snapshot): groups, epochs, members with states and assignments, committed and pending offsets. */
export function coordinatorSnapshot(
  state: CoordinatorState,
  timers: GroupTimers,
  status: { readonly loading: boolean; readonly pendingRecords: number },
): JsonValue {
  const image = state.image;
  const groups: JsonValue[] = [];
  for (const group of state.groups.values()) {
    const offsets: Record<string, Record<string, number>> = Object.create(null); // "__proto__" is a legal topic name
    for (const { topic, partitions } of state.offsets.offsetsOf(group.groupId)) {
      const byPartition: Record<string, number> = {};
      for (const { partition, offset } of partitions) byPartition[String(partition)] = offset.offset;
      offsets[topic] = byPartition;
    }
    // Pending transactional offsets: producer id -> topic -> partition -> offset.
    const pendingOffsets: Record<string, Record<string, Record<string, number>>> = Object.create(null);
    for (const { producerId, pending } of state.offsets.pending.ofGroup(group.groupId)) {
      const byTopic = pendingOffsets[String(producerId)] ?? {};
      const byPartition = byTopic[pending.topic] ?? {};
      byPartition[String(pending.partition)] = pending.offset.offset;
      byTopic[pending.topic] = byPartition;
      pendingOffsets[String(producerId)] = byTopic;
    }
    if (group.protocol === "classic") {
      groups.push({
        groupId: group.groupId,
        protocol: "classic",
        generationId: group.generationId,
        state: group.state(),
        simple: group.isSimpleGroup(),
        protocolType: group.protocolType,
        protocolName: group.protocolName,
        leader: group.leaderId,
        members: [...group.members().values()].map((member) => ({
          memberId: member.memberId,
          instanceId: member.instanceId,
          clientId: member.clientId,
          protocols: member.supportedProtocols.map((protocol) => protocol.name),
          sessionTimeoutMs: member.sessionTimeoutMs,
          rebalanceTimeoutMs: member.rebalanceTimeoutMs,
          awaitingJoin: member.isAwaitingJoin,
          awaitingSync: member.isAwaitingSync,
          isNew: member.isNew,
          assigned: assignedPartitionsOf(member.assignment),
        })),
        pendingMembers: [...group.pendingMembers()],
        pendingSyncMembers: [...group.pendingSyncMembers()],
        offsets,
        pendingOffsets,
      });
      continue;
    }
    groups.push({
      groupId: group.groupId,
      protocol: "consumer",
      groupEpoch: group.groupEpoch,
      assignmentEpoch: group.assignmentEpoch,
      state: group.state(),
      subscriptionType: group.subscriptionType(),
      subscribedTopics: group.subscriptionMetadata.map((topic) => ({
        name: topic.name,
        id: topic.topicId,
        partitions: topic.numPartitions,
      })),
      members: [...group.members().values()].map((member) => ({
        memberId: member.memberId,
        instanceId: member.instanceId,
        clientId: member.clientId,
        memberEpoch: member.memberEpoch,
        previousMemberEpoch: member.previousMemberEpoch,
        state: memberStateName(member.state),
        subscribedTopicNames: [...member.subscribedTopicNames],
        serverAssignor: member.serverAssignor,
        rebalanceTimeoutMs: member.rebalanceTimeoutMs,
        usesClassicProtocol: member.classicMemberMetadata !== null,
        classicSessionTimeoutMs: member.classicMemberMetadata?.sessionTimeoutMs ?? null,
        assigned: partitionsByTopicName(member.assignedPartitions, image),
        pendingRevocation: partitionsByTopicName(member.partitionsPendingRevocation, image),
        target: partitionsByTopicName(group.targetOf(member.memberId), image),
      })),
      offsets,
      pendingOffsets,
    });
  }
  return {
    loading: status.loading,
    pendingRecords: status.pendingRecords,
    topics: image.topics().map((topic) => ({ name: topic.name, id: topic.id, partitions: topic.partitions })),
    groups,
    timers: [...timers.armed().keys()].sort(),
  };
}
