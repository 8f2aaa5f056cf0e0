import { partitionFor } from "@kcsim/protocol";
import { classicGroupFromRecord } from "../classic-group/classic-group-load.js";
import type { ConsumerGroup } from "../consumer-group/consumer-group.js";
import {
  LEAVE_GROUP_MEMBER_EPOCH,
  newConsumerGroupMember,
  withAssignmentRemoved,
  withCurrentAssignment,
  withMemberMetadata,
} from "../consumer-group/consumer-group-member.js";
import { NO_SUBSCRIPTION_METADATA, subscriptionMetadataOf } from "../consumer-group/subscription-metadata.js";
import { IllegalStateError } from "../runtime/coordinator-error.js";
import type { CoordinatorState } from "../runtime/coordinator-state.js";
import { type EndTransactionMarkerRecord, groupIdOf, RecordType, type StoredRecord } from "./coordinator-record.js";

/**
 * Applies one record to the coordinator's state (Kafka's
 * `GroupCoordinatorShard.replay`). The same function serves the live path
 * (every record is replayed the moment it is written) and the load after a
 * restart, so both build identical state. Invariants of spec 1.8:
 * - any value record creates its consumer group if absent (replacing an
 *   offsets-only simple classic group);
 * - a CurrentMemberAssignment tombstone keeps the member at epoch -1 with
 *   nothing assigned; a MemberMetadata tombstone then removes it, and needs
 *   epoch -1 and no target (hence the order Current -> Target -> Member);
 * - a TargetAssignmentMetadata tombstone needs no member targets left
 *   (assignment epoch -> -1); a group tombstone needs no members, no
 *   targets and assignment epoch -1;
 * - a GroupMetadata record replaces the group with the classic group it
 *   describes (STABLE with its members, or EMPTY); its tombstone removes
 *   the group. On the live path only the tombstone is replayed: classic
 *   groups are kept in memory (WriteOp.appendWithoutReplay).
 * - an OffsetCommit record of a transactional batch (TxnOffsetCommit) is
 *   pending under its producer id; a transaction marker moves the
 *   producer's pending offsets of the groups on its `__consumer_offsets`
 *   partition to the committed ones (COMMIT, unless a more recent record
 *   committed the partition) or drops them (ABORT); an offset tombstone
 *   drops pending offsets of the partition too.
 * `recordOffset` is the record's position in the log.
 * A broken invariant throws IllegalStateError.
 */
export function replayRecord(state: CoordinatorState, record: StoredRecord, recordOffset: number): void {
  switch (record.type) {
    case "kcsim.TopicImage":
      state.image.apply(record.topic);
      return;
    case "EndTransactionMarker":
      state.producers.onMarker(record.producerId, record.producerEpoch, record.coordinatorEpoch, record.partition);
      replayEndTransactionMarker(state, record, (groupId) => partitionFor(groupId, state.offsetsTopicPartitions) === record.partition);
      return;
    case RecordType.OffsetCommit: {
      const { group, topic, partition } = record.key;
      if (record.value === null) {
        state.offsets.remove(group, topic, partition);
        state.offsets.pending.removePartition(group, topic, partition);
        return;
      }
      if (state.groups.get(group) === undefined) state.groups.createSimpleClassicGroup(group);
      const offset = {
        offset: record.value.offset,
        leaderEpoch: record.value.leaderEpoch,
        metadata: record.value.metadata,
        commitTimestampMs: record.value.commitTimestamp,
        expireTimestampMs: record.value.expireTimestamp,
      };
      if (record.transaction === undefined) {
        state.offsets.put(group, topic, partition, offset, recordOffset);
        return;
      }
      // A TxnOffsetCommit: pending under its producer until the transaction's marker.
      state.producers.onWrite(
        record.transaction.producerId,
        record.transaction.producerEpoch,
        partitionFor(group, state.offsetsTopicPartitions),
      );
      state.offsets.pending.add(record.transaction.producerId, {
        groupId: group,
        topic,
        partition,
        offset,
        recordOffset,
        origin: record.transaction,
      });
      return;
    }
    case RecordType.GroupMetadata: {
      if (record.value === null) state.groups.delete(record.key.group);
      else state.groups.put(classicGroupFromRecord(record.key.group, record.value));
      return;
    }
    case RecordType.ConsumerGroupMetadata: {
      const group = consumerGroupOf(state, record.key.groupId, record.value !== null);
      if (record.value !== null) {
        group.setGroupEpoch(record.value.epoch);
        return;
      }
      if (group.numMembers > 0 || group.numTargets > 0 || group.assignmentEpoch !== -1) {
        throw new IllegalStateError(
          `Received a tombstone record to delete group ${group.groupId} but the group still has ${group.numMembers} members, ${group.numTargets} targets and assignment epoch ${group.assignmentEpoch}.`,
        );
      }
      state.groups.delete(group.groupId);
      return;
    }
    case RecordType.ConsumerGroupPartitionMetadata: {
      const group = consumerGroupOf(state, record.key.groupId, record.value !== null);
      group.setSubscriptionMetadata(record.value === null ? NO_SUBSCRIPTION_METADATA : subscriptionMetadataOf(record.value));
      return;
    }
    case RecordType.ConsumerGroupMemberMetadata: {
      const { memberId } = record.key;
      const group = consumerGroupOf(state, record.key.groupId, record.value !== null);
      if (record.value !== null) {
        group.updateMember(withMemberMetadata(group.member(memberId) ?? newConsumerGroupMember(memberId), record.value));
        return;
      }
      const member = group.member(memberId);
      if (member === undefined) throw new IllegalStateError(`Received a tombstone record to delete unknown member ${memberId}.`);
      if (member.memberEpoch !== LEAVE_GROUP_MEMBER_EPOCH) {
        throw new IllegalStateError(
          `Received a tombstone record to delete member ${memberId} but did not receive ConsumerGroupCurrentMemberAssignmentValue tombstone.`,
        );
      }
      if (group.hasTarget(memberId)) {
        throw new IllegalStateError(
          `Received a tombstone record to delete member ${memberId} but did not receive ConsumerGroupTargetAssignmentMemberValue tombstone.`,
        );
      }
      group.removeMember(memberId);
      return;
    }
    case RecordType.ConsumerGroupTargetAssignmentMetadata: {
      const group = consumerGroupOf(state, record.key.groupId, record.value !== null);
      if (record.value !== null) {
        group.setAssignmentEpoch(record.value.assignmentEpoch);
        return;
      }
      if (group.numTargets > 0) {
        throw new IllegalStateError(
          `Received a tombstone record to delete the target assignment of group ${group.groupId} but it still has ${group.numTargets} member targets.`,
        );
      }
      group.setAssignmentEpoch(-1);
      return;
    }
    case RecordType.ConsumerGroupTargetAssignmentMember: {
      const group = consumerGroupOf(state, record.key.groupId, record.value !== null);
      if (record.value !== null) group.setTarget(record.key.memberId, record.value.topicPartitions);
      else group.removeTarget(record.key.memberId);
      return;
    }
    case RecordType.ConsumerGroupCurrentMemberAssignment: {
      const { memberId } = record.key;
      const group = consumerGroupOf(state, record.key.groupId, record.value !== null);
      if (record.value !== null) {
        group.updateMember(withCurrentAssignment(group.member(memberId) ?? newConsumerGroupMember(memberId), record.value));
        return;
      }
      const member = group.member(memberId);
      if (member === undefined)
        throw new IllegalStateError(`Received a tombstone record for the assignment of unknown member ${memberId}.`);
      group.updateMember(withAssignmentRemoved(member));
      return;
    }
  }
}

/**
 * Replays one record for a single group only (a group rebuilt after a
 * failed operation): the group's own records, and the part of each
 * transaction marker that concerns the group's pending offsets.
 */
export function replayRecordForGroup(state: CoordinatorState, record: StoredRecord, recordOffset: number, groupId: string): void {
  if (record.type === "EndTransactionMarker") {
    if (partitionFor(groupId, state.offsetsTopicPartitions) === record.partition) {
      replayEndTransactionMarker(state, record, (group) => group === groupId);
    }
    return;
  }
  if (groupIdOf(record) === groupId) replayRecord(state, record, recordOffset);
}

/**
 * Kafka's `OffsetMetadataManager.replayEndTransactionMarker`, for the
 * groups `include` accepts: COMMIT moves the producer's pending offsets to
 * the committed ones, except where a more recent record already committed
 * the partition; ABORT drops them.
 */
function replayEndTransactionMarker(
  state: CoordinatorState,
  marker: EndTransactionMarkerRecord,
  include: (groupId: string) => boolean,
): void {
  const pending = state.offsets.pending.take(marker.producerId, include);
  if (!marker.committed) return;
  for (const { groupId, topic, partition, offset, recordOffset } of pending) {
    const existing = state.offsets.recordOffsetOf(groupId, topic, partition);
    if (existing === undefined || recordOffset > existing) state.offsets.put(groupId, topic, partition, offset, recordOffset);
  }
}

/** The record's consumer group; created for a value record when absent (or only a simple classic group). */
function consumerGroupOf(state: CoordinatorState, groupId: string, createIfAbsent: boolean): ConsumerGroup {
  const group = state.groups.get(groupId);
  if (group?.protocol === "consumer") return group;
  if (createIfAbsent && (group === undefined || group.isSimpleGroup())) return state.groups.createConsumerGroup(groupId);
  throw new IllegalStateError(
    group === undefined ? `Consumer group ${groupId} not found.` : `Group ${groupId} is not a consumer group (it is ${group.protocol}).`,
  );
}
