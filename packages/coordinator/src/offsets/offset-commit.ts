import { ErrorCode, type Observation, type OffsetCommitRequest, type OffsetCommitResponse } from "@kcsim/protocol";
import type { CommittedTopicOffsets } from "../observations.js";
import { offsetCommitRecord } from "../records/offset-commit-records.js";
import type { CoordinatorEnv } from "../runtime/coordinator-env.js";
import { CoordinatorError } from "../runtime/coordinator-error.js";
import { offsetCommitObservation } from "../runtime/observation-builders.js";
import type { WriteOp } from "../runtime/write-op.js";
import { validateOffsetCommit } from "./offset-commit-validation.js";

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
 * partition is reported, with its answer, in the request's gc.offset-commit.
 */
export function offsetCommit(op: WriteOp, env: CoordinatorEnv, request: OffsetCommitRequest): OffsetCommitOutcome {
  const image = op.state.image;
  const hasKnownTopic = request.topics.some((topic) => image.topic(topic.name) !== undefined);
  let groupError = ErrorCode.NONE as number;
  if (hasKnownTopic) {
    try {
      validateOffsetCommit(
        op,
        {
          groupId: request.groupId,
          memberId: request.memberId,
          groupInstanceId: request.groupInstanceId,
          generationIdOrMemberEpoch: request.generationIdOrMemberEpoch,
          apiVersion: request.apiVersion,
          transactional: false,
        },
        env.bugs,
      );
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

/** The request's gc.offset-commit: every partition, with its answer (none for a request without partitions). */
export function offsetCommitObservations(request: OffsetCommitRequest, response: OffsetCommitResponse): Observation[] {
  const topics: CommittedTopicOffsets[] = [];
  request.topics.forEach((topic, t) => {
    if (topic.partitions.length === 0) return;
    const answered = response.topics[t]?.partitions;
    topics.push({
      topic: topic.name,
      partitions: topic.partitions.map((partition) => partition.partitionIndex),
      offsets: topic.partitions.map((partition) => partition.committedOffset),
      errorCodes: topic.partitions.map((_, p) => answered?.[p]?.errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR),
    });
  });
  if (topics.length === 0) return [];
  return [
    offsetCommitObservation({
      groupId: request.groupId,
      memberId: request.memberId,
      epoch: request.generationIdOrMemberEpoch,
      transactional: false,
      topics,
    }),
  ];
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
