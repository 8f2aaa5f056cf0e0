import { tpKey } from "@kcsim/protocol";
import type { PolledRange } from "./polled-records.js";
import type { ConsumedRecord } from "./record-source.js";

/** A range while its records are counted. */
interface PartitionRun {
  readonly topic: string;
  readonly partition: number;
  readonly firstOffset: number;
  lastOffset: number;
  count: number;
}

/**
 * Up to this many partitions in a batch, a partition's range is found again
 * by scanning the ranges so far; past it, by a map. A batch holds runs of
 * one partition's records, so a range is only looked for when the partition
 * changes, and a poll seldom holds more than a few partitions.
 */
const SCANNED_RANGES = 16;

/**
 * The ranges of a polled batch: one per partition, in the order the batch
 * first holds each, with the offsets of its first and last records there
 * and how many it holds.
 */
export function recordRangesOf(records: readonly ConsumedRecord[]): PolledRange[] {
  const ranges: PartitionRun[] = [];
  let byPartition: Map<string, PartitionRun> | null = null;
  let run: PartitionRun | undefined;
  for (const record of records) {
    const { topic, partition } = record;
    if (run === undefined || run.partition !== partition || run.topic !== topic) {
      run = byPartition === null ? scan(ranges, topic, partition) : byPartition.get(tpKey(topic, partition));
      if (run === undefined) {
        run = { topic, partition, firstOffset: record.offset, lastOffset: record.offset, count: 0 };
        ranges.push(run);
        if (byPartition !== null) byPartition.set(tpKey(topic, partition), run);
        else if (ranges.length > SCANNED_RANGES) byPartition = new Map(ranges.map((r) => [tpKey(r.topic, r.partition), r]));
      }
    }
    run.lastOffset = record.offset;
    run.count++;
  }
  return ranges;
}

function scan(ranges: readonly PartitionRun[], topic: string, partition: number): PartitionRun | undefined {
  for (const range of ranges) if (range.partition === partition && range.topic === topic) return range;
  return undefined;
}
