import { type ListOffsetsRequest, ListOffsetsTimestamp, ms } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { FakeCluster, FetcherWorld, newFetcher, P0, P1, requestedPartitions, startedWorld } from "./fetcher-fixtures.js";

/** A world whose partitions are assigned without a position; P0's log holds offsets 5..11 (0..4 deleted). */
function worldWithLog(config: Record<string, string | number> = {}): FetcherWorld {
  const world = new FetcherWorld(new FakeCluster(3), newFetcher(config));
  world.cluster.produce(P0, 5);
  world.cluster.produce(P0, 7);
  world.cluster.truncateBefore(P0, 5);
  world.act((f, ctx) => f.assign([P0], ctx));
  return world;
}

function listOffsets(world: FetcherWorld): ListOffsetsRequest[] {
  return world.requestsOfType("ListOffsetsRequest").map((r) => r.message as ListOffsetsRequest);
}

describe("Fetcher positions", () => {
  it("has no position and fetches nothing until seeked or reset", () => {
    const world = worldWithLog();
    world.run(ms(1_000));
    expect(world.fetcher.position(P0)).toBeNull();
    expect(world.fetchRequests()).toEqual([]);
    world.act((f, ctx) => f.seek(P0, 9, ctx));
    world.run(ms(10));
    expect(world.act((f, ctx) => f.poll(500, ctx).records()).map((r) => r.offset)).toEqual([9, 10, 11]);
  });

  it("resets to the log start with earliest", () => {
    const world = worldWithLog();
    world.act((f, ctx) => f.resetPosition(P0, "earliest", ctx));
    expect(world.fetcher.position(P0)).toBeNull();
    world.run(ms(20));
    const [request] = listOffsets(world);
    expect(request?.topics).toEqual([
      { name: "orders", partitions: [{ partitionIndex: 0, currentLeaderEpoch: 0, timestamp: ListOffsetsTimestamp.EARLIEST }] },
    ]);
    expect(request).toMatchObject({ replicaId: -1, isolationLevel: 0 });
    expect(world.fetcher.position(P0)).toBe(5);
    expect(world.ctx.observed("fetch.reset")).toEqual([
      { type: "fetch.reset", topic: "orders", partition: 0, strategy: "earliest", offset: 5, reason: "no-committed-offset" },
    ]);
    expect(world.act((f, ctx) => f.poll(500, ctx).records()).map((r) => r.offset)).toEqual([5, 6, 7, 8, 9, 10, 11]);
  });

  it("resets to the log end with latest, and then sees only new records", () => {
    const world = worldWithLog({ "isolation.level": "read_committed" });
    world.act((f, ctx) => f.resetPosition(P0, "latest", ctx));
    world.run(ms(20));
    expect(listOffsets(world)[0]?.topics[0]?.partitions[0]?.timestamp).toBe(ListOffsetsTimestamp.LATEST);
    expect(listOffsets(world)[0]?.isolationLevel).toBe(1);
    expect(world.fetcher.position(P0)).toBe(12);
    expect(world.ctx.observed("fetch.reset")[0]).toMatchObject({ strategy: "latest", offset: 12, reason: "no-committed-offset" });
    world.cluster.produce(P0, 2);
    world.run(ms(600));
    expect(world.act((f, ctx) => f.poll(500, ctx).records()).map((r) => r.offset)).toEqual([12, 13]);
  });

  it("reports no-offset for reset=none and sends nothing", () => {
    const world = worldWithLog();
    world.act((f, ctx) => f.resetPosition(P0, "none", ctx));
    world.run(ms(1_000));
    expect(world.fetcher.takePositionProblems()).toEqual([{ partition: P0, problem: "no-offset" }]);
    expect(world.fetcher.takePositionProblems()).toEqual([]);
    expect(listOffsets(world)).toEqual([]);
    expect(world.fetchRequests()).toEqual([]);
    expect(world.fetcher.position(P0)).toBeNull();
  });

  it("ignores a reset answer for a partition seeked meanwhile", () => {
    const world = worldWithLog();
    world.act((f, ctx) => f.resetPosition(P0, "earliest", ctx));
    world.runUntil(ms(3));
    expect(listOffsets(world)).toHaveLength(1);
    world.act((f, ctx) => f.seek(P0, 10, ctx));
    world.run(ms(20));
    expect(world.ctx.observed("fetch.reset")).toEqual([]);
    expect(world.fetcher.position(P0)).toBe(10);
    expect(world.act((f, ctx) => f.poll(500, ctx).records()).map((r) => r.offset)).toEqual([10, 11]);
  });

  it("retries a reset after the backoff when the leader answers with an error", () => {
    const world = worldWithLog({ "retry.backoff.ms": 50 });
    world.cluster.moveLeader(P0, 2);
    // broker-1 still believes it leads: its stale metadata sends the ListOffsets to the wrong broker.
    world.cluster.staleMetadata.set(1, new Map([["orders-0", { leader: 1, leaderEpoch: 0 }]]));
    world.cluster.staleMetadata.set(2, new Map([["orders-0", { leader: 1, leaderEpoch: 0 }]]));
    world.act((f, ctx) => f.resetPosition(P0, "earliest", ctx));
    world.run(ms(20));
    expect(listOffsets(world)).toHaveLength(1);
    expect(world.fetcher.position(P0)).toBeNull();
    world.cluster.staleMetadata.clear();
    world.run(ms(200));
    const requests = world.requestsOfType("ListOffsetsRequest");
    expect(requests.at(-1)?.to).toBe("broker-2");
    expect(world.fetcher.position(P0)).toBe(5);
  });

  it("resets by auto.offset.reset on OFFSET_OUT_OF_RANGE", () => {
    const world = worldWithLog({ "auto.offset.reset": "earliest" });
    world.act((f, ctx) => f.seek(P0, 2, ctx)); // deleted by retention
    world.run(ms(20));
    expect(world.fetcher.position(P0)).toBe(5);
    expect(world.ctx.observed("fetch.reset")).toEqual([
      { type: "fetch.reset", topic: "orders", partition: 0, strategy: "earliest", offset: 5, reason: "out-of-range" },
    ]);
    expect(world.ctx.observed("fetch.round")[0]).toMatchObject({ error: "NONE", records: 0 });
    expect(world.act((f, ctx) => f.poll(500, ctx).records()).map((r) => r.offset)[0]).toBe(5);
  });

  it("with reset=none reports OFFSET_OUT_OF_RANGE once and stops fetching the partition until it is seeked", () => {
    const world = worldWithLog({ "auto.offset.reset": "none" });
    world.act((f, ctx) => f.seek(P0, 40, ctx));
    world.run(ms(1_000));
    expect(world.fetcher.takePositionProblems()).toEqual([{ partition: P0, problem: "out-of-range" }]);
    expect(world.fetchRequests()).toHaveLength(1);
    expect(world.fetcher.position(P0)).toBe(40);
    expect(listOffsets(world)).toEqual([]);
    world.act((f, ctx) => f.seek(P0, 11, ctx));
    world.run(ms(10));
    expect(world.act((f, ctx) => f.poll(500, ctx).records()).map((r) => r.offset)).toEqual([11]);
  });

  it("ignores OFFSET_OUT_OF_RANGE for an offset the partition no longer has", () => {
    const world = worldWithLog({ "auto.offset.reset": "latest" });
    world.act((f, ctx) => f.seek(P0, 1, ctx));
    world.runUntil(ms(3));
    world.act((f, ctx) => f.seek(P0, 6, ctx));
    world.run(ms(10));
    expect(world.ctx.observed("fetch.reset")).toEqual([]);
    expect(world.act((f, ctx) => f.poll(500, ctx).records()).map((r) => r.offset)[0]).toBe(6);
  });

  it("keeps positions of partitions kept across an assignment change", () => {
    const world = startedWorld({ partitions: [P0] });
    world.cluster.produce(P0, 3);
    world.run(ms(10));
    world.act((f, ctx) => f.poll(500, ctx).records());
    world.act((f, ctx) => f.assign([P0, P1], ctx));
    expect(world.fetcher.position(P0)).toBe(3);
    expect(world.fetcher.position(P1)).toBeNull();
    world.run(ms(600));
    for (const { request } of world.fetchRequests()) expect(requestedPartitions(request).map((p) => p.key)).not.toContain("orders-1");
  });
});
