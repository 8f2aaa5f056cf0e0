import { ErrorCode } from "@kcsim/protocol";
import { NO_PREFERRED_READ_REPLICA, type PartitionReadResult, type QuietRead, readBytesOf } from "./partition-read-result.js";
import { type FetchTarget, topicIdPartitionKey } from "./topic-id-partition.js";

/**
 * One partition of a broker-side fetch session (Kafka's `CachedPartition`):
 * the fetch parameters the client last sent, and what the broker last told
 * it (high watermark, log start offset), so unchanged partitions can be left
 * out of incremental responses.
 */
export class CachedPartition {
  readonly topicId: string;
  readonly partition: number;
  /** `topicIdPartitionKey(topicId, partition)`: its key in the session. */
  readonly key: string;
  maxBytes: number;
  fetchOffset: number;
  /** The high watermark last sent to the fetcher; -1 forces the next response to include the partition. */
  highWatermark: number;
  currentLeaderEpoch: number;
  /** The fetcher's own log start offset (followers send it). */
  fetcherLogStartOffset: number;
  /** This broker's log start offset last sent to the fetcher. */
  localLogStartOffset: number;
  lastFetchedEpoch: number;
  /** The last read that found nothing new, once its response was generated (see QuietRead); null otherwise. */
  #quiet: QuietRead | null = null;
  /**
   * Whatever the broker keeps with this partition for its reads (the
   * partition it resolves to, by the parameters in force): dropped when the
   * parameters change.
   */
  readSlot: unknown = null;

  private constructor(target: FetchTarget, highWatermark: number, localLogStartOffset: number) {
    this.topicId = target.topicId;
    this.partition = target.partition;
    this.key = topicIdPartitionKey(target.topicId, target.partition);
    this.maxBytes = target.partitionMaxBytes;
    this.fetchOffset = target.fetchOffset;
    this.highWatermark = highWatermark;
    this.currentLeaderEpoch = target.currentLeaderEpoch;
    this.fetcherLogStartOffset = target.logStartOffset;
    this.localLogStartOffset = localLogStartOffset;
    this.lastFetchedEpoch = target.lastFetchedEpoch;
  }

  /** A partition added by an incremental request: nothing sent yet. */
  static fromRequest(target: FetchTarget): CachedPartition {
    return new CachedPartition(target, -1, -1);
  }

  /** A partition of a session created from a full request and its response. */
  static fromResponse(target: FetchTarget, read: PartitionReadResult): CachedPartition {
    const cached = new CachedPartition(target, read.data.highWatermark, read.data.logStartOffset);
    cached.#quiet = read.quiet ?? null;
    return cached;
  }

  /** The cached request parameters, as the log layer reads them. */
  target(): FetchTarget {
    return {
      topicId: this.topicId,
      partition: this.partition,
      currentLeaderEpoch: this.currentLeaderEpoch,
      fetchOffset: this.fetchOffset,
      lastFetchedEpoch: this.lastFetchedEpoch,
      logStartOffset: this.fetcherLogStartOffset,
      partitionMaxBytes: this.maxBytes,
    };
  }

  /**
   * Whether reading this partition under `stamp` would find nothing new:
   * its last read was quiet under that stamp and its source has not changed
   * since. A quiet partition is left out of an incremental response.
   */
  isQuiet(stamp: number): boolean {
    const quiet = this.#quiet;
    return quiet !== null && quiet.stamp === stamp && quiet.source.version === quiet.version;
  }

  updateRequestParams(target: FetchTarget): void {
    this.#quiet = null;
    this.readSlot = null;
    this.maxBytes = target.partitionMaxBytes;
    this.fetchOffset = target.fetchOffset;
    this.fetcherLogStartOffset = target.logStartOffset;
    this.currentLeaderEpoch = target.currentLeaderEpoch;
    this.lastFetchedEpoch = target.lastFetchedEpoch;
  }

  /**
   * Whether an incremental response must include this partition: it returned
   * records, its high watermark or log start offset changed, it has an error,
   * a preferred read replica or a diverging epoch. With `update`, remembers
   * what is sent; an error resets the cached high watermark to -1 so the
   * partition is sent again once the error clears.
   */
  maybeUpdateResponseData(read: PartitionReadResult, update: boolean): boolean {
    const data = read.data;
    let mustRespond = false;
    if (readBytesOf(read) > 0) mustRespond = true;
    if (this.highWatermark !== data.highWatermark) {
      mustRespond = true;
      if (update) this.highWatermark = data.highWatermark;
    }
    if (this.localLogStartOffset !== data.logStartOffset) {
      mustRespond = true;
      if (update) this.localLogStartOffset = data.logStartOffset;
    }
    if (data.preferredReadReplica !== NO_PREFERRED_READ_REPLICA) mustRespond = true;
    if (data.errorCode !== ErrorCode.NONE) {
      if (update) this.highWatermark = -1;
      mustRespond = true;
    }
    if (read.divergingEpoch === true) mustRespond = true;
    // What was just sent is cached now: a quiet read stays quiet for the next request while nothing changes.
    if (update) this.#quiet = read.quiet ?? null;
    return mustRespond;
  }
}
