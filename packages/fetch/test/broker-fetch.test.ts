import { ErrorCode, ms } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import {
  answer,
  type ClusterSpec,
  cluster,
  fetchRequest,
  listOffsetsRequest,
  produceRequest,
  producerBatch,
} from "./data-path-fixtures.js";
import type { SimNetwork } from "./sim-network.js";

/** One broker leading three single-replica partitions of "t". */
const SPEC: ClusterSpec = { brokers: 1, topics: [{ name: "t", partitions: 3, replicationFactor: 1 }] };

function singleBroker(broker: ClusterSpec["broker"] = {}): SimNetwork {
  const net = cluster({ ...SPEC, broker });
  net.addClient("client");
  net.startAll();
  net.runFor(ms(5));
  return net;
}

/** Appends batches of the given sizes to a partition (acks=1) and waits for the answers. */
function produce(net: SimNetwork, partition: number, sizes: readonly number[]): void {
  for (const size of sizes) {
    const request = produceRequest("t", partition, producerBatch(size));
    net.send("client", "broker-0", request);
    net.runFor(ms(3));
    expect(answer(net, "ProduceResponse", request.correlationId)?.responses[0]?.partitionResponses[0]?.errorCode).toBe(ErrorCode.NONE);
  }
}

function fetchNow(net: SimNetwork, request: ReturnType<typeof fetchRequest>) {
  net.send("client", "broker-0", request);
  net.runFor(ms(3));
  const response = answer(net, "FetchResponse", request.correlationId);
  if (response === undefined) throw new Error("no fetch response");
  return response.responses.flatMap((t) => t.partitions);
}

const sizesOf = (batches: readonly { sizeInBytes: number }[]) => batches.map((b) => b.sizeInBytes);

describe("broker fetch sizing", () => {
  it("parks a fetch below fetch.min.bytes and answers when data arrives", () => {
    const net = singleBroker();
    const fetch = fetchRequest([{ topic: "t", partition: 0, fetchOffset: 0 }], { maxWaitMs: 500, minBytes: 1 });
    net.send("client", "broker-0", fetch);
    net.runFor(ms(100));
    expect(answer(net, "FetchResponse", fetch.correlationId)).toBeUndefined();
    const sentAt = net.now;
    produce(net, 0, [80]);
    const delivered = net.received("FetchResponse", fetch.correlationId)[0];
    expect(delivered).toBeDefined();
    // Answered on arrival (produce link + fetch link), long before max wait.
    expect((delivered?.at ?? 0) - sentAt).toBeLessThanOrEqual(ms(3));
    expect(sizesOf(delivered?.message.responses[0]?.partitions[0]?.records ?? [])).toEqual([80]);
  });

  it("answers a parked fetch empty at fetch.max.wait.ms when min bytes never arrive", () => {
    const net = singleBroker();
    produce(net, 0, [50]);
    const fetch = fetchRequest([{ topic: "t", partition: 0, fetchOffset: 1 }], { maxWaitMs: 500, minBytes: 1 });
    const sentAt = net.now;
    net.send("client", "broker-0", fetch);
    net.runFor(ms(499));
    expect(answer(net, "FetchResponse", fetch.correlationId)).toBeUndefined();
    net.runFor(ms(5));
    const delivered = net.received("FetchResponse", fetch.correlationId)[0];
    expect(delivered?.at).toBe(sentAt + ms(1) + ms(500) + ms(1));
    expect(delivered?.message.responses[0]?.partitions[0]).toMatchObject({ errorCode: 0, highWatermark: 1, records: [] });
  });

  it("waits for min bytes across partitions, not for the first byte", () => {
    const net = singleBroker();
    const fetch = fetchRequest(
      [
        { topic: "t", partition: 0, fetchOffset: 0 },
        { topic: "t", partition: 1, fetchOffset: 0 },
      ],
      { maxWaitMs: 1000, minBytes: 150 },
    );
    net.send("client", "broker-0", fetch);
    net.runFor(ms(10));
    produce(net, 0, [100]);
    expect(answer(net, "FetchResponse", fetch.correlationId)).toBeUndefined();
    produce(net, 1, [100]);
    const partitions = answer(net, "FetchResponse", fetch.correlationId)?.responses.flatMap((t) => t.partitions) ?? [];
    expect(partitions.map((p) => sizesOf(p.records))).toEqual([[100], [100]]);
  });

  it("reads partitions in request order with a shrinking budget: min(max.partition.fetch.bytes, what is left of fetch.max.bytes)", () => {
    const net = singleBroker();
    for (const p of [0, 1, 2]) produce(net, p, [100, 100, 100]);
    const partitions = fetchNow(
      net,
      fetchRequest(
        [
          { topic: "t", partition: 2, fetchOffset: 0, partitionMaxBytes: 250 },
          { topic: "t", partition: 0, fetchOffset: 0, partitionMaxBytes: 150 },
          { topic: "t", partition: 1, fetchOffset: 0, partitionMaxBytes: 250 },
        ],
        { maxBytes: 350 },
      ),
    );
    expect(partitions.map((p) => p.partitionIndex)).toEqual([2, 0, 1]);
    // p2: 2 batches (250 allows 200); p0: 1 (150 allows 100); p1: min(250, 350 - 300 = 50) allows none.
    expect(partitions.map((p) => sizesOf(p.records))).toEqual([[100, 100], [100], []]);
  });

  it("caps the request's max bytes at the broker's fetch.max.bytes", () => {
    const net = singleBroker({ "fetch.max.bytes": 1024 });
    produce(net, 0, [400, 400, 400]);
    const partitions = fetchNow(net, fetchRequest([{ topic: "t", partition: 0, fetchOffset: 0 }], { maxBytes: 1_000_000 }));
    expect(sizesOf(partitions[0]?.records ?? [])).toEqual([400, 400]);
  });

  it("returns the first batch of the first partition with data whole even above both limits, once per response", () => {
    const net = singleBroker();
    produce(net, 0, [500, 10]);
    produce(net, 1, [500]);
    const oversizedFirst = fetchNow(
      net,
      fetchRequest(
        [
          { topic: "t", partition: 0, fetchOffset: 0, partitionMaxBytes: 100 },
          { topic: "t", partition: 1, fetchOffset: 0, partitionMaxBytes: 100 },
        ],
        { maxBytes: 200 },
      ),
    );
    // p0's 500-byte batch comes whole (and alone); p1's does not: the exception is spent.
    expect(oversizedFirst.map((p) => sizesOf(p.records))).toEqual([[500], []]);

    // An empty first partition does not spend the exception: p1 is the first to return data.
    const emptyFirst = fetchNow(
      net,
      fetchRequest(
        [
          { topic: "t", partition: 2, fetchOffset: 0, partitionMaxBytes: 100 },
          { topic: "t", partition: 1, fetchOffset: 0, partitionMaxBytes: 100 },
        ],
        { maxBytes: 200 },
      ),
    );
    expect(emptyFirst.map((p) => sizesOf(p.records))).toEqual([[], [500]]);

    // A small first batch spends it: the oversized batch behind it stays strict.
    produce(net, 2, [50]);
    const smallFirst = fetchNow(
      net,
      fetchRequest(
        [
          { topic: "t", partition: 2, fetchOffset: 0, partitionMaxBytes: 100 },
          { topic: "t", partition: 1, fetchOffset: 0, partitionMaxBytes: 100 },
        ],
        { maxBytes: 200 },
      ),
    );
    expect(smallFirst.map((p) => sizesOf(p.records))).toEqual([[50], []]);
  });

  it("answers OFFSET_OUT_OF_RANGE above the log end and below the log start, at once", () => {
    const net = singleBroker();
    produce(net, 0, [10, 10, 10]);
    const above = fetchNow(net, fetchRequest([{ topic: "t", partition: 0, fetchOffset: 4 }], { maxWaitMs: 500 }));
    expect(above[0]).toMatchObject({ errorCode: ErrorCode.OFFSET_OUT_OF_RANGE, highWatermark: -1, logStartOffset: -1 });
    // At the log end is fine: an empty answer.
    expect(fetchNow(net, fetchRequest([{ topic: "t", partition: 0, fetchOffset: 3 }]))[0]?.errorCode).toBe(ErrorCode.NONE);

    net.control("broker-0", { command: "delete-records", topic: "t", partition: 0, offset: 2 });
    const below = fetchNow(net, fetchRequest([{ topic: "t", partition: 0, fetchOffset: 1 }]));
    expect(below[0]?.errorCode).toBe(ErrorCode.OFFSET_OUT_OF_RANGE);
    const ok = fetchNow(net, fetchRequest([{ topic: "t", partition: 0, fetchOffset: 2 }]));
    expect(ok[0]).toMatchObject({ errorCode: 0, logStartOffset: 2, highWatermark: 3 });

    const earliest = listOffsetsRequest("t", 0, -2);
    const latest = listOffsetsRequest("t", 0, -1);
    net.send("client", "broker-0", earliest);
    net.send("client", "broker-0", latest);
    net.runFor(ms(3));
    expect(answer(net, "ListOffsetsResponse", earliest.correlationId)?.topics[0]?.partitions[0]).toMatchObject({ errorCode: 0, offset: 2 });
    expect(answer(net, "ListOffsetsResponse", latest.correlationId)?.topics[0]?.partitions[0]).toMatchObject({
      errorCode: 0,
      offset: 3,
      leaderEpoch: 0,
    });
  });

  it("serves fetch sessions through the FetchManager and reports them", () => {
    const net = singleBroker();
    produce(net, 0, [10]);
    const full = fetchRequest([{ topic: "t", partition: 0, fetchOffset: 0 }], { sessionEpoch: 0 });
    net.send("client", "broker-0", full);
    net.runFor(ms(3));
    const sessionId = answer(net, "FetchResponse", full.correlationId)?.sessionId ?? 0;
    expect(sessionId).toBeGreaterThan(0);
    expect(net.observed("broker.fetch-session").map((o) => o.event)).toEqual([
      { type: "broker.fetch-session", event: "created", sessionId, partitions: 1, privileged: false },
    ]);
    const unknown = { ...fetchRequest([], {}), sessionId: sessionId + 1, sessionEpoch: 1 };
    net.send("client", "broker-0", unknown);
    net.runFor(ms(3));
    expect(answer(net, "FetchResponse", unknown.correlationId)?.errorCode).toBe(ErrorCode.FETCH_SESSION_ID_NOT_FOUND);
    const metrics = (net.snapshot("broker-0") as { fetchSessionCache: Record<string, unknown> }).fetchSessionCache;
    expect(metrics).toMatchObject({ NumIncrementalFetchSessions: 1, NumIncrementalFetchPartitionsCached: 1 });
  });

  it("reports a full cache and the eviction of a consumer session by a privileged (follower) one", () => {
    // One slot per shard: eight sessions fill the cache.
    const net = singleBroker({ "max.incremental.fetch.session.cache.slots": 8 });
    const open = (replicaId = -1) => {
      const request = fetchRequest([{ topic: "t", partition: 0, fetchOffset: 0 }], { sessionEpoch: 0, replicaId });
      net.send("client", "broker-0", request);
      net.runFor(ms(3));
      return answer(net, "FetchResponse", request.correlationId)?.sessionId ?? -1;
    };
    const ids = Array.from({ length: 8 }, () => open());
    expect(ids.every((id) => id > 0)).toBe(true);
    expect(open()).toBe(0);
    // A fetch with a replica id is privileged; it may evict any unprivileged session (its read fails: not a replica).
    expect(open(7)).toBeGreaterThan(0);
    const events = net.observed("broker.fetch-session").map((o) => o.event);
    expect(events.slice(8).map((e) => [e.event, e.privileged])).toEqual([
      ["cache-full", false],
      ["evicted", false],
      ["created", true],
    ]);
    expect(ids).toContain(events[9]?.sessionId);
    expect(
      (net.snapshot("broker-0") as { fetchSessionCache: { IncrementalFetchSessionEvictionsPerSec: { count: number } } }).fetchSessionCache,
    ).toMatchObject({ NumIncrementalFetchSessions: 8, IncrementalFetchSessionEvictionsPerSec: { count: 1 } });
  });
});
