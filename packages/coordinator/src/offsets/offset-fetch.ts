import { ErrorCode, type OffsetFetchRequest, type OffsetFetchResponse, type OffsetFetchResponsePartition } from "@kcsim/protocol";
import type { CoordinatorState } from "../runtime/coordinator-state.js";

type OffsetFetchRequestGroup = OffsetFetchRequest["groups"][number];
type OffsetFetchResponseGroup = OffsetFetchResponse["groups"][number];

/** Kafka's `OffsetFetchResponse.INVALID_OFFSET`. */
const INVALID_OFFSET = -1;

/**
 * OffsetFetch v8/v9 (spec 5; Kafka's `OffsetMetadataManager.fetchOffsets`),
 * groups batched. `groupError` gives the placement/loading error of a
 * group (0 when this coordinator serves it). A consumer group checks the
 * member id and epoch (v9): a null member id with epoch -1 is an admin
 * fetch; an unknown member is UNKNOWN_MEMBER_ID, another epoch
 * STALE_MEMBER_EPOCH. A missing group has no offsets (-1, no error). With
 * RequireStable, partitions with pending transactional offsets are
 * UNSTABLE_OFFSET_COMMIT. Null topics: every committed offset of the group.
 */
export function offsetFetch(
  state: CoordinatorState,
  request: OffsetFetchRequest,
  groupError: (groupId: string) => number,
): OffsetFetchResponse {
  return {
    type: "OffsetFetchResponse",
    correlationId: request.correlationId,
    throttleTimeMs: 0,
    groups: request.groups.map((group) => fetchGroupOffsets(state, group, request.requireStable, groupError(group.groupId))),
  };
}

function fetchGroupOffsets(
  state: CoordinatorState,
  request: OffsetFetchRequestGroup,
  requireStable: boolean,
  placementError: number,
): OffsetFetchResponseGroup {
  const { groupId } = request;
  if (placementError !== ErrorCode.NONE) return { groupId, topics: [], errorCode: placementError };
  const memberError = validateOffsetFetch(state, request);
  if (memberError !== ErrorCode.NONE) return { groupId, topics: [], errorCode: memberError };

  const partitionOf = (topic: string, partition: number): OffsetFetchResponsePartition => {
    if (requireStable && state.offsets.hasPendingTransactionalOffsets(groupId, topic, partition)) {
      return {
        partitionIndex: partition,
        committedOffset: INVALID_OFFSET,
        committedLeaderEpoch: -1,
        metadata: "",
        errorCode: ErrorCode.UNSTABLE_OFFSET_COMMIT,
      };
    }
    const committed = state.offsets.get(groupId, topic, partition);
    if (committed === undefined) {
      return {
        partitionIndex: partition,
        committedOffset: INVALID_OFFSET,
        committedLeaderEpoch: -1,
        metadata: "",
        errorCode: ErrorCode.NONE,
      };
    }
    return {
      partitionIndex: partition,
      committedOffset: committed.offset,
      committedLeaderEpoch: committed.leaderEpoch,
      metadata: committed.metadata,
      errorCode: ErrorCode.NONE,
    };
  };

  if (request.topics === null) {
    return {
      groupId,
      errorCode: ErrorCode.NONE,
      topics: state.offsets.offsetsOf(groupId).map(({ topic, partitions }) => ({
        name: topic,
        partitions: partitions.map(({ partition }) => partitionOf(topic, partition)),
      })),
    };
  }
  return {
    groupId,
    errorCode: ErrorCode.NONE,
    topics: request.topics.map((topic) => ({
      name: topic.name,
      partitions: topic.partitionIndexes.map((partition) => partitionOf(topic.name, partition)),
    })),
  };
}

/**
 * `ConsumerGroup.validateOffsetFetch` (classic groups check nothing but
 * DEAD: GROUP_ID_NOT_FOUND): a classic member of a consumer group with
 * another epoch is ILLEGAL_GENERATION, a consumer-protocol one STALE_MEMBER_EPOCH.
 */
function validateOffsetFetch(state: CoordinatorState, request: OffsetFetchRequestGroup): number {
  const group = state.groups.get(request.groupId);
  if (group === undefined) return ErrorCode.NONE;
  if (group.protocol === "classic") return group.isInState("DEAD") ? ErrorCode.GROUP_ID_NOT_FOUND : ErrorCode.NONE;
  if (request.memberId === null && request.memberEpoch < 0) return ErrorCode.NONE;
  const member = group.member(request.memberId ?? "");
  if (member === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
  if (member.memberEpoch !== request.memberEpoch) {
    return member.classicMemberMetadata !== null ? ErrorCode.ILLEGAL_GENERATION : ErrorCode.STALE_MEMBER_EPOCH;
  }
  return ErrorCode.NONE;
}
