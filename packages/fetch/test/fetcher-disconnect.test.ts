import { type ActorId, type FetchRequest, type Message, type Micros, ms, type SimDisconnect } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import type { FetchRoundObservation } from "../src/index.js";
import { FakeCluster, FetcherWorld, newFetcher, P0, requestedPartitions, type SentMessage, startedWorld } from "./fetcher-fixtures.js";

const RESET: SimDisconnect = { type: "SimDisconnect", reason: "crashed", connection: "*" };

function rounds(world: FetcherWorld): FetchRoundObservation[] {
  return world.ctx.observed("fetch.round") as unknown as FetchRoundObservation[];
}

/** The requests of one type sent to one broker, with when they were sent. */
function sentTo(_world: FetcherWorld, sends: readonly { at: Micros; sent: SentMessage }[], broker: ActorId, type: Message["type"]) {
  return sends.filter(({ sent }) => sent.to === broker && sent.message.type === type);
}

/** Records every send with its time; `crashOn` crashes the addressee of the first matching send after `after` (once), before it leaves. */
function recordSends(
  world: FetcherWorld,
  crashOn?: { readonly after: Micros; readonly to: ActorId; readonly type: Message["type"]; readonly onCrash?: () => void },
): { at: Micros; sent: SentMessage }[] {
  const sends: { at: Micros; sent: SentMessage }[] = [];
  let crashed = false;
  world.onSend = (sent) => {
    const at = world.ctx.now();
    sends.push({ at, sent });
    if (crashOn === undefined || crashed || at < crashOn.after) return;
    if (sent.to !== crashOn.to || sent.message.type !== crashOn.type) return;
    crashed = true;
    world.crash(crashOn.to);
    crashOn.onCrash?.();
  };
  return sends;
}

function asFetch(message: Message): FetchRequest {
  if (message.type !== "FetchRequest") throw new Error(`not a fetch: ${message.type}`);
  return message;
}

describe("Fetcher and connection resets (SimDisconnect)", () => {
  it("fails a fetch to a crashed leader at once, refreshes metadata and fetches from the new leader without waiting request.timeout.ms", () => {
    const world = startedWorld();
    let crashAt = 0;
    const sends = recordSends(world, {
      after: ms(600),
      to: "broker-1",
      type: "FetchRequest",
      onCrash: () => {
        crashAt = world.ctx.now();
        world.cluster.moveLeader(P0, 2);
        world.cluster.produce(P0, 3);
      },
    });
    world.run(ms(1_500));
    expect(crashAt).toBeGreaterThan(0);

    // The fetch reached the dead broker one latency later; its reset came back one latency after that.
    const failed = rounds(world).filter((r) => r.error !== "NONE");
    expect(failed).toEqual([expect.objectContaining({ broker: "broker-1", error: "NETWORK_EXCEPTION" })]);
    expect(world.disconnectsTaken).toEqual([true]);
    // Metadata went to the broker that is not in reconnect backoff, and the new leader was asked at once, in a new session.
    const metadata = sends.filter(({ at, sent }) => at > crashAt && sent.message.type === "MetadataRequest");
    expect(metadata[0]).toMatchObject({ at: crashAt + ms(2), sent: { to: "broker-2" } });
    const toNewLeader = sentTo(world, sends, "broker-2", "FetchRequest");
    expect(toNewLeader[0]?.at).toBe(crashAt + ms(4));
    expect(asFetch(toNewLeader[0]!.sent.message)).toMatchObject({ sessionId: 0, sessionEpoch: 0 });
    expect(requestedPartitions(asFetch(toNewLeader[0]!.sent.message))).toEqual([{ key: "orders-0", offset: 0, leaderEpoch: 1 }]);
    expect(world.act((f, ctx) => f.poll(500, ctx).records()).map((r) => r.offset)).toEqual([0, 1, 2]);
    // The dead broker is not asked again.
    expect(sentTo(world, sends, "broker-1", "FetchRequest").filter(({ at }) => at > crashAt)).toEqual([]);
    expect(rounds(world).some((r) => r.error === "REQUEST_TIMED_OUT")).toBe(false);
  });

  it("closes the fetch session like Kafka's handleError: the next fetch to the broker is full, naming the old session at epoch 0", () => {
    const world = startedWorld();
    let crashAt = 0;
    const sends = recordSends(world, {
      after: ms(600),
      to: "broker-1",
      type: "FetchRequest",
      onCrash: () => {
        crashAt = world.ctx.now();
      },
    });
    world.run(ms(1_100));
    const before = asFetch(sentTo(world, sends, "broker-1", "FetchRequest").find(({ at }) => at === crashAt)!.sent.message);
    expect(before.sessionId).toBeGreaterThan(0);
    expect(before.sessionEpoch).toBeGreaterThan(0);
    world.restart("broker-1");
    world.run(ms(400));

    // Reset at crash + 2 ms; broker-1 waits out reconnect.backoff.ms (50 ms) and is still the leader.
    const again = sentTo(world, sends, "broker-1", "FetchRequest").filter(({ at }) => at > crashAt);
    expect(again[0]?.at).toBe(crashAt + ms(2) + ms(50));
    expect(asFetch(again[0]!.sent.message)).toMatchObject({ sessionId: before.sessionId, sessionEpoch: 0 });
    expect(requestedPartitions(asFetch(again[0]!.sent.message)).map((p) => p.key)).toEqual(["orders-0"]);
  });

  it("waits out a reconnect backoff that doubles with each consecutive reset, as long as the leader stays down", () => {
    const world = startedWorld({ config: { "reconnect.backoff.ms": 50, "reconnect.backoff.max.ms": 400 } });
    let crashAt = 0;
    const sends = recordSends(world, {
      after: ms(600),
      to: "broker-1",
      type: "FetchRequest",
      onCrash: () => {
        crashAt = world.ctx.now();
      },
    });
    world.run(ms(3_000));
    const retries = sentTo(world, sends, "broker-1", "FetchRequest")
      .filter(({ at }) => at >= crashAt)
      .map(({ at }) => at);
    // Each reset comes 2 ms after its fetch; the next fetch waits 50, 100, 200, 400, 400... ms.
    const gaps = retries.slice(1).map((at, i) => at - (retries[i] as number) - ms(2));
    expect(gaps.slice(0, 6)).toEqual([ms(50), ms(100), ms(200), ms(400), ms(400), ms(400)]);
    expect(world.disconnectsTaken.every((taken) => taken)).toBe(true);
    expect(rounds(world).filter((r) => r.error === "NETWORK_EXCEPTION")).toHaveLength(world.disconnectsTaken.length);
  });

  it("fails a ListOffsets to a crashed broker at once and retries it after retry.backoff.ms", () => {
    const world = new FetcherWorld(new FakeCluster(3), newFetcher());
    let crashAt = 0;
    const sends = recordSends(world, {
      after: 0,
      to: "broker-1",
      type: "ListOffsetsRequest",
      onCrash: () => {
        crashAt = world.ctx.now();
      },
    });
    world.cluster.produce(P0, 5);
    world.act((f, ctx) => {
      f.assign([P0], ctx);
      f.resetPosition(P0, "latest", ctx);
    });
    world.run(ms(50));
    expect(crashAt).toBeGreaterThan(0);
    expect(world.disconnectsTaken).toEqual([true]);
    world.restart("broker-1");
    world.run(ms(500));
    const asked = sentTo(world, sends, "broker-1", "ListOffsetsRequest").map(({ at }) => at);
    expect(asked).toEqual([crashAt, crashAt + ms(2) + ms(100)]);
    expect(world.act((f) => f.position(P0))).toBe(5);
  });

  it("fails a metadata request to a crashed bootstrap broker at once and gets the metadata from another one", () => {
    const world = new FetcherWorld(new FakeCluster(3), newFetcher({}, ["broker-1", "broker-2"]));
    let crashed: ActorId | undefined;
    const sends: { at: Micros; sent: SentMessage }[] = [];
    world.onSend = (sent) => {
      sends.push({ at: world.ctx.now(), sent });
      if (crashed === undefined && sent.message.type === "MetadataRequest") {
        crashed = sent.to;
        world.crash(sent.to);
      }
    };
    world.act((f, ctx) => {
      f.assign([P0], ctx);
      f.seek(P0, 0, ctx);
    });
    world.run(ms(1_000));
    expect(world.disconnectsTaken[0]).toBe(true);
    const metadata = sends.filter(({ sent }) => sent.message.type === "MetadataRequest");
    // retry.backoff.ms doubled by the failure (200 ms) after the reset at +2 ms.
    expect(metadata[1]?.at).toBe(ms(2) + ms(200));
    // Fetching started long before request.timeout.ms (30 s), from broker-1 unless it is the one that crashed.
    const firstFetch = sends.find(({ sent }) => sent.message.type === "FetchRequest");
    expect(firstFetch).toBeDefined();
    expect(firstFetch!.at).toBeLessThan(ms(1_000));
  });

  it("leaves a SimDisconnect with nothing in flight to the member, and takes a repeated one only once", () => {
    const world = startedWorld();
    const twin = startedWorld();
    world.run(ms(600));
    twin.run(ms(600));
    // Nothing is in flight to broker-2: not the fetcher's, and nothing changes.
    const timers = new Map(world.ctx.timers);
    expect(world.act((f, ctx) => f.receive("broker-2", RESET, ctx))).toBe(false);
    expect(world.ctx.timers).toEqual(timers);
    world.run(ms(2_000));
    twin.run(ms(2_000));
    expect(world.requests).toEqual(twin.requests);
    expect(world.ctx.observations).toEqual(twin.ctx.observations);

    // A fetch is in flight (parked) at broker-1: the first reset fails it, a second one in a row finds nothing.
    const sessionId = world.fetchRequests().at(-1)!.request.sessionId;
    const sends = recordSends(world);
    const resetAt = world.ctx.now();
    expect(world.act((f, ctx) => f.receive("broker-1", RESET, ctx))).toBe(true);
    expect(world.act((f, ctx) => f.receive("broker-1", RESET, ctx))).toBe(false);
    world.run(ms(200));
    // The late answer to the failed fetch is ignored; the repeat did not double the backoff (50 ms, not 100 ms).
    const next = sentTo(world, sends, "broker-1", "FetchRequest")[0];
    expect(next?.at).toBe(resetAt + ms(50));
    expect(asFetch(next!.sent.message)).toMatchObject({ sessionId, sessionEpoch: 0 });
    expect(rounds(world).filter((r) => r.error === "NETWORK_EXCEPTION")).toHaveLength(1);
    expect(world.ctx.warnings).toEqual([]);
  });
});
