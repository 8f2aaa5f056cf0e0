import { type FetchRequest, ms } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { FETCH_WAKEUP_TIMER, type FetchRoundObservation } from "../src/index.js";
import { forgottenPartitions, P0, P1, P2, requestedPartitions, startedWorld } from "./fetcher-fixtures.js";

/** The fetch.round observations so far. */
function rounds(world: ReturnType<typeof startedWorld>): FetchRoundObservation[] {
  return world.ctx.observed("fetch.round") as unknown as FetchRoundObservation[];
}

function keys(request: FetchRequest): string[] {
  return requestedPartitions(request).map((p) => `${p.key}@${p.offset}`);
}

describe("Fetcher fetch sessions (KIP-227)", () => {
  it("sends a full request with every fetchable partition, then incremental ones in the broker's session", () => {
    const world = startedWorld({ partitions: [P0, P1] });
    world.cluster.produce(P0, 3);
    world.run(ms(10));

    const [first, second] = world.fetchRequests();
    expect(first?.request).toMatchObject({ sessionId: 0, sessionEpoch: 0, maxWaitMs: 500, minBytes: 1, maxBytes: 52_428_800 });
    expect(keys(first!.request)).toEqual(["orders-0@0", "orders-1@0"]);
    expect(first!.request.topics[0]?.partitions[0]?.partitionMaxBytes).toBe(1_048_576);
    const [full] = rounds(world);
    expect(full).toMatchObject({ broker: "broker-1", full: true, requestPartitions: 2, records: 3, error: "NONE" });
    expect(full!.sessionId).toBeGreaterThan(0);
    expect(full!.requestBytes).toBeGreaterThan(0);
    expect(full!.responseBytes).toBeGreaterThan(3 * 100);

    // P0's records are buffered, so the next fetch (sent at once: prefetch) leaves it out of the session;
    // P1 is unchanged, so the incremental request lists nothing.
    expect(second?.request).toMatchObject({ sessionId: full!.sessionId, sessionEpoch: 1 });
    expect(keys(second!.request)).toEqual([]);
    expect(forgottenPartitions(second!.request)).toEqual(["orders-0"]);

    expect(world.act((f, ctx) => f.poll(500, ctx).records()).map((r) => r.offset)).toEqual([0, 1, 2]);
    // P1's long poll is still out: nothing more goes to the broker until it returns.
    expect(world.fetchRequests()).toHaveLength(2);
    world.run(ms(600));
    const third = world.fetchRequests()[2]?.request;
    expect(third).toMatchObject({ sessionId: full!.sessionId, sessionEpoch: 2 });
    expect(keys(third!)).toEqual(["orders-0@3"]);
    expect(
      rounds(world)
        .slice(1)
        .every((r) => !r.full),
    ).toBe(true);
  });

  it("keeps one session and at most one fetch in flight per broker", () => {
    const world = startedWorld({ partitions: [P0, P1, P2], leaderOf: (p) => (p === 1 ? 2 : 1) });
    world.run(ms(3_000));
    const byBroker = new Map<string, FetchRequest[]>();
    for (const { to, request } of world.fetchRequests()) byBroker.set(to, [...(byBroker.get(to) ?? []), request]);
    expect(keys(byBroker.get("broker-1")![0]!)).toEqual(["orders-0@0", "orders-2@0"]);
    expect(keys(byBroker.get("broker-2")![0]!)).toEqual(["orders-1@0"]);
    for (const requests of byBroker.values()) {
      expect(requests[0]!.sessionEpoch).toBe(0);
      // Each later request continues the broker's one session.
      expect(requests.slice(1).map((r) => r.sessionEpoch)).toEqual(requests.slice(1).map((_, i) => i + 1));
      expect(new Set(requests.slice(1).map((r) => r.sessionId)).size).toBe(1);
    }
    // Long polls of 500 ms, answered one at a time: about 6 rounds per broker in 3 s.
    expect(byBroker.get("broker-1")!.length).toBeGreaterThanOrEqual(5);
    expect(byBroker.get("broker-1")!.length).toBeLessThanOrEqual(7);
    const inFlight = world.inFlight().filter((m) => m.message.type === "FetchRequest" || m.message.type === "FetchResponse");
    expect(inFlight.length).toBeLessThanOrEqual(2);
  });

  it("starts over with (0, 0) after FETCH_SESSION_ID_NOT_FOUND (the broker evicted the session)", () => {
    const world = startedWorld();
    world.run(ms(1_100));
    const sessionId = rounds(world)[0]!.sessionId;
    world.cluster.sessions.get(1)!.cache.remove(sessionId);
    world.cluster.produce(P0, 2);
    world.run(ms(600));
    const errorRound = rounds(world).find((r) => r.error === "FETCH_SESSION_ID_NOT_FOUND");
    expect(errorRound).toMatchObject({ full: false, sessionId });
    const after = world.fetchRequests().at(-1)!.request;
    expect(after).toMatchObject({ sessionId: 0, sessionEpoch: 0 });
    expect(keys(after)).toEqual(["orders-0@0"]);
    const last = rounds(world).at(-1)!;
    expect(last).toMatchObject({ full: true, error: "NONE", records: 2 });
    expect(last.sessionId).not.toBe(sessionId);
    expect(world.act((f, ctx) => f.poll(500, ctx).records()).map((r) => r.offset)).toEqual([0, 1]);
  });

  it("closes and recreates the session with (id, 0) after INVALID_FETCH_SESSION_EPOCH", () => {
    const world = startedWorld();
    world.run(ms(1_100));
    const sessionId = rounds(world)[0]!.sessionId;
    const session = world.cluster.sessions.get(1)!.cache.get(sessionId)!;
    session.epoch += 5;
    world.cluster.produce(P0, 1);
    world.run(ms(600));
    const errorIndex = rounds(world).findIndex((r) => r.error === "INVALID_FETCH_SESSION_EPOCH");
    expect(errorIndex).toBeGreaterThan(0);
    const retry = world.fetchRequests()[errorIndex + 1]!.request;
    expect(retry).toMatchObject({ sessionId, sessionEpoch: 0 });
    expect(keys(retry)).toEqual(["orders-0@0"]);
    expect(rounds(world)[errorIndex + 1]).toMatchObject({ full: true, error: "NONE", records: 1 });
    // The broker dropped the old session when the full request named it, and made a new one.
    expect(world.cluster.sessions.get(1)!.cache.get(sessionId)).toBeUndefined();
    expect(world.cluster.sessions.get(1)!.cache.size).toBe(1);
  });

  it("recovers from a lost response: timeout, reconnect backoff, metadata refresh, then a full request", () => {
    const world = startedWorld({ config: { "request.timeout.ms": 2_000 } });
    world.run(ms(600));
    const sessionId = rounds(world)[0]!.sessionId;
    // Lose every fetch answer from now until the request times out.
    let losing = true;
    world.intercept = (_from, message) => (losing && message.type === "FetchResponse" ? null : message);
    world.run(ms(1_000));
    const lostAt = world.ctx.now();
    const lost = world.fetchRequests().length;
    losing = false;
    world.cluster.produce(P0, 4);
    world.run(ms(2_000));

    const timedOut = rounds(world).find((r) => r.error === "REQUEST_TIMED_OUT");
    expect(timedOut).toMatchObject({ full: false, sessionId, responseBytes: 0, records: 0 });
    // A fresh metadata request followed the timeout, and the next fetch is full, naming the old session to close it.
    const metadata = world.requestsOfType("MetadataRequest");
    expect(metadata.length).toBe(2);
    const retry = world.fetchRequests()[lost]!.request;
    expect(retry).toMatchObject({ sessionId, sessionEpoch: 0 });
    expect(world.ctx.now()).toBeGreaterThan(lostAt);
    expect(world.act((f, ctx) => f.poll(500, ctx).records()).map((r) => r.offset)).toEqual([0, 1, 2, 3]);
    expect(world.ctx.warnings).toEqual([]);
  });

  it("does not send to a broker in reconnect backoff, and wakes up when the backoff ends", () => {
    const world = startedWorld({ config: { "request.timeout.ms": 1_000, "reconnect.backoff.ms": 300, "reconnect.backoff.max.ms": 300 } });
    world.run(ms(600));
    world.intercept = (_from, message) => (message.type === "FetchResponse" ? null : message);
    while (!rounds(world).some((r) => r.error === "REQUEST_TIMED_OUT")) world.run(ms(1));
    const timedOutAt = world.ctx.now();
    const fetchesBefore = world.fetchRequests().length;
    expect(world.ctx.timers.get(FETCH_WAKEUP_TIMER)).toBeLessThanOrEqual(timedOutAt + ms(300));
    world.runUntil(timedOutAt + ms(298));
    expect(world.fetchRequests().length).toBe(fetchesBefore);
    world.runUntil(timedOutAt + ms(301));
    expect(world.fetchRequests().length).toBe(fetchesBefore + 1);
    expect(world.fetchRequests().at(-1)!.request.sessionEpoch).toBe(0);
  });
});
