import {
  ErrorCode,
  GROUP_METADATA_TOPIC_NAME,
  type Observation,
  partitionFor,
  type WriteTxnMarkersRequest,
  type WriteTxnMarkersResponse,
} from "@kcsim/protocol";
import { endTransactionMarkerRecord } from "../records/transaction-records.js";
import {
  groupCoordinatorMarkerObservation,
  offsetCommitObservation,
  transactionalOffsetObservation,
} from "../runtime/observation-builders.js";
import type { WriteOp } from "../runtime/write-op.js";
import type { PendingTransactionalOffset } from "./pending-transactional-offsets.js";

type TxnMarker = WriteTxnMarkersRequest["markers"][number];

/**
 * WriteTxnMarkers (API key 27) as the group coordinator serves it for its
 * `__consumer_offsets` partitions (KafkaApis' `handleWriteTxnMarkersRequest`
 * with the new group coordinator: `GroupCoordinatorService.completeTransaction`,
 * then `CoordinatorRuntime.scheduleTransactionCompletion`). Per partition:
 * - another topic, or a partition the topic does not have:
 *   UNKNOWN_TOPIC_OR_PARTITION (this actor hosts no data partitions);
 * - a partition placed on another coordinator, or this one still loading:
 *   `placementError` (NOT_LEADER_OR_FOLLOWER: KafkaApis turns the
 *   coordinator's NOT_COORDINATOR / COORDINATOR_LOAD_IN_PROGRESS into it,
 *   which the transaction coordinator retries);
 * - a marker from an older producer epoch than the log has seen:
 *   INVALID_PRODUCER_EPOCH; from an older transaction coordinator epoch:
 *   TRANSACTION_COORDINATOR_FENCED. A marker of transaction version 2
 *   (WriteTxnMarkers v2's `transactionVersion`, KIP-1228) must be newer than
 *   the producer's epoch on the partition, or equal with no transaction of
 *   the producer open there (KAFKA-19999); else INVALID_PRODUCER_EPOCH
 *   (Kafka's runtime appends the marker through the log, whose
 *   `ProducerAppendInfo` checks it: `TransactionalProducers.markerError`);
 * - else the marker record is written and replayed: the producer's pending
 *   offsets of the groups on that partition are materialised (COMMIT:
 *   gc.offset-commit with transactional: true, or gc.txn-offset superseded
 *   when a later plain commit of the partition wins) or dropped (ABORT:
 *   gc.txn-offset aborted).
 * Each partition is reported as gc.txn-marker. The answer goes out after
 * the marker records are flushed.
 */
export function writeTxnMarkers(
  op: WriteOp,
  request: WriteTxnMarkersRequest,
  placementError: (partition: number) => number,
): WriteTxnMarkersResponse {
  return {
    type: "WriteTxnMarkersResponse",
    correlationId: request.correlationId,
    markers: request.markers.map((marker) => ({
      producerId: marker.producerId,
      topics: marker.topics.map((topic) => ({
        name: topic.name,
        partitions: topic.partitionIndexes.map((partition) => {
          const errorCode = writeMarker(op, marker, topic.name, partition, placementError);
          if (topic.name === GROUP_METADATA_TOPIC_NAME) {
            op.observe(
              groupCoordinatorMarkerObservation({
                producerId: marker.producerId,
                producerEpoch: marker.producerEpoch,
                coordinatorEpoch: marker.coordinatorEpoch,
                committed: marker.transactionResult,
                partition,
                errorCode,
              }),
            );
          }
          return { partitionIndex: partition, errorCode };
        }),
      })),
    })),
  };
}

function writeMarker(
  op: WriteOp,
  marker: TxnMarker,
  topic: string,
  partition: number,
  placementError: (partition: number) => number,
): number {
  const numPartitions = op.state.offsetsTopicPartitions;
  if (topic !== GROUP_METADATA_TOPIC_NAME || !Number.isInteger(partition) || partition < 0 || partition >= numPartitions) {
    return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
  }
  const placement = placementError(partition);
  if (placement !== ErrorCode.NONE) return placement;
  const { producerId, producerEpoch, coordinatorEpoch, transactionResult: committed, transactionVersion } = marker;
  const producerError = op.state.producers.markerError(producerId, producerEpoch, coordinatorEpoch, partition, transactionVersion);
  if (producerError !== ErrorCode.NONE) return producerError;

  const onPartition = (groupId: string) => partitionFor(groupId, numPartitions) === partition;
  const pending = op.state.offsets.pending.peek(producerId, onPartition);
  op.append(endTransactionMarkerRecord({ partition, producerId, producerEpoch, coordinatorEpoch, committed }));
  for (const entry of pending) op.observe(resolutionObservation(op, entry, committed));
  return ErrorCode.NONE;
}

/** What became of a pending offset once its marker was replayed. */
function resolutionObservation(op: WriteOp, entry: PendingTransactionalOffset, committed: boolean): Observation {
  const { groupId, topic, partition, origin } = entry;
  const materialised = committed && op.state.offsets.recordOffsetOf(groupId, topic, partition) === entry.recordOffset;
  if (materialised) {
    // One observation per partition: the producer's offsets may come from TxnOffsetCommits of different members.
    return offsetCommitObservation({
      groupId,
      memberId: origin.memberId,
      epoch: origin.generationId,
      transactional: true,
      topics: [{ topic, partitions: [partition], offsets: [entry.offset.offset], errorCodes: [ErrorCode.NONE] }],
    });
  }
  return transactionalOffsetObservation({
    groupId,
    memberId: origin.memberId,
    epoch: origin.generationId,
    transactionalId: origin.transactionalId,
    producerId: origin.producerId,
    producerEpoch: origin.producerEpoch,
    topic,
    partition,
    offset: entry.offset.offset,
    outcome: committed ? "superseded" : "aborted",
    errorCode: ErrorCode.NONE,
  });
}
