import type { Static } from "@sinclair/typebox";
import { OffsetCommitRequestPartition, PartitionErrors } from "./offsets.js";
import { Bool, Int, List, Nullable, request, response, Str, Struct } from "./schema.js";

/**
 * The transaction RPCs (KIP-98, KIP-447; spec 7): InitProducerId (22),
 * AddPartitionsToTxn (24; its v4 broker form too), AddOffsetsToTxn (25), EndTxn (26),
 * WriteTxnMarkers (27, coordinator to partition leaders), TxnOffsetCommit (28).
 */
export const InitProducerIdRequest = request("InitProducerIdRequest", {
  transactionalId: Nullable(Str),
  transactionTimeoutMs: Int,
  producerId: Int,
  producerEpoch: Int,
});
export type InitProducerIdRequest = Static<typeof InitProducerIdRequest>;

export const InitProducerIdResponse = response("InitProducerIdResponse", {
  throttleTimeMs: Int,
  errorCode: Int,
  producerId: Int,
  producerEpoch: Int,
});
export type InitProducerIdResponse = Static<typeof InitProducerIdResponse>;

export const AddPartitionsToTxnRequest = request("AddPartitionsToTxnRequest", {
  transactionalId: Str,
  producerId: Int,
  producerEpoch: Int,
  topics: List(Struct({ name: Str, partitions: List(Int) })),
});
export type AddPartitionsToTxnRequest = Static<typeof AddPartitionsToTxnRequest>;

export const AddPartitionsToTxnResponse = response("AddPartitionsToTxnResponse", {
  throttleTimeMs: Int,
  errorCode: Int,
  results: List(Struct({ name: Str, results: List(Struct({ partitionIndex: Int, partitionErrorCode: Int })) })),
});
export type AddPartitionsToTxnResponse = Static<typeof AddPartitionsToTxnResponse>;

/**
 * AddPartitionsToTxn v4 and later, as brokers send it to a transaction
 * coordinator (Kafka's `AddPartitionsToTxnRequest.Builder.forBroker`, KIP-890
 * part 1): a batch of transactions, each either added to (`verifyOnly`
 * false) or only checked (`verifyOnly` true: is each partition already in
 * the transaction?). kcsim's clients send the v3 form, AddPartitionsToTxnRequest.
 */
export const AddPartitionsToTxnBrokerRequest = request("AddPartitionsToTxnBrokerRequest", {
  transactions: List(
    Struct({
      transactionalId: Str,
      producerId: Int,
      producerEpoch: Int,
      verifyOnly: Bool,
      topics: List(Struct({ name: Str, partitions: List(Int) })),
    }),
  ),
});
export type AddPartitionsToTxnBrokerRequest = Static<typeof AddPartitionsToTxnBrokerRequest>;

/** The answer to AddPartitionsToTxnBrokerRequest: a top-level error, then each transaction's partitions' errors. */
export const AddPartitionsToTxnBrokerResponse = response("AddPartitionsToTxnBrokerResponse", {
  throttleTimeMs: Int,
  errorCode: Int,
  resultsByTransaction: List(
    Struct({
      transactionalId: Str,
      topicResults: List(Struct({ name: Str, resultsByPartition: List(Struct({ partitionIndex: Int, partitionErrorCode: Int })) })),
    }),
  ),
});
export type AddPartitionsToTxnBrokerResponse = Static<typeof AddPartitionsToTxnBrokerResponse>;

export const AddOffsetsToTxnRequest = request("AddOffsetsToTxnRequest", {
  transactionalId: Str,
  producerId: Int,
  producerEpoch: Int,
  groupId: Str,
});
export type AddOffsetsToTxnRequest = Static<typeof AddOffsetsToTxnRequest>;

export const AddOffsetsToTxnResponse = response("AddOffsetsToTxnResponse", {
  throttleTimeMs: Int,
  errorCode: Int,
});
export type AddOffsetsToTxnResponse = Static<typeof AddOffsetsToTxnResponse>;

export const EndTxnRequest = request("EndTxnRequest", {
  transactionalId: Str,
  producerId: Int,
  producerEpoch: Int,
  committed: Bool,
});
export type EndTxnRequest = Static<typeof EndTxnRequest>;

/**
 * EndTxn's answer. From v5 (KIP-890 part 2, transaction version 2) it
 * carries the producer id and epoch the coordinator bumped the producer to
 * when it ended the transaction; below v5 both are -1 (Kafka's defaults).
 */
export const EndTxnResponse = response("EndTxnResponse", {
  throttleTimeMs: Int,
  errorCode: Int,
  producerId: Int,
  producerEpoch: Int,
});
export type EndTxnResponse = Static<typeof EndTxnResponse>;

/** `TransactionResult`: the marker written by WriteTxnMarkers. */
export const TransactionResult = { ABORT: false, COMMIT: true } as const;

/**
 * The coordinator's markers to a partition leader. `transactionVersion` is
 * WriteTxnMarkers v2's field (KIP-1228, Kafka 4.2): the transaction version
 * the transaction ran under, by which a leader checks the marker's epoch
 * (strictly above the producer's for transaction version 2); 0 for
 * transactions before version 2 (v1's default).
 */
export const WriteTxnMarkersRequest = request("WriteTxnMarkersRequest", {
  markers: List(
    Struct({
      producerId: Int,
      producerEpoch: Int,
      transactionResult: Bool,
      topics: List(Struct({ name: Str, partitionIndexes: List(Int) })),
      coordinatorEpoch: Int,
      transactionVersion: Int,
    }),
  ),
});
export type WriteTxnMarkersRequest = Static<typeof WriteTxnMarkersRequest>;

export const WriteTxnMarkersResponse = response("WriteTxnMarkersResponse", {
  markers: List(Struct({ producerId: Int, topics: PartitionErrors })),
});
export type WriteTxnMarkersResponse = Static<typeof WriteTxnMarkersResponse>;

export const TxnOffsetCommitRequest = request("TxnOffsetCommitRequest", {
  transactionalId: Str,
  groupId: Str,
  producerId: Int,
  producerEpoch: Int,
  generationId: Int,
  memberId: Str,
  groupInstanceId: Nullable(Str),
  topics: List(Struct({ name: Str, partitions: List(OffsetCommitRequestPartition) })),
});
export type TxnOffsetCommitRequest = Static<typeof TxnOffsetCommitRequest>;

export const TxnOffsetCommitResponse = response("TxnOffsetCommitResponse", {
  throttleTimeMs: Int,
  topics: PartitionErrors,
});
export type TxnOffsetCommitResponse = Static<typeof TxnOffsetCommitResponse>;
