import type { Micros, TopicPartition } from "@kcsim/protocol";
import type { ProducerIdAndEpoch } from "./producer-id-and-epoch.js";
import type { TransactionalResult } from "./transactional-result.js";

/** Which coordinator a request goes to (Kafka's `FindCoordinatorRequest.CoordinatorType`), or null: any broker or bootstrap. */
export type CoordinatorType = "transaction" | "group";

/**
 * The order transactional requests go out in (Kafka's `Priority`): a
 * coordinator lookup first, then a producer id, then partitions and
 * offsets, then EndTxn, and an epoch bump after the EndTxn it follows.
 */
export const TxnPriority = {
  FIND_COORDINATOR: 0,
  INIT_PRODUCER_ID: 1,
  ADD_PARTITIONS_OR_OFFSETS: 2,
  END_TXN: 3,
  EPOCH_BUMP: 4,
} as const;

/** The consumer group a transaction commits offsets for (Kafka's `ConsumerGroupMetadata`). */
export interface GroupMetadata {
  readonly groupId: string;
  /** The classic generation, or the KIP-848 member epoch (-1: none). */
  readonly generationId: number;
  readonly memberId: string;
  readonly groupInstanceId: string | null;
}

/** An offset to commit in a transaction (Kafka's `OffsetAndMetadata`). */
export interface TransactionOffset {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly leaderEpoch?: number;
  readonly metadata?: string | null;
}

/** What a transactional request asks, with the producer id and epoch it was built with. */
export type TxnRequest =
  | { readonly kind: "find-coordinator"; readonly coordinatorType: CoordinatorType; readonly key: string }
  | { readonly kind: "init-producer-id"; readonly isEpochBump: boolean; readonly producer: ProducerIdAndEpoch }
  | { readonly kind: "add-partitions"; readonly producer: ProducerIdAndEpoch; readonly partitions: readonly TopicPartition[] }
  | {
      readonly kind: "add-offsets";
      readonly producer: ProducerIdAndEpoch;
      readonly offsets: readonly TransactionOffset[];
      readonly group: GroupMetadata;
    }
  | { readonly kind: "txn-offset-commit"; readonly producer: ProducerIdAndEpoch; readonly group: GroupMetadata }
  | { readonly kind: "end-txn"; readonly producer: ProducerIdAndEpoch; readonly committed: boolean };

/**
 * A transactional request waiting to go out, in flight, or waiting to be
 * retried (Kafka's `TxnRequestHandler`): what it asks, the result it
 * completes, its priority, and its retry state. A retried request waits
 * its backoff when it comes up again, as Kafka's sender sleeps before
 * resending it.
 */
export class TxnRequestHandler {
  readonly request: TxnRequest;
  readonly result: TransactionalResult;
  readonly priority: number;
  /** Insertion order among equal priorities (Kafka's priority queue keeps no order; here it is FIFO). */
  readonly sequence: number;
  isRetry = false;
  /** While a retry waits its backoff: when it may go. */
  retryAt: Micros | null = null;
  /** Overrides the retry backoff (AddPartitionsToTxn after CONCURRENT_TRANSACTIONS at the start of a transaction). */
  retryBackoffOverride: Micros | null = null;

  constructor(request: TxnRequest, result: TransactionalResult, priority: number, sequence: number) {
    this.request = request;
    this.result = result;
    this.priority = priority;
    this.sequence = sequence;
  }

  get isEndTxn(): boolean {
    return this.request.kind === "end-txn";
  }

  /** The coordinator the request goes to; null for FindCoordinator and an idempotent producer's InitProducerId. */
  coordinatorType(transactional: boolean): CoordinatorType | null {
    switch (this.request.kind) {
      case "find-coordinator":
        return null;
      case "init-producer-id":
        return transactional ? "transaction" : null;
      case "txn-offset-commit":
        return "group";
      default:
        return "transaction";
    }
  }

  /** The coordinator key for a lookup: the group id for TxnOffsetCommit, else the transactional id. */
  coordinatorKey(transactionalId: string | null): string | null {
    return this.request.kind === "txn-offset-commit" ? this.request.group.groupId : transactionalId;
  }
}
