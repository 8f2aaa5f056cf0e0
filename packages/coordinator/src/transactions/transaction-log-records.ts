import type { TransactionVersion } from "@kcsim/protocol";
import { parseTpKey, tpKey } from "@kcsim/protocol";
import type { TransactionStateName } from "../observations.js";
import type { TopicImageRecord } from "../records/coordinator-record.js";
import type { TxnTransitMetadata } from "./transaction-metadata.js";
import { isTransactionStateName } from "./transaction-state.js";
import { transactionLogValueVersion } from "./transaction-version.js";

/** TransactionLogKey. */
export interface TransactionLogKey {
  readonly transactionalId: string;
}

/**
 * TransactionLogValue (transaction-coordinator/src/main/resources/common/message/TransactionLogValue.json,
 * Kafka's names; the status as its state name). `lastProducerEpoch` is not
 * in Kafka's value: kept so that a producer's retried InitProducerId
 * (KIP-360) still matches after a coordinator restart. Kafka 4.2's
 * `TransactionLog.valueToBytes` leaves the tagged NextProducerId at its
 * default (-1), so it is not kept either: a coordinator that loads a
 * transaction version 2 PrepareCommit/PrepareAbort whose epochs ran out
 * completes it under the old producer id.
 */
export interface TransactionLogValue {
  readonly producerId: number;
  readonly previousProducerId: number;
  readonly producerEpoch: number;
  readonly lastProducerEpoch: number;
  readonly transactionTimeoutMs: number;
  readonly transactionStatus: TransactionStateName;
  readonly transactionPartitions: readonly { readonly topic: string; readonly partitionIds: readonly number[] }[];
  readonly transactionLastUpdateTimestampMs: number;
  /** -1 when no transaction is open. */
  readonly transactionStartTimestampMs: number;
  /**
   * A tagged field (default 0) of value version 1: absent when 0, and
   * whenever the cluster's transaction.version is 0 (Kafka then writes
   * value version 0, which has no tagged fields). A load reads absent as 0.
   */
  readonly clientTransactionVersion?: TransactionVersion;
}

/** A record of `__transaction_state`: a transactional id's state, or its tombstone (the id expired). */
export interface TransactionLogRecord {
  readonly type: "TransactionLog";
  readonly key: TransactionLogKey;
  readonly value: TransactionLogValue | null;
}

/**
 * Not a Kafka record: a block of producer ids this coordinator took
 * (Kafka's controller hands out blocks through AllocateProducerIds and keeps
 * them in its own log; here each coordinator owns a disjoint sequence of
 * blocks and remembers the last one it took).
 */
export interface ProducerIdBlockRecord {
  readonly type: "kcsim.ProducerIdBlock";
  readonly firstProducerId: number;
  readonly size: number;
}

/**
 * Not a Kafka record: the coordinator epoch of a start (Kafka's leader epoch
 * of the `__transaction_state` partition, one more per election; here one
 * more per start of the actor).
 */
export interface CoordinatorEpochRecord {
  readonly type: "kcsim.TxnCoordinatorEpoch";
  readonly coordinatorEpoch: number;
}

/** Every record the transaction coordinator keeps in ctx.storage. */
export type TransactionCoordinatorRecord = TransactionLogRecord | ProducerIdBlockRecord | CoordinatorEpochRecord | TopicImageRecord;

/**
 * Kafka's `TransactionLog.valueToBytes`: a transit as the record value,
 * in the value version of the cluster's transaction.version `clusterVersion`.
 */
export function transactionLogRecord(
  transactionalId: string,
  transit: TxnTransitMetadata,
  clusterVersion: TransactionVersion,
): TransactionLogRecord {
  const keepsClientVersion = transactionLogValueVersion(clusterVersion) >= 1 && transit.clientTransactionVersion !== 0;
  const byTopic = new Map<string, number[]>();
  for (const key of transit.topicPartitions) {
    const { topic, partition } = parseTpKey(key);
    const partitions = byTopic.get(topic);
    if (partitions === undefined) byTopic.set(topic, [partition]);
    else partitions.push(partition);
  }
  return {
    type: "TransactionLog",
    key: { transactionalId },
    value: {
      producerId: transit.producerId,
      previousProducerId: transit.lastProducerId,
      producerEpoch: transit.producerEpoch,
      lastProducerEpoch: transit.lastProducerEpoch,
      transactionTimeoutMs: transit.txnTimeoutMs,
      transactionStatus: transit.txnState,
      transactionPartitions: [...byTopic.keys()].sort().map((topic) => ({
        topic,
        partitionIds: [...(byTopic.get(topic) ?? [])].sort((a, b) => a - b),
      })),
      transactionLastUpdateTimestampMs: transit.txnLastUpdateTimestamp,
      transactionStartTimestampMs: transit.txnStartTimestamp,
      ...(keepsClientVersion ? { clientTransactionVersion: transit.clientTransactionVersion } : {}),
    },
  };
}

export function transactionLogTombstone(transactionalId: string): TransactionLogRecord {
  return { type: "TransactionLog", key: { transactionalId }, value: null };
}

/** The partitions of a record value as `topic-partition` keys. */
export function partitionsOf(value: TransactionLogValue): string[] {
  return value.transactionPartitions.flatMap(({ topic, partitionIds }) => partitionIds.map((partition) => tpKey(topic, partition)));
}

/** Whether a value read back from storage looks like a record this coordinator wrote. */
export function isTransactionCoordinatorRecord(value: unknown): value is TransactionCoordinatorRecord {
  if (typeof value !== "object" || value === null) return false;
  const record = value as { type?: unknown; key?: unknown; value?: unknown; topic?: unknown };
  switch (record.type) {
    case "TransactionLog":
      return (
        typeof record.key === "object" &&
        record.key !== null &&
        (record.value === null ||
          (typeof record.value === "object" && isTransactionStateName((record.value as { transactionStatus?: unknown }).transactionStatus)))
      );
    case "kcsim.ProducerIdBlock":
      return typeof (value as { firstProducerId?: unknown }).firstProducerId === "number";
    case "kcsim.TxnCoordinatorEpoch":
      return typeof (value as { coordinatorEpoch?: unknown }).coordinatorEpoch === "number";
    case "kcsim.TopicImage":
      return typeof record.topic === "object";
    default:
      return false;
  }
}
