import type { RecordBatch } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { LeaderEpochCache } from "../src/broker/leader-epoch-cache.js";
import { type LogChange, PartitionLog } from "../src/broker/partition-log.js";
import { producerBatch } from "./data-path-fixtures.js";

const ROLL = { segmentBytes: 1_000_000, rollMs: 1_000_000 };

function logWith(changes: LogChange[] = [], roll = ROLL): PartitionLog {
  return new PartitionLog(roll, (change) => changes.push(change));
}

function withTimestamp(batch: RecordBatch, baseTimestamp: number): RecordBatch {
  return { ...batch, baseTimestamp };
}

describe("leader epoch cache", () => {
  it("answers the end offset of an epoch as Kafka's endOffsetFor does", () => {
    const cache = new LeaderEpochCache();
    cache.assign(0, 0);
    cache.assign(2, 10);
    cache.assign(5, 20);
    expect(cache.endOffsetFor(5, 30)).toEqual({ epoch: 5, endOffset: 30 });
    expect(cache.endOffsetFor(2, 30)).toEqual({ epoch: 2, endOffset: 20 });
    // An unknown epoch between known ones: the largest epoch below it, ending where the next begins.
    expect(cache.endOffsetFor(3, 30)).toEqual({ epoch: 2, endOffset: 20 });
    expect(cache.endOffsetFor(6, 30)).toEqual({ epoch: -1, endOffset: -1 });
    expect(cache.endOffsetFor(-1, 30)).toEqual({ epoch: -1, endOffset: -1 });
    const late = new LeaderEpochCache();
    late.assign(3, 7);
    expect(late.endOffsetFor(1, 9)).toEqual({ epoch: 1, endOffset: 7 });
  });

  it("keeps epochs and start offsets increasing, and truncates from either end", () => {
    const cache = new LeaderEpochCache();
    cache.assign(1, 0);
    cache.assign(2, 5);
    cache.assign(3, 9);
    expect(cache.assign(3, 12)).toBe(false);
    // A new entry that breaks monotonicity removes the entries it contradicts.
    cache.assign(2, 4);
    expect(cache.entries()).toEqual([
      { epoch: 1, startOffset: 0 },
      { epoch: 2, startOffset: 4 },
    ]);
    cache.assign(4, 8);
    cache.truncateFromEnd(8);
    expect(cache.latestEpoch()).toBe(2);
    cache.truncateFromStart(6);
    expect(cache.entries()).toEqual([{ epoch: 2, startOffset: 6 }]);
  });
});

describe("partition log", () => {
  it("assigns offsets and the leader epoch on a leader append and records epoch starts", () => {
    const log = logWith();
    const a = log.appendAsLeader(producerBatch(100, 3), 0, 0);
    const b = log.appendAsLeader(producerBatch(50, 2), 2, 0);
    expect([a.baseOffset, b.baseOffset, log.logEndOffset]).toEqual([0, 3, 5]);
    expect(b.partitionLeaderEpoch).toBe(2);
    expect(log.epochCache.entries()).toEqual([
      { epoch: 0, startOffset: 0 },
      { epoch: 2, startOffset: 3 },
    ]);
    expect(log.bytesBetween(0, 5)).toBe(150);
    expect(log.bytesBetween(3, 5)).toBe(50);
    // A follower only appends at its log end.
    expect(log.appendAsFollower({ ...producerBatch(10), baseOffset: 7 }, 0)).toBe(false);
    expect(log.appendAsFollower({ ...producerBatch(10), baseOffset: 5, partitionLeaderEpoch: 3 }, 0)).toBe(true);
    expect(log.latestEpoch()).toBe(3);
  });

  it("truncates whole batches and cuts the high watermark and epoch cache with them", () => {
    const log = logWith();
    log.appendAsLeader(producerBatch(10, 2), 0, 0);
    log.appendAsLeader(producerBatch(10, 2), 1, 0);
    log.appendAsLeader(producerBatch(10, 2), 1, 0);
    log.updateHighWatermark(6);
    // Offset 3 is inside the batch [2, 3]: the whole batch goes.
    expect(log.truncateTo(3)).toBe(2);
    expect([log.logEndOffset, log.highWatermark, log.latestEpoch()]).toEqual([2, 2, 0]);
    expect(log.truncateTo(9)).toBeUndefined();
  });

  it("rolls segments by size, reads within one segment, and deletes old segments below the high watermark", () => {
    const log = logWith([], { segmentBytes: 250, rollMs: 1_000_000 });
    for (let i = 0; i < 6; i++) log.appendAsLeader(withTimestamp(producerBatch(100), i * 1000), 0, i * 1000);
    expect(log.segmentCount).toBe(3);
    log.updateHighWatermark(6);
    // A read stops at the end of the segment holding the fetch offset.
    const read = log.read(0, 10_000, 6, true);
    expect(read.outOfRange ? [] : read.batches.map((b) => b.baseOffset)).toEqual([0, 1]);
    // Retention by time: segments whose newest record is older than 2.5 s at t = 4.5 s go (the active one stays).
    expect(log.deleteOldSegments(4500, 2500, -1)).toBe(true);
    expect(log.logStartOffset).toBe(2);
    expect(log.read(1, 1000, 6, true).outOfRange).toBe(true);
    // Retention by size: drop segments while what is left stays at least the limit.
    expect(log.deleteOldSegments(4500, -1, 200)).toBe(true);
    expect([log.logStartOffset, log.sizeInBytes]).toEqual([4, 200]);
  });

  it("rebuilds the same log from its stored changes, with the high watermark of the last checkpoint", () => {
    const changes: LogChange[] = [];
    const log = logWith(changes, { segmentBytes: 250, rollMs: 1_000_000 });
    log.appendAsLeader(producerBatch(100, 2), 0, 0);
    log.assignEpochStartOffset(1, 2);
    log.appendAsLeader(producerBatch(100, 2), 1, 0);
    log.appendAsLeader(producerBatch(100, 2), 1, 0);
    log.updateHighWatermark(6);
    log.checkpointHighWatermark();
    log.truncateTo(4);
    log.appendAsFollower({ ...producerBatch(100, 1), baseOffset: 4, partitionLeaderEpoch: 3 }, 0);
    log.maybeIncrementLogStartOffset(2);
    const rebuilt = logWith();
    for (const change of changes) rebuilt.replay(JSON.parse(JSON.stringify(change)) as LogChange);
    rebuilt.finishReplay();
    expect(rebuilt.batches()).toEqual(log.batches());
    expect(rebuilt.epochCache.entries()).toEqual(log.epochCache.entries());
    expect([rebuilt.logStartOffset, rebuilt.logEndOffset, rebuilt.highWatermark]).toEqual([2, 5, 4]);
    expect(rebuilt.segmentCount).toBe(log.segmentCount);
  });

  it("finds offsets by timestamp", () => {
    const log = logWith();
    log.appendAsLeader(withTimestamp(producerBatch(10, 2), 100), 0, 0);
    log.appendAsLeader(withTimestamp(producerBatch(10, 2), 200), 0, 0);
    expect(log.offsetForTimestamp(150)).toEqual({ offset: 2, timestampMs: 200, epoch: 0 });
    expect(log.offsetForTimestamp(50)?.offset).toBe(0);
    expect(log.offsetForTimestamp(201)).toBeUndefined();
  });
});
