import { ms } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { forgottenPartitions, P0, P1, requestedPartitions, startedWorld } from "./fetcher-fixtures.js";

function offsets(records: readonly { offset: number }[]): number[] {
  return records.map((r) => r.offset);
}

function fetchedKeys(world: ReturnType<typeof startedWorld>, index: number): string[] {
  const request = world.fetchRequests()[index]?.request;
  if (request === undefined) throw new Error(`no fetch request #${index}`);
  return requestedPartitions(request).map((p) => `${p.key}@${p.offset}`);
}

describe("Fetcher poll", () => {
  it("hands out at most max.poll.records per poll, in offset order, advancing the position", () => {
    const world = startedWorld({ config: { "max.poll.records": 4 } });
    world.cluster.produce(P0, 6);
    world.cluster.produce(P0, 4);
    world.run(ms(10));
    expect(world.fetcher.hasRecords()).toBe(true);
    const first = world.act((f, ctx) => f.poll(500, ctx).records());
    expect(offsets(first)).toEqual([0, 1, 2, 3]);
    expect(first[0]).toMatchObject({ topic: "orders", partition: 0, value: "v0", key: null, sizeInBytes: 100, timestampMs: 1_000 });
    expect(world.fetcher.position(P0)).toBe(4);
    // The caller's own limit applies too.
    expect(offsets(world.act((f, ctx) => f.poll(2, ctx).records()))).toEqual([4, 5]);
    expect(offsets(world.act((f, ctx) => f.poll(500, ctx).records()))).toEqual([6, 7, 8, 9]);
    expect(world.fetcher.position(P0)).toBe(10);
    expect(world.fetcher.hasRecords()).toBe(false);
    expect(world.act((f, ctx) => f.poll(500, ctx).records())).toEqual([]);
    expect(world.fetcher.lag(P0)).toBe(0);
  });

  it("prefetches: a partition is fetched again the moment its data is consumed, before the application processes it", () => {
    const world = startedWorld({ partitions: [P0, P1], leaderOf: (p) => p + 1, config: { "max.poll.records": 4 } });
    world.cluster.produce(P0, 6);
    world.cluster.produce(P1, 3);
    world.run(ms(10));
    const before = world.fetchRequests().length;
    // P0 still holds 2 of its 6 records after this poll: it is not fetched again yet.
    expect(offsets(world.act((f, ctx) => f.poll(500, ctx).records()))).toEqual([0, 1, 2, 3]);
    expect(world.fetchRequests().length).toBe(before);
    // This poll drains P0 and starts P1; P0's next fetch leaves inside the same poll.
    const second = world.act((f, ctx) => f.poll(500, ctx).records());
    expect(second.map((r) => `${r.partition}:${r.offset}`)).toEqual(["0:4", "0:5", "1:0", "1:1"]);
    const sent = world.fetchRequests().slice(before);
    expect(sent.map((s) => s.to)).toEqual(["broker-1"]);
    expect(requestedPartitions(sent[0]!.request).map((p) => `${p.key}@${p.offset}`)).toEqual(["orders-0@6"]);
    // Records arrive for P0 while the application still has P1's last record to take.
    world.cluster.produce(P0, 2);
    world.run(ms(5));
    const third = world.act((f, ctx) => f.poll(500, ctx).records());
    expect(third.map((r) => `${r.partition}:${r.offset}`)).toEqual(["1:2", "0:6", "0:7"]);
  });

  it("never fetches a paused partition and drops its buffered and in-flight data; resuming fetches from its position", () => {
    const world = startedWorld({ partitions: [P0, P1] });
    world.cluster.produce(P0, 3);
    world.runUntil(ms(3)); // the first fetch is on its way to the broker
    expect(world.fetchRequests()).toHaveLength(1);
    world.act((f, ctx) => f.setFetchable([P0], false, ctx));
    world.run(ms(5));
    expect(world.fetcher.hasRecords()).toBe(false);
    expect(world.act((f, ctx) => f.poll(500, ctx).records())).toEqual([]);
    expect(world.fetcher.position(P0)).toBe(0);
    // The next fetch drops P0 from the session.
    expect(fetchedKeys(world, 1)).toEqual([]);
    expect(forgottenPartitions(world.fetchRequests()[1]!.request)).toEqual(["orders-0"]);
    world.run(ms(2_000));
    for (let i = 1; i < world.fetchRequests().length; i++) expect(fetchedKeys(world, i)).not.toContain("orders-0@0");

    world.act((f, ctx) => f.setFetchable([P0], true, ctx));
    world.run(ms(600));
    expect(world.fetchRequests().some(({ request }) => requestedPartitions(request).some((p) => p.key === "orders-0"))).toBe(true);
    expect(offsets(world.act((f, ctx) => f.poll(500, ctx).records()))).toEqual([0, 1, 2]);
  });

  it("drops buffered data when a partition is paused after it arrived", () => {
    const world = startedWorld();
    world.cluster.produce(P0, 3);
    world.run(ms(10));
    expect(world.fetcher.hasRecords()).toBe(true);
    world.act((f, ctx) => f.setFetchable([P0], false, ctx));
    expect(world.fetcher.hasRecords()).toBe(false);
    expect(world.act((f, ctx) => f.poll(500, ctx).records())).toEqual([]);
    world.act((f, ctx) => f.setFetchable([P0], true, ctx));
    world.run(ms(10));
    expect(offsets(world.act((f, ctx) => f.poll(500, ctx).records()))).toEqual([0, 1, 2]);
  });

  it("drops the in-flight data of a revoked partition and forgets it in the session", () => {
    const world = startedWorld({ partitions: [P0, P1] });
    world.cluster.produce(P0, 3);
    world.cluster.produce(P1, 2);
    world.runUntil(ms(3));
    world.act((f, ctx) => f.assign([P1], ctx));
    expect(world.fetcher.position(P0)).toBeNull();
    world.run(ms(10));
    const records = world.act((f, ctx) => f.poll(500, ctx).records());
    expect(records.map((r) => `${r.partition}:${r.offset}`)).toEqual(["1:0", "1:1"]);
    const later = world.fetchRequests().slice(1);
    expect(later.length).toBeGreaterThan(0);
    expect(forgottenPartitions(later[0]!.request)).toContain("orders-0");
    for (const { request } of later) expect(requestedPartitions(request).map((p) => p.key)).not.toContain("orders-0");
  });

  it("drops an answer fetched at an offset the partition has since seeked away from", () => {
    const world = startedWorld();
    world.cluster.produce(P0, 10);
    world.runUntil(ms(3));
    world.act((f, ctx) => f.seek(P0, 7, ctx));
    world.run(ms(10));
    expect(offsets(world.act((f, ctx) => f.poll(500, ctx).records()))).toEqual([7, 8, 9]);
    expect(fetchedKeys(world, 1)).toEqual(["orders-0@7"]);
  });

  it("skips records before the fetch offset in a batch returned whole", () => {
    const world = startedWorld({ seekTo: 3 });
    world.cluster.produce(P0, 6);
    world.run(ms(10));
    expect(offsets(world.act((f, ctx) => f.poll(500, ctx).records()))).toEqual([3, 4, 5]);
    expect(world.fetcher.position(P0)).toBe(6);
  });

  it("never hands out control records, but consumes their offsets", () => {
    const world = startedWorld({ config: { "max.poll.records": 3 } });
    world.cluster.produce(P0, 3);
    world.cluster.produceControl(P0); // offset 3
    world.cluster.produce(P0, 2);
    world.cluster.produceControl(P0); // offset 6
    world.run(ms(10));
    // The marker after the third record is consumed with it.
    expect(offsets(world.act((f, ctx) => f.poll(500, ctx).records()))).toEqual([0, 1, 2]);
    expect(world.fetcher.position(P0)).toBe(4);
    expect(offsets(world.act((f, ctx) => f.poll(500, ctx).records()))).toEqual([4, 5]);
    expect(world.fetcher.position(P0)).toBe(7);

    // A fetch that returns only a marker moves the position without handing anything out.
    world.cluster.produceControl(P0); // offset 7
    world.run(ms(600));
    expect(world.fetcher.hasRecords()).toBe(false);
    expect(world.fetcher.position(P0)).toBe(8);
    expect(world.ctx.observed("fetch.round").some((o) => o.records === 0 && Number(o.responseBytes) > 100)).toBe(true);
  });
});
