import type { FetchResponsePartition, RecordBatch } from "@kcsim/protocol";
import type { CachedPartition } from "./cached-partition.js";

/** "No preferred read replica" in a Fetch response partition. */
export const NO_PREFERRED_READ_REPLICA = -1;

/** Something a read reads from whose `version` moves on with every change a read can see. */
export interface VersionedSource {
  readonly version: number;
}

/**
 * A read that found nothing new: no error and the fetch offset at the
 * bound it may read to (so no records, whatever the byte budget). As long
 * as `source` stays at `version` and the read is made under the same
 * `stamp` (metadata version, fetcher and isolation level), reading again
 * would find exactly the same, so an incremental session need not read it.
 */
export interface QuietRead {
  readonly source: VersionedSource;
  readonly version: number;
  readonly stamp: number;
}

/**
 * What the log layer read for one partition of a fetch: the response
 * partition as it would go on the wire, and its topic id.
 */
export interface PartitionReadResult {
  readonly topicId: string;
  readonly data: FetchResponsePartition;
  /**
   * The read found a diverging epoch (Kafka's `FetchResponse.isDivergingEpoch`,
   * follower truncation). The protocol's response partition has no field for
   * it, so it travels beside the data and only decides inclusion.
   */
  readonly divergingEpoch?: boolean;
  /** `recordsSizeInBytes(data)`, when the reader measured it once. */
  readonly recordsBytes?: number;
  /** Set when the read found nothing new (see QuietRead). */
  readonly quiet?: QuietRead | undefined;
  /**
   * The session partition the read was made for (incremental sessions): the
   * response takes it from here instead of looking it up by a key string,
   * once it checked the session still holds it.
   */
  readonly cached?: CachedPartition | undefined;
}

/** Kafka's `FetchResponse.recordsSize`: the bytes of the batches returned for a partition. */
export function recordsSizeInBytes(data: FetchResponsePartition): number {
  let bytes = 0;
  // Indexed: a delivered message's arrays are frozen, and for-of over a frozen array makes an iterator each time.
  const batches = data.records;
  for (let i = 0; i < batches.length; i++) bytes += (batches[i] as RecordBatch).sizeInBytes;
  return bytes;
}

/** The records bytes of a read, measured once by the reader or now. */
export function readBytesOf(read: PartitionReadResult): number {
  return read.recordsBytes ?? recordsSizeInBytes(read.data);
}
