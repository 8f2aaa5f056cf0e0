import {
  ErrorCode,
  type Observation,
  partitionFor,
  type TxnOffsetCommitRequest,
  type TxnOffsetCommitResponse,
  type VerificationGuard,
} from "@kcsim/protocol";
import type { MetadataImage } from "../metadata/metadata-image.js";
import type { TransactionalOffsetCommitOrigin } from "../records/coordinator-record.js";
import { transactionalOffsetCommitRecord } from "../records/transaction-records.js";
import type { CoordinatorEnv } from "../runtime/coordinator-env.js";
import { CoordinatorError } from "../runtime/coordinator-error.js";
import { transactionalOffsetObservation } from "../runtime/observation-builders.js";
import type { WriteOp } from "../runtime/write-op.js";
import { validateOffsetCommit } from "./offset-commit-validation.js";

type TxnOffsetCommitPartition = TxnOffsetCommitRequest["topics"][number]["partitions"][number];

/**
 * What the write checks of KIP-890's verification: nothing when it is off
 * (transaction.partition.verification.enable, or no transaction
 * coordinator to ask); else the guard the request's verification (or, for
 * v5, its add to the transaction) got (SENTINEL_GUARD when its producer's
 * transaction was already ongoing).
 */
export interface TransactionVerification {
  readonly enabled: boolean;
  readonly guard: VerificationGuard;
}

/** What a TxnOffsetCommit gives: the answer, and whether it goes out at once (nothing was written). */
export interface TxnOffsetCommitOutcome {
  readonly response: TxnOffsetCommitResponse;
  readonly immediate: boolean;
}

/**
 * TxnOffsetCommit (API key 28; spec 7; KafkaApis' partition check, then
 * Kafka's `OffsetMetadataManager.commitTransactionalOffset`): partitions
 * missing from the metadata get UNKNOWN_TOPIC_OR_PARTITION; the KIP-447
 * committer check (`validateOffsetCommit`, transactional) and then the
 * producer epoch check of the log (an epoch older than the log has seen:
 * INVALID_PRODUCER_EPOCH), then, if anything is to be written, the log's
 * verification check (KIP-890: the producer's transaction is ongoing on
 * the group's `__consumer_offsets` partition, or the request's verification
 * is still the producer's; else INVALID_TXN_STATE, as when a marker came
 * between the verification and the write) fail the request: they throw CoordinatorError,
 * answered with `txnOffsetCommitErrorResponse` (and any simple group the
 * check created is rolled back). Metadata over offset.metadata.max.bytes
 * fails its partition; the rest are written as OffsetCommit records of the
 * producer's transactional batch: pending until its transaction marker.
 * Every partition is reported as gc.txn-offset (pending or rejected).
 */
export function txnOffsetCommit(
  op: WriteOp,
  env: CoordinatorEnv,
  request: TxnOffsetCommitRequest,
  verification: TransactionVerification,
): TxnOffsetCommitOutcome {
  const image = op.state.image;
  if (!hasKnownPartition(image, request)) {
    const response = txnOffsetCommitErrorResponse(request, image, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    for (const observation of txnOffsetCommitObservations(request, response)) op.observe(observation);
    return { response, immediate: true };
  }
  validateOffsetCommit(op, {
    groupId: request.groupId,
    memberId: request.memberId,
    groupInstanceId: request.groupInstanceId,
    generationIdOrMemberEpoch: request.generationId,
    apiVersion: request.apiVersion,
    transactional: true,
  });
  if (op.state.producers.writeError(request.producerId, request.producerEpoch) !== ErrorCode.NONE) {
    throw new CoordinatorError(
      ErrorCode.INVALID_PRODUCER_EPOCH,
      `Producer ${request.producerId} at epoch ${request.producerEpoch} is older than its epoch ${op.state.producers.epochOf(request.producerId)}.`,
    );
  }

  const maxMetadata = env.broker["offset.metadata.max.bytes"];
  // A partition's own refusal (NONE: its offset is written).
  const refusalOf = (topic: string, partition: TxnOffsetCommitPartition): number => {
    if (!isKnownPartition(image, topic, partition.partitionIndex)) return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
    if (partition.committedMetadata !== null && partition.committedMetadata.length > maxMetadata)
      return ErrorCode.OFFSET_METADATA_TOO_LARGE;
    return ErrorCode.NONE;
  };
  const writes = request.topics.some((topic) => topic.partitions.some((partition) => refusalOf(topic.name, partition) === ErrorCode.NONE));
  const offsetsPartition = partitionFor(request.groupId, op.state.offsetsTopicPartitions);
  if (writes && verification.enabled && !op.state.producers.isVerified(offsetsPartition, request.producerId, verification.guard)) {
    throw new CoordinatorError(ErrorCode.INVALID_TXN_STATE, "Record was not part of an ongoing transaction");
  }

  const origin: TransactionalOffsetCommitOrigin = {
    producerId: request.producerId,
    producerEpoch: request.producerEpoch,
    transactionalId: request.transactionalId,
    memberId: request.memberId,
    generationId: request.generationId,
  };
  const response = txnOffsetCommitResponse(request, (topic, partition) => {
    const refusal = refusalOf(topic, partition);
    if (refusal !== ErrorCode.NONE) return refusal;
    op.append(
      transactionalOffsetCommitRecord(
        request.groupId,
        topic,
        partition.partitionIndex,
        {
          offset: partition.committedOffset,
          leaderEpoch: partition.committedLeaderEpoch,
          metadata: partition.committedMetadata ?? "",
          commitTimestampMs: op.nowMs,
          expireTimestampMs: -1,
        },
        origin,
      ),
    );
    return ErrorCode.NONE;
  });
  for (const observation of txnOffsetCommitObservations(request, response)) op.observe(observation);
  return { response, immediate: op.records.length === 0 };
}

/** The same error for every partition the metadata knows (NOT_COORDINATOR, ILLEGAL_GENERATION, ...), UNKNOWN_TOPIC_OR_PARTITION for the others. */
export function txnOffsetCommitErrorResponse(
  request: TxnOffsetCommitRequest,
  image: MetadataImage,
  errorCode: number,
): TxnOffsetCommitResponse {
  return txnOffsetCommitResponse(request, (topic, partition) =>
    isKnownPartition(image, topic, partition.partitionIndex) ? errorCode : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
  );
}

/** One gc.txn-offset per partition of the request: pending when accepted, else rejected with its error. */
export function txnOffsetCommitObservations(request: TxnOffsetCommitRequest, response: TxnOffsetCommitResponse): Observation[] {
  const observations: Observation[] = [];
  request.topics.forEach((topic, t) => {
    topic.partitions.forEach((partition, p) => {
      const errorCode = response.topics[t]?.partitions[p]?.errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR;
      observations.push(
        transactionalOffsetObservation({
          groupId: request.groupId,
          memberId: request.memberId,
          epoch: request.generationId,
          transactionalId: request.transactionalId,
          producerId: request.producerId,
          producerEpoch: request.producerEpoch,
          topic: topic.name,
          partition: partition.partitionIndex,
          offset: partition.committedOffset,
          outcome: errorCode === ErrorCode.NONE ? "pending" : "rejected",
          errorCode,
        }),
      );
    });
  });
  return observations;
}

/** Whether any partition of the request exists (KafkaApis answers a request without one itself, before the coordinator sees it). */
export function hasKnownPartition(image: MetadataImage, request: TxnOffsetCommitRequest): boolean {
  return request.topics.some((topic) =>
    topic.partitions.some((partition) => isKnownPartition(image, topic.name, partition.partitionIndex)),
  );
}

/** KafkaApis' check: the partition exists in the metadata. */
function isKnownPartition(image: MetadataImage, topic: string, partition: number): boolean {
  const known = image.topic(topic);
  return known !== undefined && partition >= 0 && partition < known.partitions;
}

function txnOffsetCommitResponse(
  request: TxnOffsetCommitRequest,
  errorFor: (topic: string, partition: TxnOffsetCommitPartition) => number,
): TxnOffsetCommitResponse {
  return {
    type: "TxnOffsetCommitResponse",
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
