import type { Context, TopicPartition } from "@kcsim/protocol";
import type { MemberObserver, ProcessedBatch } from "../consumer/member-observer.js";
import { byTopicAndPartition, type PartitionRange } from "./batch-ranges.js";

/** How one consume-process-produce batch ended, as `member.batch` reports it. */
export interface BatchEnd {
  readonly transactionalId: string | null;
  readonly outcome: ProcessedBatch["outcome"];
  readonly reason: string;
  readonly ranges: readonly PartitionRange[];
  /** Where partitions were sought back to (rolled-back batches). */
  readonly rewound: readonly { readonly partition: TopicPartition; readonly value: number }[];
}

export function reportBatch(observer: MemberObserver, ctx: Context, end: BatchEnd): void {
  observer.batch(ctx, {
    transactionalId: end.transactionalId,
    outcome: end.outcome,
    reason: end.reason,
    records: end.ranges.reduce((sum, range) => sum + range.count, 0),
    offsets: byTopicAndPartition(end.ranges.map(({ partition, first, last }) => ({ partition, value: [first, last] as const }))),
    rewoundTo: byTopicAndPartition(end.rewound),
  });
}
