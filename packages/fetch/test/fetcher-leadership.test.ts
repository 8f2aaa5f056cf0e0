import { type MetadataResponse, ms } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { ClusterMetadata } from "../src/index.js";
import { metadataResponseOf, P0, P1, requestedPartitions, startedWorld, TOPICS } from "./fetcher-fixtures.js";

function metadataResponse(leaderId: number, leaderEpoch: number): MetadataResponse {
  return metadataResponseOf([{ leaderId, leaderEpoch }]);
}

describe("Fetcher leadership and metadata", () => {
  it("after NOT_LEADER_OR_FOLLOWER refreshes metadata and fetches from the new leader", () => {
    const world = startedWorld({ partitions: [P0, P1] });
    world.run(ms(600));
    world.cluster.moveLeader(P0, 2);
    world.cluster.produce(P0, 3);
    world.run(ms(1_000));

    const rounds = world.ctx.observed("fetch.round");
    const metadataRequests = world.requests.map((r, i) => ({ ...r, i })).filter((r) => r.message.type === "MetadataRequest");
    expect(metadataRequests.length).toBe(2);
    const fetches = world.requests.map((r, i) => ({ ...r, i })).filter((r) => r.message.type === "FetchRequest");
    const toNewLeader = fetches.filter((f) => f.to === "broker-2");
    expect(toNewLeader.length).toBeGreaterThan(0);
    const first = toNewLeader[0]!;
    // The new leader is asked only after the refreshed metadata, with the new leader epoch, in a new session.
    expect(first.i).toBeGreaterThan(metadataRequests[1]!.i);
    if (first.message.type !== "FetchRequest") throw new Error("not a fetch");
    expect(first.message).toMatchObject({ sessionId: 0, sessionEpoch: 0 });
    expect(requestedPartitions(first.message)).toEqual([{ key: "orders-0", offset: 0, leaderEpoch: 1 }]);
    // The old leader, meanwhile, was not asked for P0 again.
    const failing = fetches.filter((f) => f.i < first.i && f.to === "broker-1" && f.i > metadataRequests[1]!.i);
    for (const f of failing)
      if (f.message.type === "FetchRequest") expect(requestedPartitions(f.message).map((p) => p.key)).not.toContain("orders-0");
    expect(rounds.some((r) => r.broker === "broker-2" && r.records === 3)).toBe(true);
    expect(world.act((f, ctx) => f.poll(500, ctx).records()).map((r) => r.offset)).toEqual([0, 1, 2]);
    expect(world.ctx.warnings).toEqual([]);
  });

  it("after FENCED_LEADER_EPOCH fetches again with the leader epoch of the refreshed metadata", () => {
    const world = startedWorld();
    world.run(ms(600));
    world.cluster.moveLeader(P0, 1); // same broker, new epoch
    world.cluster.produce(P0, 2);
    world.run(ms(600));
    const epochs = world.fetchRequests().flatMap(({ request }) => requestedPartitions(request).map((p) => p.leaderEpoch));
    expect(epochs[0]).toBe(0);
    expect(epochs.at(-1)).toBe(1);
    expect(world.requestsOfType("MetadataRequest")).toHaveLength(2);
    expect(world.act((f, ctx) => f.poll(500, ctx).records()).map((r) => r.offset)).toEqual([0, 1]);
  });

  it("refreshes metadata every metadata.max.age.ms", () => {
    const world = startedWorld({ config: { "metadata.max.age.ms": 1_000 } });
    world.run(ms(3_500));
    expect(world.requestsOfType("MetadataRequest")).toHaveLength(4);
  });

  it("does not fetch a partition without a leader, and asks for metadata again after retry.backoff.ms", () => {
    const world = startedWorld({ config: { "retry.backoff.ms": 100, "retry.backoff.max.ms": 100 } });
    world.intercept = (_from, message) =>
      message.type === "MetadataResponse" ? { ...metadataResponse(-1, 0), correlationId: message.correlationId } : message;
    world.run(ms(1_000));
    expect(world.fetchRequests()).toEqual([]);
    const metadataRequests = world.requestsOfType("MetadataRequest").length;
    expect(metadataRequests).toBeGreaterThanOrEqual(9);
    expect(metadataRequests).toBeLessThanOrEqual(11);
    world.intercept = undefined;
    world.run(ms(200));
    expect(world.fetchRequests().length).toBe(1);
  });

  it("keeps a known leader epoch against older metadata", () => {
    const metadata = new ClusterMetadata(TOPICS);
    metadata.update(metadataResponse(2, 3));
    expect(metadata.leader(P0)).toEqual({ nodeId: 2, broker: "broker-2", epoch: 3 });
    metadata.update(metadataResponse(1, 2));
    expect(metadata.leader(P0)).toEqual({ nodeId: 2, broker: "broker-2", epoch: 3 });
    metadata.update(metadataResponse(1, 4));
    expect(metadata.leader(P0)).toEqual({ nodeId: 1, broker: "broker-1", epoch: 4 });
    expect(metadata.leader(P1)).toBeUndefined();
  });
});
