import type { ConsumedRecord, GroupMetadata, ProducerTopic, RecordSource } from "@kcsim/fetch";
import type { ActorId, Context, JsonValue, Message } from "@kcsim/protocol";
import type { AssignedPartitions } from "../consumer/assigned-partitions.js";
import type { Continuation } from "../consumer/completion.js";
import type { MemberObserver } from "../consumer/member-observer.js";
import type { ApplicationSteps, BatchDone } from "./batch-processor.js";
import type { PartitionRange } from "./batch-ranges.js";
import type { OutputConfig } from "./processing-config.js";

/**
 * The producing half of a consume-process-produce application: a batch
 * begins (a transaction), each processed record's result is sent, and the
 * batch ends (committed with its offsets, or rolled back). It owns the
 * embedded producer and takes the producer's messages and timers.
 */
export interface OutputStage {
  start(ctx: Context): void;
  /** Before the batch's first record: waits, if it must, until the producer can take it; then `then`. */
  beginBatch(steps: ApplicationSteps, ctx: Context, then: Continuation): void;
  /** The result of one processed record. */
  send(record: ConsumedRecord, ctx: Context): void;
  /** After the batch's last record: its results and offsets are settled (or rolled back), then `done`. */
  endBatch(ranges: readonly PartitionRange[], steps: ApplicationSteps, ctx: Context, done: BatchDone): void;
  receive(from: ActorId, message: Message, ctx: Context): boolean;
  fire(timer: string, ctx: Context): boolean;
  snapshot(): JsonValue;
}

/** What an output stage needs from the consumer it lives in. */
export interface OutputEnvironment {
  readonly actorId: ActorId;
  readonly groupId: string;
  readonly output: OutputConfig;
  /** The data brokers (the consumer's fetch source). */
  readonly brokers: readonly ActorId[];
  /** The group coordinators (FindCoordinator(GROUP) for TxnOffsetCommit). */
  readonly groupCoordinators: readonly ActorId[];
  readonly transactionCoordinators: readonly ActorId[];
  /** The cluster's finalized transaction.version as the transactional output's producer reads it. */
  readonly transactionVersion: number;
  readonly topics: readonly ProducerTopic[];
  /** The consumer's correlation ids: the producer's requests share the process's counter. */
  readonly nextCorrelationId: () => number;
  readonly source: RecordSource;
  readonly assigned: AssignedPartitions;
  readonly observer: MemberObserver;
  /** Kafka's `consumer.groupMetadata()` now: group id, member epoch or generation, member id, instance id. */
  groupMetadata(): GroupMetadata;
}
