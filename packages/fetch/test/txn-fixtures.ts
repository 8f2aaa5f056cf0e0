import {
  type FetchRequest,
  type InitProducerIdRequest,
  IsolationLevel,
  type ListOffsetsRequest,
  type RecordBatch,
  type WriteTxnMarkersRequest,
} from "@kcsim/protocol";
import { fetchRequest, listOffsetsRequest, nextCorrelationId, producerBatch } from "./data-path-fixtures.js";

/** Shared set-up of the idempotence and transaction tests (not a test file itself). */

export interface ProducerStamp {
  readonly producerId: number;
  readonly epoch: number;
  readonly sequence: number;
  readonly transactional?: boolean;
}

/** A producer's batch of `records` records (100 bytes each) stamped with a producer id, epoch and base sequence. */
export function stampedBatch(stamp: ProducerStamp, records = 1, valuePrefix = "v"): RecordBatch {
  return {
    ...producerBatch(100 * records, records, valuePrefix),
    producerId: stamp.producerId,
    producerEpoch: stamp.epoch,
    baseSequence: stamp.sequence,
    isTransactional: stamp.transactional ?? false,
  };
}

/** A coordinator's WriteTxnMarkers for one producer's transaction on `partitions` of "t" (of `transactionVersion`: v2 from 2). */
export function writeMarkers(
  producerId: number,
  producerEpoch: number,
  committed: boolean,
  partitions: readonly number[],
  coordinatorEpoch = 0,
  topic = "t",
  transactionVersion = 0,
): WriteTxnMarkersRequest {
  return {
    type: "WriteTxnMarkersRequest",
    correlationId: nextCorrelationId(),
    apiVersion: transactionVersion >= 2 ? 2 : 1,
    clientId: "txn-coordinator",
    markers: [
      {
        producerId,
        producerEpoch,
        transactionResult: committed,
        topics: [{ name: topic, partitionIndexes: [...partitions] }],
        coordinatorEpoch,
        transactionVersion,
      },
    ],
  };
}

/** A sessionless read_committed fetch. */
export function readCommittedFetch(...args: Parameters<typeof fetchRequest>): FetchRequest {
  return { ...fetchRequest(...args), isolationLevel: IsolationLevel.READ_COMMITTED };
}

export function readCommittedListOffsets(topic: string, partition: number, timestamp: number): ListOffsetsRequest {
  return { ...listOffsetsRequest(topic, partition, timestamp), isolationLevel: IsolationLevel.READ_COMMITTED };
}

export function initProducerIdRequest(transactionalId: string | null = null): InitProducerIdRequest {
  return {
    type: "InitProducerIdRequest",
    correlationId: nextCorrelationId(),
    apiVersion: 4,
    clientId: "client",
    transactionalId,
    transactionTimeoutMs: 60_000,
    producerId: -1,
    producerEpoch: -1,
  };
}
