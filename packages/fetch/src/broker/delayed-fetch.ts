import { type ActorId, ErrorCode, IsolationLevel } from "@kcsim/protocol";
import type { FetchContext } from "../session/fetch-context.js";
import type { PartitionReadResult } from "../session/partition-read-result.js";
import type { FetchTarget } from "../session/topic-id-partition.js";
import type { DelayedOperation } from "./delayed-operation-purgatory.js";
import type { Partition } from "./partition.js";
import type { PartitionLog } from "./partition-log.js";

/** The request-level parameters of a fetch, after the broker's caps (Kafka's `FetchParams`). */
export interface FetchParams {
  /** -1 for consumers, the follower's broker id for replication. */
  readonly replicaId: number;
  readonly maxWaitMs: number;
  readonly minBytes: number;
  readonly maxBytes: number;
  readonly isolationLevel: number;
}

export function isFromFollower(params: FetchParams): boolean {
  return params.replicaId >= 0;
}

/**
 * How far a fetch may read (Kafka's `FetchIsolation`): the log end for
 * followers, the last stable offset for read_committed consumers, the high
 * watermark for the others.
 */
export function fetchUpperBound(params: FetchParams, log: PartitionLog): number {
  if (isFromFollower(params)) return log.logEndOffset;
  return params.isolationLevel === IsolationLevel.READ_COMMITTED ? log.lastStableOffset : log.highWatermark;
}

/** A partition a parked fetch reads, by topic name and with its request parameters. */
export interface DelayedFetchPartition {
  readonly topic: string;
  readonly target: FetchTarget;
}

/**
 * A fetch waiting for fetch.min.bytes (Kafka's `DelayedFetch`): it
 * completes once the bytes available past the fetch offsets up to what the
 * fetch may read (each capped at the partition's max bytes) reach min bytes, when a partition stops being
 * readable (leadership or epoch change, or its log end fell behind the fetch
 * offset's segment after a truncation), or at fetch.max.wait.ms. Completing
 * reads all partitions again; the session context made at arrival answers.
 */
export class DelayedFetch implements DelayedOperation {
  readonly id: number;
  readonly replyTo: ActorId;
  readonly params: FetchParams;
  readonly context: FetchContext;
  readonly partitions: readonly DelayedFetchPartition[];
  /** Partitions answered with an error without a read (unknown topic ids), listed after the others. */
  readonly erroneous: readonly PartitionReadResult[];
  readonly watchKeys: readonly string[];

  constructor(
    id: number,
    replyTo: ActorId,
    params: FetchParams,
    context: FetchContext,
    partitions: readonly DelayedFetchPartition[],
    erroneous: readonly PartitionReadResult[],
    keyOf: (p: DelayedFetchPartition) => string,
  ) {
    this.id = id;
    this.replyTo = replyTo;
    this.params = params;
    this.context = context;
    this.partitions = partitions;
    this.erroneous = erroneous;
    this.watchKeys = partitions.map(keyOf);
  }

  /** Whether the fetch can be answered now. */
  tryComplete(partitionOf: (topic: string, partition: number) => Partition | undefined): boolean {
    let accumulated = 0;
    for (const { topic, target } of this.partitions) {
      const partition = partitionOf(topic, target.partition);
      if (partition === undefined) return true;
      if (partition.checkLeaderEpoch(target.currentLeaderEpoch, true) !== ErrorCode.NONE) return true;
      const log = partition.log;
      const endOffset = fetchUpperBound(this.params, log);
      const fetchOffset = target.fetchOffset;
      if (endOffset === fetchOffset) continue;
      const endSegment = log.segmentBaseOf(endOffset);
      const fetchSegment = log.segmentBaseOf(fetchOffset);
      // Either side on another segment: a truncated leader, or a fetch behind a rolled segment.
      if (endSegment !== fetchSegment) return true;
      if (fetchOffset < endOffset) accumulated += Math.min(log.bytesBetween(fetchOffset, endOffset), target.partitionMaxBytes);
    }
    return accumulated >= this.params.minBytes;
  }
}
