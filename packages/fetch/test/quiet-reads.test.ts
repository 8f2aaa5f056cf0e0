import { ErrorCode, ms } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { CachedPartition } from "../src/session/cached-partition.js";
import type { PartitionReadResult, VersionedSource } from "../src/session/partition-read-result.js";
import { answer, type ClusterSpec, cluster, fetchRequest, produceRequest, producerBatch } from "./data-path-fixtures.js";
import { FOO, target } from "./fetch-fixtures.js";
import type { SimNetwork } from "./sim-network.js";

/**
 * Quiet reads: a partition of an incremental fetch session whose last read
 * found nothing new is not read again while neither it nor the read's stamp
 * (metadata, fetcher, isolation) changed. Skipping must never hide what a
 * read would have found: these tests fail if a skipped partition had news.
 */

class Source implements VersionedSource {
  version = 0;
}

function quietRead(source: Source, stamp: number, highWatermark = 5): PartitionReadResult {
  return {
    topicId: FOO,
    data: {
      partitionIndex: 0,
      errorCode: ErrorCode.NONE,
      highWatermark,
      lastStableOffset: highWatermark,
      logStartOffset: 0,
      abortedTransactions: null,
      preferredReadReplica: -1,
      records: [],
    },
    recordsBytes: 0,
    quiet: { source, version: source.version, stamp },
  };
}

describe("CachedPartition quiet state", () => {
  it("is quiet after a quiet read was sent, under the same stamp, until its source changes", () => {
    const source = new Source();
    const cached = CachedPartition.fromRequest(target(FOO, 0, { fetchOffset: 5 }));
    expect(cached.isQuiet(1)).toBe(false);
    // The first response carries the partition (its high watermark is news), and remembers the quiet read.
    expect(cached.maybeUpdateResponseData(quietRead(source, 1), true)).toBe(true);
    expect(cached.isQuiet(1)).toBe(true);
    expect(cached.isQuiet(2)).toBe(false);
    source.version++;
    expect(cached.isQuiet(1)).toBe(false);
  });

  it("is not quiet after a read that only sized a response (no update), nor after new request parameters", () => {
    const source = new Source();
    const cached = CachedPartition.fromRequest(target(FOO, 0, { fetchOffset: 5 }));
    cached.maybeUpdateResponseData(quietRead(source, 1), false);
    expect(cached.isQuiet(1)).toBe(false);
    cached.maybeUpdateResponseData(quietRead(source, 1), true);
    cached.readSlot = "resolved";
    cached.updateRequestParams(target(FOO, 0, { fetchOffset: 6 }));
    expect(cached.isQuiet(1)).toBe(false);
    expect(cached.readSlot).toBeNull();
  });

  it("forgets a quiet read when the next read was not quiet", () => {
    const source = new Source();
    const cached = CachedPartition.fromResponse(target(FOO, 0, { fetchOffset: 5 }), quietRead(source, 1));
    expect(cached.isQuiet(1)).toBe(true);
    const { quiet: _, ...loud } = quietRead(source, 1);
    cached.maybeUpdateResponseData(loud, true);
    expect(cached.isQuiet(1)).toBe(false);
  });
});

/** One broker leading three single-replica partitions of "t". */
const SPEC: ClusterSpec = { brokers: 1, topics: [{ name: "t", partitions: 3, replicationFactor: 1 }] };

function singleBroker(): SimNetwork {
  const net = cluster({ ...SPEC, broker: {} });
  net.addClient("client");
  net.startAll();
  net.runFor(ms(5));
  return net;
}

function produce(net: SimNetwork, partition: number, size: number): void {
  const request = produceRequest("t", partition, producerBatch(size));
  net.send("client", "broker-0", request);
  net.runFor(ms(3));
  expect(answer(net, "ProduceResponse", request.correlationId)?.responses[0]?.partitionResponses[0]?.errorCode).toBe(ErrorCode.NONE);
}

/** An incremental request of a session that changes no partition. */
function incremental(sessionId: number, sessionEpoch: number, options: { maxWaitMs?: number } = {}) {
  return { ...fetchRequest([], { maxWaitMs: options.maxWaitMs ?? 0, minBytes: 1 }), sessionId, sessionEpoch };
}

describe("incremental fetches over quiet partitions", () => {
  it("answer what a full read would: only the partitions with news, parked fetches as soon as one has bytes", () => {
    const net = singleBroker();
    const full = fetchRequest(
      [0, 1, 2].map((partition) => ({ topic: "t", partition, fetchOffset: 0 })),
      { sessionEpoch: 0 },
    );
    net.send("client", "broker-0", full);
    net.runFor(ms(3));
    const created = answer(net, "FetchResponse", full.correlationId);
    const sessionId = created?.sessionId ?? 0;
    expect(sessionId).toBeGreaterThan(0);
    expect(created?.responses[0]?.partitions.map((p) => p.partitionIndex)).toEqual([0, 1, 2]);

    // Nothing changed: every partition is quiet, and the answer is empty.
    const idle = incremental(sessionId, 1);
    net.send("client", "broker-0", idle);
    net.runFor(ms(3));
    expect(answer(net, "FetchResponse", idle.correlationId)?.responses).toEqual([]);

    // New data on partition 1 only: it alone is answered, with its record and new high watermark.
    produce(net, 1, 40);
    const after = incremental(sessionId, 2);
    net.send("client", "broker-0", after);
    net.runFor(ms(3));
    const partitions = answer(net, "FetchResponse", after.correlationId)?.responses.flatMap((t) => t.partitions) ?? [];
    expect(partitions.map((p) => [p.partitionIndex, p.highWatermark, p.records.map((b) => b.sizeInBytes)])).toEqual([[1, 1, [40]]]);

    // A long poll with partition 1 moved past its record parks: every partition is at its bound.
    const moved = {
      ...fetchRequest([{ topic: "t", partition: 1, fetchOffset: 1 }], { maxWaitMs: 500, minBytes: 1 }),
      sessionId,
      sessionEpoch: 3,
    };
    net.send("client", "broker-0", moved);
    net.runFor(ms(100));
    expect(answer(net, "FetchResponse", moved.correlationId)).toBeUndefined();
    // Data on a quiet partition completes it at once, with that partition only.
    produce(net, 2, 30);
    const parked = answer(net, "FetchResponse", moved.correlationId);
    expect(parked?.errorCode).toBe(ErrorCode.NONE);
    expect(parked?.responses.flatMap((t) => t.partitions).map((p) => [p.partitionIndex, p.records.map((b) => b.sizeInBytes)])).toEqual([
      [2, [30]],
    ]);
  });
});
