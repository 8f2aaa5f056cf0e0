import type { FetchResponsePartition } from "@kcsim/protocol";

/** "No preferred read replica" in a Fetch response partition. */
export const NO_PREFERRED_READ_REPLICA = -1;

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
}

/** Kafka's `FetchResponse.recordsSize`: the bytes of the batches returned for a partition. */
export function recordsSizeInBytes(data: FetchResponsePartition): number {
  let bytes = 0;
  for (const batch of data.records) bytes += batch.sizeInBytes;
  return bytes;
}
