import { ClassicGroup, CONSUMER_PROTOCOL_TYPE } from "../classic-group/classic-group.js";
import { ClassicGroupMember } from "../classic-group/classic-group-member.js";
import { reportClassicAssignment, rescheduleHeartbeat } from "../classic-group/classic-rebalance.js";
import { assignedPartitionsOf, encodeConsumerAssignment, toTopicPartitionList } from "../classic-group/embedded-consumer-protocol.js";
import type { ConsumerGroup } from "../consumer-group/consumer-group.js";
import type { ConsumerGroupMember } from "../consumer-group/consumer-group-member.js";
import { currentAssignments, groupMetadataRecord } from "../records/classic-group-records.js";
import { consumerGroupTombstones } from "../records/consumer-group-records.js";
import type { CoordinatorEnv } from "../runtime/coordinator-env.js";
import { memberRemovedObservation } from "../runtime/observation-builders.js";
import type { WriteOp } from "../runtime/write-op.js";
import { isDowngradeEnabled } from "./migration-policy.js";

/** Whether the classic members share a protocol (a classic group needs one to select). */
function shareAProtocol(members: readonly ConsumerGroupMember[]): boolean {
  const supporters = new Map<string, number>();
  for (const member of members) {
    for (const { name } of member.classicMemberMetadata?.supportedProtocols ?? []) supporters.set(name, (supporters.get(name) ?? 0) + 1);
  }
  return [...supporters.values()].some((count) => count === members.length);
}

function remainingMembers(group: ConsumerGroup, leaving: ReadonlySet<string>): ConsumerGroupMember[] {
  return [...group.members().values()].filter((member) => !leaving.has(member.memberId));
}

/**
 * `validateOnlineDowngradeWithFencedMembers` (spec 8): after these members
 * are fenced, at least one member remains, every remaining member uses the
 * classic protocol (and a fenced one used the consumer protocol), the
 * policy allows downgrades and the group fits group.max.size.
 */
export function canDowngradeAfterFencing(env: CoordinatorEnv, group: ConsumerGroup, fenced: ReadonlySet<string>): boolean {
  if (!group.allMembersUseClassicProtocolExcept(fenced)) return false;
  const remaining = remainingMembers(group, fenced);
  if (remaining.length === 0) return false;
  if (!isDowngradeEnabled(env.broker) || remaining.length > env.broker["group.max.size"]) return false;
  return shareAProtocol(remaining);
}

/**
 * `validateOnlineDowngradeWithReplacedMember`: a classic member takes over
 * the instance of the last consumer-protocol (static) member.
 */
export function canDowngradeAfterStaticReplacement(env: CoordinatorEnv, group: ConsumerGroup, replaced: ConsumerGroupMember): boolean {
  if (!group.allMembersUseClassicProtocolExcept(new Set([replaced.memberId]))) return false;
  if (!isDowngradeEnabled(env.broker) || group.numMembers > env.broker["group.max.size"]) return false;
  return true;
}

/**
 * `convertToClassicGroup` (spec 8, online downgrade): the consumer group's
 * tombstones, then a STABLE classic group at generation = group epoch with
 * every member but the leaving ones, the protocol they vote for, the
 * oldest member as leader, written as its GroupMetadata record; heartbeat
 * timers armed with each member's classic session timeout. The caller
 * starts the rebalance (always after members left; after a static
 * replacement only when the subscription changed, KAFKA-19546).
 *
 * Each member's classic assignment is its target assignment, as Kafka's
 * `ClassicGroup.fromConsumerGroup` serializes it: it may still name
 * partitions another member has to revoke first, and a member that later
 * collects it (a SyncGroup in the STABLE group, a static rejoin answered
 * with its stored assignment) gets them as they are. A static member that
 * replaced another has taken over its target already.
 */
export function convertToClassicGroup(op: WriteOp, env: CoordinatorEnv, group: ConsumerGroup, leaving: ReadonlySet<string>): ClassicGroup {
  const groupId = group.groupId;
  const image = op.state.image;
  const members = remainingMembers(group, leaving);
  // The targets, read before the tombstones below delete them from the group.
  const targets = new Map(members.map((member) => [member.memberId, group.targetOf(member.memberId)]));
  for (const member of members) op.observe(memberRemovedObservation(groupId, member, "group-converted"));
  for (const member of group.members().values()) env.timers.cancelAll(op.ctx, groupId, member.memberId);
  for (const record of consumerGroupTombstones(group)) op.append(record);

  const classic = new ClassicGroup(groupId, {
    state: "STABLE",
    generationId: group.groupEpoch,
    protocolType: CONSUMER_PROTOCOL_TYPE,
    protocolName: null,
    leaderId: null,
    currentStateTimestampMs: op.nowMs,
  });
  const converted = members.map((member) => {
    const classicMember = new ClassicGroupMember({
      memberId: member.memberId,
      instanceId: member.instanceId,
      clientId: member.clientId,
      clientHost: member.clientHost,
      rebalanceTimeoutMs: member.rebalanceTimeoutMs,
      sessionTimeoutMs: member.classicMemberMetadata?.sessionTimeoutMs ?? 0,
      protocolType: CONSUMER_PROTOCOL_TYPE,
      supportedProtocols: member.classicMemberMetadata?.supportedProtocols ?? [],
    });
    classicMember.lastReportedGeneration = member.memberEpoch;
    classic.add(classicMember, null);
    return { member, classicMember };
  });
  const protocolName = classic.selectProtocol();
  classic.setProtocolName(protocolName);
  for (const { member, classicMember } of converted) {
    classicMember.assignment = encodeConsumerAssignment(
      toTopicPartitionList(targets.get(member.memberId) ?? [], image),
      classicMember.metadata(protocolName),
    );
  }
  op.appendWithoutReplay(groupMetadataRecord(classic, currentAssignments(classic)));
  op.state.groups.put(classic);
  for (const { classicMember } of converted) {
    rescheduleHeartbeat(op, env, classic, classicMember);
    reportClassicAssignment(op, classic, classicMember, assignedPartitionsOf(classicMember.assignment));
  }
  op.ctx.log.info("converted the consumer group to a classic group", {
    groupId,
    generation: classic.generationId,
    members: converted.length,
  });
  return classic;
}
