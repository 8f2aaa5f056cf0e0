import type { RecordSource } from "@kcsim/fetch";
import type { Context, TopicPartition } from "@kcsim/protocol";
import type { AssignedPartitions } from "../consumer/assigned-partitions.js";
import type { PartitionRange } from "./batch-ranges.js";

/**
 * Seeks the consumer back to a rolled-back batch's first offsets, so its
 * records are processed again (Kafka's exactly-once loop rewinds to the
 * last committed positions after an abort: every batch commits exactly up
 * to its end, so those are where the batch began). Partitions the consumer
 * no longer holds, or that lost their position (released, re-assigned),
 * are left alone: whoever gets them starts from the committed offset.
 * Returns where each partition was sought to.
 */
export function rewindBatch(
  ranges: readonly PartitionRange[],
  source: RecordSource,
  assigned: AssignedPartitions,
  ctx: Context,
): { partition: TopicPartition; value: number }[] {
  const rewound: { partition: TopicPartition; value: number }[] = [];
  for (const { partition, first } of ranges) {
    const status = assigned.statusOf(partition);
    if (status === undefined || status === "released" || source.position(partition) === null) continue;
    source.seek(partition, first, ctx);
    rewound.push({ partition, value: first });
  }
  return rewound;
}

/**
 * Where the consumer stands with a batch's partitions now:
 * - `owned`: it still owns all of them;
 * - `revoking`: a rebalance is taking some away (their revocation has
 *   begun): the batch must not commit offsets for them;
 * - `lost`: some were lost (the member was fenced or expired) or are gone.
 */
export type BatchOwnership = "owned" | "revoking" | "lost";

export function batchOwnership(ranges: readonly PartitionRange[], assigned: AssignedPartitions): BatchOwnership {
  let lost = false;
  for (const { partition } of ranges) {
    const status = assigned.statusOf(partition);
    if (status === "pending-revocation") return "revoking";
    if (status !== "owned") lost = true;
  }
  return lost ? "lost" : "owned";
}
