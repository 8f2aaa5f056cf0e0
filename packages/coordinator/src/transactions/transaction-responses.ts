import type {
  AddOffsetsToTxnRequest,
  AddOffsetsToTxnResponse,
  AddPartitionsToTxnRequest,
  AddPartitionsToTxnResponse,
  EndTxnRequest,
  EndTxnResponse,
  InitProducerIdRequest,
  InitProducerIdResponse,
} from "@kcsim/protocol";
import { NO_PRODUCER_EPOCH, NO_PRODUCER_ID } from "./transaction-metadata.js";

/** Builders of the transaction coordinator's answers. */

export function initProducerIdResponse(
  request: InitProducerIdRequest,
  errorCode: number,
  producerId: number = NO_PRODUCER_ID,
  producerEpoch: number = NO_PRODUCER_EPOCH,
): InitProducerIdResponse {
  return { type: "InitProducerIdResponse", correlationId: request.correlationId, throttleTimeMs: 0, errorCode, producerId, producerEpoch };
}

/**
 * AddPartitionsToTxn v3: one error per partition; the top-level error (a
 * v4+ field, for batched requests) stays NONE, as Kafka answers v3.
 */
export function addPartitionsToTxnResponse(
  request: AddPartitionsToTxnRequest,
  errorFor: (topic: string, partition: number) => number,
): AddPartitionsToTxnResponse {
  return {
    type: "AddPartitionsToTxnResponse",
    correlationId: request.correlationId,
    throttleTimeMs: 0,
    errorCode: 0,
    results: request.topics.map((topic) => ({
      name: topic.name,
      results: topic.partitions.map((partition) => ({ partitionIndex: partition, partitionErrorCode: errorFor(topic.name, partition) })),
    })),
  };
}

export function addOffsetsToTxnResponse(request: AddOffsetsToTxnRequest, errorCode: number): AddOffsetsToTxnResponse {
  return { type: "AddOffsetsToTxnResponse", correlationId: request.correlationId, throttleTimeMs: 0, errorCode };
}

/**
 * EndTxn: from v5 (transaction version 2) a success carries the producer id
 * and epoch the client continues with; every other answer carries -1/-1.
 */
export function endTxnResponse(
  request: EndTxnRequest,
  errorCode: number,
  producerId: number = NO_PRODUCER_ID,
  producerEpoch: number = NO_PRODUCER_EPOCH,
): EndTxnResponse {
  return { type: "EndTxnResponse", correlationId: request.correlationId, throttleTimeMs: 0, errorCode, producerId, producerEpoch };
}
