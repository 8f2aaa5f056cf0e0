import { type ActorId, ErrorCode, IsolationLevel } from "@kcsim/protocol";
import type { CachedPartition } from "../session/cached-partition.js";
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

/**
 * A partition a fetch reads, by topic name and with its request parameters
 * (an immutable snapshot: a parked fetch reads what its request asked for).
 * An incremental session keeps one per cached partition while its
 * parameters and the metadata stay the same (`cached.readSlot`), so a fetch
 * resolves nothing again for partitions that did not change.
 */
export class DelayedFetchPartition {
  /** `tpKey(topic, partition)`: the purgatory's watch key. */
  readonly key: string;
  /** The partition this broker has for it, once it has one (the object never changes for a key). */
  partition: Partition | undefined = undefined;

  constructor(
    readonly topic: string,
    readonly target: FetchTarget,
    key: string,
    /** The session's cached partition (incremental fetches), whose quiet reads can be skipped. */
    readonly cached: CachedPartition | null,
    /** The metadata version the topic name was resolved at. */
    readonly metadataVersion: number,
  ) {
    this.key = key;
  }

  /**
   * Whether a read of this partition under `stamp` would find nothing new
   * (see CachedPartition.isQuiet): only while this is still the session's
   * current snapshot of the partition's parameters.
   */
  isQuiet(stamp: number): boolean {
    return this.cached !== null && this.cached.readSlot === this && this.cached.isQuiet(stamp);
  }
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
  ) {
    this.id = id;
    this.replyTo = replyTo;
    this.params = params;
    this.context = context;
    this.partitions = partitions;
    this.erroneous = erroneous;
    this.watchKeys = partitions.map((p) => p.key);
  }

  /**
   * Whether the fetch can be answered now. A partition whose read would
   * find nothing new under `stamp` adds no bytes and cannot complete it
   * (its fetch offset is at its bound), so it is not looked at.
   */
  tryComplete(partitionOf: (item: DelayedFetchPartition) => Partition | undefined, stamp: number): boolean {
    let accumulated = 0;
    for (const item of this.partitions) {
      if (item.isQuiet(stamp)) continue;
      const target = item.target;
      const partition = partitionOf(item);
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
