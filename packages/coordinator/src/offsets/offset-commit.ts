import { ErrorCode, type Observation, type OffsetCommitRequest, type OffsetCommitResponse } from "@kcsim/protocol";
import type { ClassicGroup } from "../classic-group/classic-group.js";
import type { ConsumerGroup } from "../consumer-group/consumer-group.js";
import { offsetCommitRecord } from "../records/offset-commit-records.js";
import type { CoordinatorEnv } from "../runtime/coordinator-env.js";
import { CoordinatorError } from "../runtime/coordinator-error.js";
import { offsetCommitObservation } from "../runtime/observation-builders.js";
import type { WriteOp } from "../runtime/write-op.js";

/** OffsetCommit v9: the first version for consumer-protocol members, and the one returning GROUP_ID_NOT_FOUND. */
const MODERN_OFFSET_COMMIT_VERSION = 9;

/** What an OffsetCommit gives: the answer, and whether it goes out at once (a failed request). */
export interface OffsetCommitOutcome {
  readonly response: OffsetCommitResponse;
  readonly immediate: boolean;
}

/**
 * OffsetCommit (spec 5; KafkaApis' topic check, then Kafka's
 * `OffsetMetadataManager.commitOffset`): topics missing from the metadata
 * get UNKNOWN_TOPIC_OR_PARTITION; the group check fails every remaining
 * partition with one error; metadata over offset.metadata.max.bytes fails
 * its partition; the rest are written as OffsetCommit records. Every
 * partition is reported as gc.offset-commit.
 */
export function offsetCommit(op: WriteOp, env: CoordinatorEnv, request: OffsetCommitRequest): OffsetCommitOutcome {
  const image = op.state.image;
  const hasKnownTopic = request.topics.some((topic) => image.topic(topic.name) !== undefined);
  let groupError = ErrorCode.NONE as number;
  if (hasKnownTopic) {
    try {
      validateOffsetCommit(op, request);
    } catch (error) {
      if (!(error instanceof CoordinatorError)) throw error;
      groupError = error.errorCode;
    }
  }

  const maxMetadata = env.broker["offset.metadata.max.bytes"];
  const response = offsetCommitResponse(request, (topic, partition) => {
    if (image.topic(topic) === undefined) return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
    if (groupError !== ErrorCode.NONE) return groupError;
    if (partition.committedMetadata !== null && partition.committedMetadata.length > maxMetadata)
      return ErrorCode.OFFSET_METADATA_TOO_LARGE;
    op.append(
      offsetCommitRecord(request.groupId, topic, partition.partitionIndex, {
        offset: partition.committedOffset,
        leaderEpoch: partition.committedLeaderEpoch,
        metadata: partition.committedMetadata ?? "",
        commitTimestampMs: op.nowMs,
        expireTimestampMs: -1,
      }),
    );
    return ErrorCode.NONE;
  });
  for (const observation of offsetCommitObservations(request, response)) op.observe(observation);
  return { response, immediate: !hasKnownTopic || groupError !== ErrorCode.NONE };
}

/** The same error for every partition (NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS, ...). */
export function offsetCommitErrorResponse(request: OffsetCommitRequest, errorCode: number): OffsetCommitResponse {
  return offsetCommitResponse(request, () => errorCode);
}

/** One gc.offset-commit per partition of the request, with its answer. */
export function offsetCommitObservations(request: OffsetCommitRequest, response: OffsetCommitResponse): Observation[] {
  const observations: Observation[] = [];
  request.topics.forEach((topic, t) => {
    topic.partitions.forEach((partition, p) => {
      observations.push(
        offsetCommitObservation({
          groupId: request.groupId,
          memberId: request.memberId,
          epoch: request.generationIdOrMemberEpoch,
          topic: topic.name,
          partition: partition.partitionIndex,
          offset: partition.committedOffset,
          errorCode: response.topics[t]?.partitions[p]?.errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR,
          transactional: false,
        }),
      );
    });
  });
  return observations;
}

function offsetCommitResponse(
  request: OffsetCommitRequest,
  errorFor: (topic: string, partition: OffsetCommitRequest["topics"][number]["partitions"][number]) => number,
): OffsetCommitResponse {
  return {
    type: "OffsetCommitResponse",
    correlationId: request.correlationId,
    throttleTimeMs: 0,
    topics: request.topics.map((topic) => ({
      name: topic.name,
      partitions: topic.partitions.map((partition) => ({
        partitionIndex: partition.partitionIndex,
        errorCode: errorFor(topic.name, partition),
      })),
    })),
  };
}

/**
 * `OffsetMetadataManager.validateOffsetCommit`: a missing group with a
 * negative generation becomes a simple (offsets-only) classic group;
 * otherwise GROUP_ID_NOT_FOUND (v9+; ILLEGAL_GENERATION before). Existing
 * groups check the committer (`ConsumerGroup`/`ClassicGroup.validateOffsetCommit`).
 */
function validateOffsetCommit(op: WriteOp, request: OffsetCommitRequest): void {
  const { groupId, generationIdOrMemberEpoch: epoch } = request;
  const group = op.state.groups.get(groupId);
  if (group === undefined) {
    if (epoch < 0) {
      op.touch(groupId);
      op.state.groups.createSimpleClassicGroup(groupId);
      return;
    }
    if (request.apiVersion >= MODERN_OFFSET_COMMIT_VERSION)
      throw new CoordinatorError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} not found.`);
    throw new CoordinatorError(ErrorCode.ILLEGAL_GENERATION, `Group ${groupId} not found.`);
  }
  if (group.protocol === "consumer") validateConsumerGroupOffsetCommit(group, request);
  else validateClassicGroupOffsetCommit(group, request);
}

/**
 * `ClassicGroup.validateOffsetCommit` (spec 5): DEAD:
 * COORDINATOR_NOT_AVAILABLE; a negative generation on an EMPTY group (admin,
 * or a consumer outside group management): accepted; a generation, member
 * id or instance id: the member check (UNKNOWN_MEMBER_ID,
 * FENCED_INSTANCE_ID) and the exact generation (ILLEGAL_GENERATION); none
 * of them on a non-empty group: UNKNOWN_MEMBER_ID; COMPLETING_REBALANCE:
 * REBALANCE_IN_PROGRESS (the committer knows the new generation but has
 * no assignment yet).
 */
function validateClassicGroupOffsetCommit(group: ClassicGroup, request: OffsetCommitRequest): void {
  const { generationIdOrMemberEpoch: generationId, memberId, groupInstanceId } = request;
  if (group.isInState("DEAD")) throw new CoordinatorError(ErrorCode.COORDINATOR_NOT_AVAILABLE, `Group ${group.groupId} is dead.`);
  if (generationId < 0 && group.isInState("EMPTY")) return;
  if (generationId >= 0 || memberId !== "" || groupInstanceId !== null) {
    const memberError = group.validateMember(memberId, groupInstanceId);
    if (memberError !== ErrorCode.NONE)
      throw new CoordinatorError(memberError, `Member ${memberId} cannot commit offsets for group ${group.groupId}.`);
    if (generationId !== group.generationId) {
      throw new CoordinatorError(
        ErrorCode.ILLEGAL_GENERATION,
        `The generation id ${generationId} does not match the group's generation ${group.generationId}.`,
      );
    }
  } else if (!group.isInState("EMPTY")) {
    throw new CoordinatorError(
      ErrorCode.UNKNOWN_MEMBER_ID,
      `Commits without a member are accepted only while group ${group.groupId} is empty.`,
    );
  }
  if (group.isInState("COMPLETING_REBALANCE")) {
    throw new CoordinatorError(ErrorCode.REBALANCE_IN_PROGRESS, `Group ${group.groupId} is completing a rebalance.`);
  }
}

/**
 * `ConsumerGroup.validateOffsetCommit`: the member must exist and commit
 * at exactly its epoch: STALE_MEMBER_EPOCH, or ILLEGAL_GENERATION for a
 * classic member (whose generation is its epoch; it may use any version).
 */
function validateConsumerGroupOffsetCommit(group: ConsumerGroup, request: OffsetCommitRequest): void {
  const epoch = request.generationIdOrMemberEpoch;
  // Admin or a consumer without group management: allowed while the group is empty.
  if (epoch < 0 && group.numMembers === 0) return;
  const member = group.member(request.memberId);
  if (member === undefined) {
    throw new CoordinatorError(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${request.memberId} is not a member of group ${group.groupId}.`);
  }
  const classic = member.classicMemberMetadata !== null;
  if (!classic && request.apiVersion < MODERN_OFFSET_COMMIT_VERSION) {
    throw new CoordinatorError(
      ErrorCode.UNSUPPORTED_VERSION,
      "OffsetCommit version 9 or above must be used by members using the modern group protocol",
    );
  }
  if (epoch !== member.memberEpoch) {
    throw new CoordinatorError(
      classic ? ErrorCode.ILLEGAL_GENERATION : ErrorCode.STALE_MEMBER_EPOCH,
      `The received ${classic ? "generation id" : "member epoch"} ${epoch} does not match the expected member epoch ${member.memberEpoch}.`,
    );
  }
}
