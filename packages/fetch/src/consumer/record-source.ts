import type { ActorId, Context, Message, Micros, TopicPartition } from "@kcsim/protocol";
import type { PolledRecords } from "./polled-records.js";

/** One record as the consumer's application sees it (Kafka's ConsumerRecord). */
export interface ConsumedRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly timestampMs: number;
  readonly key: string | null;
  readonly value: string | null;
  readonly sizeInBytes: number;
}

export type OffsetResetStrategy = "earliest" | "latest" | "none";

/** Why a partition has no position the source can use. */
export interface PositionProblem {
  readonly partition: TopicPartition;
  /** "no-offset": reset=none and nothing committed (NoOffsetForPartitionException); "out-of-range": OFFSET_OUT_OF_RANGE under reset=none. */
  readonly problem: "no-offset" | "out-of-range";
}

/**
 * What the consumer's poll loop needs from whatever supplies records: the
 * real Fetcher (Fetch requests to partition leaders with KIP-227 sessions),
 * or an in-memory source for scenarios without a data path. It lives inside
 * the member actor and speaks through the member's Context; the member
 * routes to it the messages and timers it does not handle itself.
 *
 * Positions: a newly assigned partition has none until the member `seek`s it
 * to the committed offset or asks for a `resetPosition` by auto.offset.reset.
 */
export interface RecordSource {
  /** Replaces the partitions the consumer holds. Removed ones are forgotten: buffered and in-flight data for them is dropped. */
  assign(partitions: readonly TopicPartition[], ctx: Context): void;
  /**
   * Stops or restarts fetching partitions without forgetting their
   * positions (pause()/resume(), revocation in progress, assignment awaiting
   * onPartitionsAssigned). Stopping drops their buffered data.
   */
  setFetchable(partitions: readonly TopicPartition[], fetchable: boolean, ctx: Context): void;
  /** The next offset to hand out for a partition (e.g. its committed offset). */
  seek(partition: TopicPartition, offset: number, ctx: Context): void;
  /** Positions a partition by the reset strategy (ListOffsets earliest/latest); "none" reports a PositionProblem. */
  resetPosition(partition: TopicPartition, strategy: OffsetResetStrategy, ctx: Context): void;
  position(partition: TopicPartition): number | null;
  /** Records ready for the application now (at most maxRecords), advancing positions. */
  poll(maxRecords: number, ctx: Context): PolledRecords;
  /** Whether poll() would return records right now. */
  hasRecords(): boolean;
  /** Partitions whose position could not be set (reported once, then cleared). */
  takePositionProblems(): PositionProblem[];
  /** Consumer lag (high watermark minus position) of a partition, when known. */
  lag(partition: TopicPartition): number | null;
  /**
   * A message for the source (Fetch/ListOffsets/Metadata responses); false if
   * it is not the source's. A SimDisconnect (the peer reset the connection)
   * fails the source's requests in flight to that peer and returns true, or
   * returns false when it had none there. A reset concerns every request to
   * the peer, so the member fails its own requests to it either way.
   */
  receive(from: ActorId, message: Message, ctx: Context): boolean;
  /** A timer the source armed (names start with "fetch."); false if it is not the source's. */
  fire(timer: string, ctx: Context): boolean;
  /** The time records will become ready without any message arriving (in-memory sources), or null. */
  nextReadyAt(now: Micros): Micros | null;
}
