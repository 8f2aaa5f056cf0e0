import { describe, expect, it } from "vitest";
import {
  DEFAULT_NETWORK,
  type DelaySpec,
  type FaultPlan,
  type MessageFault,
  meanDelayMs,
  type PartitionFault,
  Router,
} from "../src/index.js";
import { ORPHAN_GIVE_UP_US } from "../src/router/orphaned-sockets.js";
import { LAST_SYN_US, LAST_SYNACK_US, RTO_MIN_US, TIMEOUT_INIT_US } from "../src/router/tcp-retransmission.js";

/**
 * The first retransmission at or after `healAt` of a segment first sent at `sentAt` (Linux's backoff: the RTO
 * doubles from `firstRtoUs` up to TCP_RTO_MAX, 120 s), worked out here on its own as the tests' oracle.
 */
function retransmittedAt(sentAt: number, healAt: number, firstRtoUs = RTO_MIN_US): number {
  let t = sentAt;
  let rto = firstRtoUs;
  while (t < healAt) {
    t += rto;
    rto = Math.min(rto * 2, 120_000_000);
  }
  return t;
}

const N = 10_000;
/** These tests route datagrams one by one (Router.route); connections have their own tests (connections.test.ts). */
const network = { ...DEFAULT_NETWORK, mode: "datagram", minLatencyMs: 0.5, latency: { dist: "fixed", ms: 1 } } as const;

function routerWith(messageFaults: MessageFault[], partitions: PartitionFault[] = [], seed = 42): Router {
  const plan: FaultPlan = { network, messageFaults, partitions };
  return new Router(plan, seed);
}

/** Sends N messages a -> b spaced 1 s apart (so FIFO order never holds one back) and returns the decisions. */
function sendMany(router: Router, type = "SimPing") {
  return Array.from({ length: N }, (_, i) => ({ now: i * 1_000_000, d: router.route(i * 1_000_000, "a", "b", type, 100) }));
}

describe("router statistics at a fixed seed over 10,000 messages", () => {
  it("drops with p = 0.3", () => {
    const router = routerWith([{ name: "drop", drop: { probability: 0.3 } }]);
    const dropped = sendMany(router).filter(({ d }) => d.fate === "drop").length;
    expect(dropped / N).toBeGreaterThan(0.28);
    expect(dropped / N).toBeLessThan(0.32);
    expect(router.stats.dropped).toBe(dropped);
    expect(router.stats.byFault.drop).toBe(dropped);
  });

  it("duplicates with p = 0.1, the copy arriving no earlier than the original", () => {
    const router = routerWith([{ name: "dup", duplicate: { probability: 0.1 } }]);
    const decisions = sendMany(router);
    const dups = decisions.filter(({ d }) => d.at.length === 2);
    expect(dups.length / N).toBeGreaterThan(0.09);
    expect(dups.length / N).toBeLessThan(0.11);
    for (const { d } of dups) expect(d.at[1]).toBeGreaterThanOrEqual(d.at[0] as number);
  });

  const delays: DelaySpec[] = [
    { dist: "fixed", ms: 7 },
    { dist: "uniform", minMs: 2, maxMs: 10 },
    { dist: "normal", meanMs: 20, stddevMs: 4 },
    { dist: "exponential", meanMs: 5 },
    { dist: "pareto", scaleMs: 2, shape: 3 },
  ];
  for (const delay of delays) {
    it(`delays by a ${delay.dist} distribution with its mean`, () => {
      const router = routerWith([{ name: "delay", delay }]);
      const extra = sendMany(router).map(({ now, d }) => ((d.at[0] as number) - now) / 1000 - 1); // minus the 1 ms base latency
      const mean = extra.reduce((a, b) => a + b, 0) / N;
      expect(Math.abs(mean - meanDelayMs(delay)) / meanDelayMs(delay)).toBeLessThan(0.05);
      expect(Math.min(...extra)).toBeGreaterThanOrEqual(0);
    });
  }

  it("bursts losses with Gilbert-Elliott: the loss rate matches the chain's stationary mix and losses cluster", () => {
    const ge = { pGoodToBad: 0.05, pBadToGood: 0.25, lossInGood: 0, lossInBad: 0.8 };
    const router = routerWith([{ name: "burst", drop: { gilbertElliott: ge } }]);
    const lost = sendMany(router).map(({ d }) => d.fate === "drop");
    const rate = lost.filter(Boolean).length / N;
    const expected = (ge.pGoodToBad / (ge.pGoodToBad + ge.pBadToGood)) * ge.lossInBad; // 0.133
    expect(Math.abs(rate - expected)).toBeLessThan(0.025);
    // P(loss | previous loss) is far above the unconditional rate: losses come in bursts.
    let afterLoss = 0;
    let lossAfterLoss = 0;
    for (let i = 1; i < N; i++) {
      if (lost[i - 1]) {
        afterLoss++;
        if (lost[i]) lossAfterLoss++;
      }
    }
    expect(lossAfterLoss / afterLoss).toBeGreaterThan(2 * rate);
  });

  it("keeps links FIFO, but lets reordered messages overtake", () => {
    const router = routerWith([{ name: "jitter", delay: { dist: "exponential", meanMs: 5 } }]);
    let last = 0;
    for (let i = 0; i < 1000; i++) {
      const at = router.route(i * 100, "a", "b", "X", 10).at[0] as number;
      expect(at).toBeGreaterThanOrEqual(last);
      last = at;
    }
    const reordering = routerWith([{ name: "reorder", reorder: { probability: 0.2, delay: { dist: "fixed", ms: 5 } } }]);
    const at = Array.from({ length: 1000 }, (_, i) => reordering.route(i * 100, "a", "b", "X", 10).at[0] as number);
    const overtaken = at.filter((t, i) => i + 1 < at.length && t > (at[i + 1] as number)).length;
    expect(overtaken).toBeGreaterThan(100);
    expect(reordering.stats.reordered).toBeGreaterThan(150);
  });

  it("limits bandwidth: frames queue behind each other at the configured rate", () => {
    const router = routerWith([{ name: "slow-link", bandwidth: { bytesPerSecond: 100_000 } }]);
    // 100 frames of 1000 bytes sent at once take 10 ms each to transmit.
    const at = Array.from({ length: 100 }, () => router.route(0, "a", "b", "X", 1000).at[0] as number);
    expect(at[0]).toBe(10_000 + 1000);
    expect(at[99]).toBe(100 * 10_000 + 1000);
  });

  it("scopes faults by sender, receiver, message type and time window", () => {
    const router = routerWith([
      { name: "hb-loss", from: ["member-*"], to: ["gc"], types: ["*Heartbeat*"], startMs: 100, endMs: 200, drop: { probability: 1 } },
    ]);
    expect(router.route(150_000, "member-1", "gc", "ConsumerGroupHeartbeatRequest", 10).fate).toBe("drop");
    expect(router.route(150_000, "member-1", "gc", "OffsetCommitRequest", 10).fate).toBe("deliver");
    expect(router.route(150_000, "gc", "member-1", "ConsumerGroupHeartbeatResponse", 10).fate).toBe("deliver");
    expect(router.route(150_000, "broker-1", "gc", "ConsumerGroupHeartbeatRequest", 10).fate).toBe("deliver");
    expect(router.route(99_999, "member-1", "gc", "ConsumerGroupHeartbeatRequest", 10).fate).toBe("deliver");
    expect(router.route(200_000, "member-1", "gc", "ConsumerGroupHeartbeatRequest", 10).fate).toBe("deliver");
  });

  it("never delivers sooner than the lookahead", () => {
    const router = new Router(
      { network: { ...network, minLatencyMs: 2, latency: { dist: "uniform", minMs: 0, maxMs: 3 } }, messageFaults: [], partitions: [] },
      1,
    );
    for (let i = 0; i < 1000; i++)
      expect((router.route(i * 10_000, "a", "b", "X", 1).at[0] as number) - i * 10_000).toBeGreaterThanOrEqual(2000);
  });
});

describe("partitions", () => {
  const window = { startMs: 100, endMs: 300 };
  it("one-way: blocks exactly a -> b inside the window and heals on time", () => {
    const router = routerWith([], [{ name: "p", a: ["a1", "a2"], b: ["b*"], direction: "a-to-b", ...window }]);
    expect(router.route(100_000, "a1", "b1", "X", 1).fate).toBe("partitioned");
    expect(router.route(299_999, "a2", "b9", "X", 1).fate).toBe("partitioned");
    expect(router.route(150_000, "b1", "a1", "X", 1).fate).toBe("deliver");
    expect(router.route(150_000, "a1", "a2", "X", 1).fate).toBe("deliver");
    expect(router.route(150_000, "c", "b1", "X", 1).fate).toBe("deliver");
    expect(router.route(99_999, "a1", "b1", "X", 1).fate).toBe("deliver");
    expect(router.route(300_000, "a1", "b1", "X", 1).fate).toBe("deliver");
  });

  it("b-to-a blocks only the reverse direction; two-way blocks both", () => {
    const reverse = routerWith([], [{ name: "p", a: ["a"], b: ["b"], direction: "b-to-a", ...window }]);
    expect(reverse.route(150_000, "b", "a", "X", 1).fate).toBe("partitioned");
    expect(reverse.route(150_000, "a", "b", "X", 1).fate).toBe("deliver");
    const both = routerWith([], [{ name: "p", a: ["a"], b: ["b"], direction: "two-way", ...window }]);
    expect(both.route(150_000, "b", "a", "X", 1).fate).toBe("partitioned");
    expect(both.route(150_000, "a", "b", "X", 1).fate).toBe("partitioned");
    expect(both.route(300_000, "a", "b", "X", 1).fate).toBe("deliver");
    expect(both.stats.partitioned).toBe(2);
  });
});

describe("a break and the bytes in flight on its connection", () => {
  it("loses what is due at least one lockstep window (the safe lookahead) after the break, and delivers what arrives sooner", () => {
    // A 20 ms network whose breaks are noticed after 2 ms: lockstep windows of 2 ms. The router decides a break
    // when the window of its send is over, so a delivery due inside that window must arrive on every host.
    const connections = {
      ...DEFAULT_NETWORK,
      minLatencyMs: 0.5,
      latency: { dist: "fixed", ms: 20 },
      breakDetection: { dist: "fixed", ms: 2 },
    } as const;
    const router = new Router(
      { network: connections, messageFaults: [{ name: "loss", types: ["Break"], drop: { probability: 1 } }], partitions: [] },
      7,
    );
    expect(router.lookaheadUs).toBe(500);
    expect(router.safeLookaheadUs).toBe(2_000);
    const inFlight = router.routeOnConnection(0, "server", "client", "X", 1, "client", 3);
    expect(inFlight).toMatchObject({ fate: "deliver", at: [20_000] });
    expect(router.routeOnConnection(19_000, "client", "server", "Break", 1, "client", 3).fate).toBe("broken");
    expect(router.lostWithBreak("client", 3, 20_000)).toBe(false); // 1 ms after the break: inside its window
    expect(router.lostWithBreak("client", 3, 20_999)).toBe(false);
    expect(router.lostWithBreak("client", 3, 21_000)).toBe(true); // 2 ms after: every host knows of the break
    expect(router.lostWithBreak("client", 4, 21_000)).toBe(false); // the next connection is a new one
  });
});

describe("connection mode: each connection is its own stream", () => {
  // A fixed 1 ms network; the server's answers to the client are cut from 1 s to 100 s.
  const connections = { ...DEFAULT_NETWORK, minLatencyMs: 0.5, latency: { dist: "fixed", ms: 1 } } as const;
  const cut: PartitionFault = { name: "cut", a: ["client"], b: ["server"], direction: "b-to-a", startMs: 1_000, endMs: 100_000 };
  const router = (messageFaults: MessageFault[] = []) => new Router({ network: connections, messageFaults, partitions: [cut] }, 7);

  it("a message held on one connection does not hold back a later connection between the same two actors", () => {
    const r = router();
    // Connection 1's answer, sent at 2 s, is held: TCP retransmits it at its first attempt after the heal.
    const held = r.routeOnConnection(2_000_000, "server", "client", "HeartbeatResponse", 50, "client", 1);
    const retransmitted = retransmittedAt(2_000_000, 100_000_000);
    expect(retransmitted).toBeGreaterThan(100_000_000 + 1_000_000); // the RTO had grown past the heal
    expect(held).toMatchObject({ fate: "deliver", held: true, at: [retransmitted + 1_000] });
    // The client gave connection 1 up and opened connection 2 after the heal: its handshake answer arrives in 1 ms.
    expect(r.routeOnConnection(101_000_000, "server", "client", "SimAccept", 13, "client", 2)).toMatchObject({
      fate: "deliver",
      held: false,
      at: [101_001_000],
    });
    // Connection 1 itself stays in order: a later answer on it comes no sooner than the held one.
    expect(r.routeOnConnection(101_000_000, "server", "client", "HeartbeatResponse", 50, "client", 1).at).toEqual([retransmitted + 1_000]);
    // The other direction of connection 1 was never cut, and is a stream of its own.
    expect(r.routeOnConnection(101_000_000, "client", "server", "HeartbeatRequest", 50, "client", 1).at).toEqual([101_001_000]);
  });

  it("connections the other way round between the same two actors (each a client of the other) keep apart", () => {
    const r = router();
    // The server's answer on the client's connection 3 is held; the server's request on its own connection 3 (it is that one's client) is not cut.
    const held = r.routeOnConnection(2_000_000, "server", "client", "X", 1, "client", 3);
    expect(held.held).toBe(true);
    expect(r.routeOnConnection(101_000_000, "server", "client", "Y", 1, "server", 3).at).toEqual([101_001_000]);
  });

  it("bytes held back do not take a bandwidth-limited link from the send until their retransmission", () => {
    // 1,000 bytes per second: a 100-byte message takes 100 ms to cross.
    const r = router([{ name: "slow", bandwidth: { bytesPerSecond: 1_000 } }]);
    const held = r.routeOnConnection(2_000_000, "server", "client", "X", 100, "client", 1);
    const retransmitted = retransmittedAt(2_000_000, 100_000_000);
    expect(held).toMatchObject({ held: true, at: [retransmitted + 100_000 + 1_000] });
    // After the heal, a message on the next connection crosses at once (100 ms for its bytes, 1 ms of latency).
    expect(r.routeOnConnection(101_000_000, "server", "client", "Y", 100, "client", 2).at).toEqual([101_101_000]);
    // And the link is busy while it crosses: the next one waits for it.
    expect(r.routeOnConnection(101_000_000, "server", "client", "Z", 100, "client", 2).at).toEqual([101_201_000]);
  });
});

describe("connection mode: one retransmission timer per socket, on its oldest unacknowledged segment", () => {
  // The client's bytes to the server cut from 1 s until 114.6 s (swarm seed 77211's timing: a heartbeat at 72.9 s,
  // a leave at 82 s and a join at 87.1 s, all on one connection).
  const router = () => cutUntil(114_585, "a-to-b");

  it("what the client writes behind a held segment goes out with that segment's retransmission, not on a schedule of its own", () => {
    const r = router();
    const head = r.routeOnConnection(72_904_413, "client", "server", "HeartbeatRequest", 50, "client", 1);
    const headRetransmission = retransmittedAt(72_904_413, 114_585_000);
    expect(headRetransmission).toBe(72_904_413 + 51_000_000); // its eighth retransmission
    expect(head).toMatchObject({ fate: "deliver", held: true, at: [headRetransmission + 1_000], fault: "cut" });
    // The two written later would each have been retransmitted 51 s after their own send (at 133.0 and 138.1 s):
    // they wait in the socket and go out once the head is through.
    for (const sentAt of [82_000_000, 87_142_000]) {
      expect(retransmittedAt(sentAt, 114_585_000)).toBe(sentAt + 51_000_000);
      expect(r.routeOnConnection(sentAt, "client", "server", "HeartbeatRequest", 50, "client", 1)).toMatchObject({
        fate: "deliver",
        held: true,
        at: [headRetransmission + 1_000],
        fault: "cut",
      });
    }
    // Written after the heal but before the head's retransmission: it waits for it too, and is held by the same cut.
    expect(r.routeOnConnection(115_000_000, "client", "server", "OffsetCommitRequest", 50, "client", 1)).toMatchObject({
      held: true,
      at: [headRetransmission + 1_000],
      fault: "cut",
    });
    // Once the head is through, the stream flows again; another connection was never stalled.
    expect(r.routeOnConnection(124_000_000, "client", "server", "HeartbeatRequest", 50, "client", 1)).toMatchObject({
      held: false,
      at: [124_001_000],
    });
    expect(r.routeOnConnection(116_000_000, "client", "server", "HeartbeatRequest", 50, "client", 2)).toMatchObject({
      held: false,
      at: [116_001_000],
    });
  });

  it("nothing behind a segment whose retransmission after the heal is past a closed socket's limit arrives", () => {
    const r = cutUntil(60_000, "a-to-b");
    // The head, sent at 2 s, goes next at 104.2 s after the heal at 60 s: its ninth retransmission. A request sent at
    // 30 s would on its own have gone at 81 s (its eighth); it waits behind the head instead, and the client closes
    // the socket at 32 s: neither arrives.
    const head = r.routeOnConnection(2_000_000, "client", "server", "OffsetCommitRequest", 50, "client", 1);
    expect(head.at).toEqual([104_201_000]);
    expect(retransmittedAt(30_000_000, 60_000_000)).toBe(81_000_000);
    const behind = r.routeOnConnection(30_000_000, "client", "server", "HeartbeatRequest", 50, "client", 1);
    expect(behind.at).toEqual([104_201_000]);
    r.routeOnConnection(32_000_000, "client", "server", "SimDisconnect", 10, "client", 1);
    expect(r.lostAsOrphan("client", 1, 104_201_000)).toBe(true);
  });
});

describe("connection mode: a segment whose acknowledgement a partition holds stalls its socket as a lost one does", () => {
  // The server's bytes to the client (its answers, and its acknowledgements of the client's bytes) cut from 1 s to
  // 100 s: what the client sends arrives, but its socket never hears that it did.
  const router = () => cutUntil(100_000, "b-to-a");
  const firstThrough = retransmittedAt(2_000_000, 100_000_000); // the 2 s request's first retransmission after the heal

  it("delivers the first request, lets what follows inside its first timeout out, and holds what is written after it", () => {
    const r = router();
    expect(r.routeOnConnection(2_000_000, "client", "server", "HeartbeatRequest", 50, "client", 1)).toMatchObject({
      fate: "deliver",
      held: false,
      at: [2_001_000],
    });
    // 150 ms later the congestion window still lets a segment out: it arrives, and is acknowledged with the head.
    expect(r.routeOnConnection(2_150_000, "client", "server", "OffsetCommitRequest", 50, "client", 1)).toMatchObject({
      held: false,
      at: [2_151_000],
    });
    // From the first timeout (2.2 s) the socket sends only the head again: a commit written at 7 s waits until the
    // head's retransmission after the heal is acknowledged, and goes out with it.
    expect(firstThrough).toBe(2_000_000 + 102_200_000); // the ninth retransmission, 104.2 s
    expect(r.routeOnConnection(7_000_000, "client", "server", "OffsetCommitRequest", 50, "client", 1)).toMatchObject({
      fate: "deliver",
      held: true,
      at: [firstThrough + 1_000],
      fault: "cut",
    });
    // Once acknowledged, the stream flows again; a new connection was never stalled by the old one's head.
    expect(r.routeOnConnection(firstThrough + 1, "client", "server", "HeartbeatRequest", 50, "client", 1)).toMatchObject({
      held: false,
      at: [firstThrough + 1_001],
    });
    expect(r.routeOnConnection(50_000_000, "client", "server", "HeartbeatRequest", 50, "client", 2)).toMatchObject({
      held: false,
      at: [50_001_000],
    });
  });

  it("a closed socket gives up on an unacknowledged head as on a lost one: nothing written behind it arrives", () => {
    const r = router();
    r.routeOnConnection(2_000_000, "client", "server", "HeartbeatRequest", 50, "client", 1);
    const behind = r.routeOnConnection(7_000_000, "client", "server", "OffsetCommitRequest", 50, "client", 1);
    expect(behind.at).toEqual([firstThrough + 1_000]);
    expect(firstThrough - 2_000_000).toBeGreaterThanOrEqual(ORPHAN_GIVE_UP_US); // the ninth retransmission
    r.routeOnConnection(32_000_000, "client", "server", "SimDisconnect", 10, "client", 1);
    expect(r.lostAsOrphan("client", 1, firstThrough + 1_000)).toBe(true);
  });

  it("the segment in flight when a two-way cut begins is the head: what follows backs off on its timer", () => {
    const r = cutUntil(60_000, "two-way");
    // Sent 0.5 ms before the cut: it arrives at 1.0005 s, inside the cut, so its acknowledgement does not come back.
    expect(r.routeOnConnection(999_500, "client", "server", "HeartbeatRequest", 50, "client", 1).at).toEqual([1_000_500]);
    // A request written at 1.5 s goes with the head's retransmission after the heal, not with its own.
    const head = retransmittedAt(999_500, 60_000_000);
    expect(head).not.toBe(retransmittedAt(1_500_000, 60_000_000));
    expect(r.routeOnConnection(1_500_000, "client", "server", "OffsetCommitRequest", 50, "client", 1)).toMatchObject({
      held: true,
      at: [head + 1_000],
    });
  });

  it("a segment held by a cut one way and then acknowledged only once the other way heals keeps its stream waiting", () => {
    // Client to server cut from 1 s to 10 s, server to client from 1 s to 30 s.
    const connections = { ...DEFAULT_NETWORK, minLatencyMs: 0.5, latency: { dist: "fixed", ms: 1 } } as const;
    const partitions: PartitionFault[] = [
      { name: "out", a: ["client"], b: ["server"], direction: "a-to-b", startMs: 1_000, endMs: 10_000 },
      { name: "back", a: ["client"], b: ["server"], direction: "b-to-a", startMs: 1_000, endMs: 30_000 },
    ];
    const r = new Router({ network: connections, messageFaults: [], partitions }, 7);
    // The request sent at 2 s arrives with its first retransmission after 10 s (14.6 s), unacknowledged until the
    // retransmission after 30 s (53.0 s); a request written at 15 s waits for that one.
    expect(retransmittedAt(2_000_000, 10_000_000)).toBe(14_600_000);
    expect(retransmittedAt(2_000_000, 30_000_000)).toBe(53_000_000);
    expect(r.routeOnConnection(2_000_000, "client", "server", "HeartbeatRequest", 50, "client", 1).at).toEqual([14_601_000]);
    expect(r.routeOnConnection(15_000_000, "client", "server", "OffsetCommitRequest", 50, "client", 1)).toMatchObject({
      held: true,
      at: [53_001_000],
      fault: "back",
    });
  });
});

/** A fixed 1 ms network whose traffic between client and server (in `direction`) is cut from 1 s until `healMs`. */
function cutUntil(healMs: number, direction: PartitionFault["direction"]): Router {
  const connections = { ...DEFAULT_NETWORK, minLatencyMs: 0.5, latency: { dist: "fixed", ms: 1 } } as const;
  const cut: PartitionFault = { name: "cut", a: ["client"], b: ["server"], direction, startMs: 1_000, endMs: healMs };
  return new Router({ network: connections, messageFaults: [], partitions: [cut] }, 7);
}

describe("connection mode: a retransmission that a later partition blocks is lost too", () => {
  // Coordinator-failover seed 188's drawn timing: the client's bytes to the server are cut from 1 s to 41.19 s
  // (p1), and a second partition (p0) cuts the two again from 48.577 s to 67.1 s. A segment sent at 10.836466 s
  // backs off from 200 ms: its first retransmission after p1 heals is its eighth, 51 s after the send (61.836 s),
  // inside p0; the ninth goes 102.2 s after the send (113.036 s).
  const connections = { ...DEFAULT_NETWORK, minLatencyMs: 0.5, latency: { dist: "fixed", ms: 1 } } as const;
  /** p1 cuts the client's bytes from 1 s to 41.19 s; `later` is the second partition. */
  const afterP1 = (later: Omit<PartitionFault, "a" | "b">) =>
    new Router(
      {
        network: connections,
        messageFaults: [],
        partitions: [
          { name: "p1", a: ["client"], b: ["server"], direction: "a-to-b", startMs: 1_000, endMs: 41_190 },
          { ...later, a: ["client"], b: ["server"] },
        ],
      },
      7,
    );
  const router = (direction: PartitionFault["direction"]) => afterP1({ name: "p0", direction, startMs: 48_577, endMs: 67_100 });
  const sentAt = 10_836_466;

  it("arrives with the first retransmission no partition blocks, not the first one after the partition it was sent into", () => {
    expect(retransmittedAt(sentAt, 41_190_000)).toBe(sentAt + 51_000_000); // inside p0
    const r = router("two-way");
    expect(r.routeOnConnection(sentAt, "client", "server", "ConsumerGroupHeartbeatRequest", 50, "client", 8)).toMatchObject({
      fate: "deliver",
      held: true,
      fault: "p1",
      at: [sentAt + 102_200_000 + 1_000],
    });
    // What the client writes behind it waits for it, whichever partition holds it now.
    expect(r.routeOnConnection(30_000_000, "client", "server", "OffsetCommitRequest", 50, "client", 8).at).toEqual([
      sentAt + 102_200_000 + 1_000,
    ]);
    // Past a closed socket's limit (102.2 s after the send, ORPHAN_GIVE_UP_US): once the client closes it, it never arrives.
    r.routeOnConnection(40_836_466, "client", "server", "SimDisconnect", 10, "client", 8);
    expect(r.lostAsOrphan("client", 8, sentAt + 102_200_000 + 1_000)).toBe(true);
  });

  it("a later partition of the other direction only does not stop the retransmission", () => {
    const r = router("b-to-a");
    expect(r.routeOnConnection(sentAt, "client", "server", "ConsumerGroupHeartbeatRequest", 50, "client", 8)).toMatchObject({
      held: true,
      at: [sentAt + 51_000_000 + 1_000],
    });
  });

  it("a handshake segment retransmitted into a later partition is lost too, and may run out of tries", () => {
    // A SYN at 10 s backs off from 1 s: 11, 13, 17, 25, 41, 73 s. p1 holds it until 41.19 s, and a second
    // partition from 70 to 80 s blocks 73 s: with tcp_syn_retries (6) spent, the handshake never completes.
    const synRouter = (direction: PartitionFault["direction"]) => afterP1({ name: "later", direction, startMs: 70_000, endMs: 80_000 });
    expect(synRouter("two-way").routeOnConnection(10_000_000, "client", "server", "SimConnect", 20, "client", 9).fate).toBe("partitioned");
    // With the later partition one-way the other way, the SYN's sixth retransmission (73 s) gets through.
    expect(synRouter("b-to-a").routeOnConnection(10_000_000, "client", "server", "SimConnect", 20, "client", 9).at).toEqual([73_001_000]);
  });
});

describe("connection mode: the handshake backs off from TCP_TIMEOUT_INIT (1 s) and gives up after tcp_syn_retries", () => {
  // Both directions between client and server cut from 1 s until `healMs`.
  const router = (healMs: number) => cutUntil(healMs, "two-way");

  it("retransmits a SYN and a SYN-ACK 1, 3, 7, 15, 31 s after the first, and data from 200 ms", () => {
    expect([1.2, 3.5, 7.5, 15.5, 31.5].map((s) => retransmittedAt(0, s * 1e6, TIMEOUT_INIT_US) / 1e6)).toEqual([3, 7, 15, 31, 63]);
    expect(retransmittedAt(0, 1_200_000)).toBe(1_400_000);
    const r = router(3_200);
    // Sent at 2 s, the partition healing at 3.2 s: the SYN goes again at 2 + 3 s, a request at 2 + 1.4 s.
    expect(r.routeOnConnection(2_000_000, "client", "server", "SimConnect", 10, "client", 1)).toMatchObject({
      fate: "deliver",
      held: true,
      at: [5_001_000],
    });
    expect(r.routeOnConnection(2_000_000, "server", "client", "SimAccept", 10, "client", 2)).toMatchObject({ held: true, at: [5_001_000] });
    expect(r.routeOnConnection(2_000_000, "client", "server", "HeartbeatRequest", 50, "client", 3)).toMatchObject({
      held: true,
      at: [3_401_000],
    });
  });

  it("delivers the last SYN (63 s after the first) and the last SYN-ACK (31 s), and nothing the kernel no longer sends", () => {
    expect(LAST_SYN_US).toBe(63_000_000);
    expect(LAST_SYNACK_US).toBe(31_000_000);
    const syn = router(64_000); // healed between the sixth retransmission's moment (65 s) and after the fifth (33 s)
    expect(syn.routeOnConnection(2_000_000, "client", "server", "SimConnect", 10, "client", 1)).toMatchObject({
      held: true,
      at: [65_001_000],
    });
    const late = router(66_000); // the seventh would come 127 s after the first: there is none
    expect(late.routeOnConnection(2_000_000, "client", "server", "SimConnect", 10, "client", 1)).toMatchObject({
      fate: "partitioned",
      at: [],
    });
    expect(late.stats.partitioned).toBe(1);
    const accept = router(32_000);
    expect(accept.routeOnConnection(2_000_000, "server", "client", "SimAccept", 10, "client", 1)).toMatchObject({
      held: true,
      at: [33_001_000],
    });
    const lateAccept = router(34_000);
    expect(lateAccept.routeOnConnection(2_000_000, "server", "client", "SimAccept", 10, "client", 1)).toMatchObject({
      fate: "partitioned",
    });
    // Data has no such limit while its socket is open: held 64 s, it arrives at its next retransmission.
    expect(late.routeOnConnection(2_000_000, "client", "server", "HeartbeatRequest", 50, "client", 2)).toMatchObject({
      fate: "deliver",
      held: true,
    });
  });
});

describe("connection mode: a closed socket retransmits what it holds eight times (tcp_orphan_retries), then gives up", () => {
  // The client's bytes to the server cut from 1 s until `healMs`.
  const router = (healMs: number) => cutUntil(healMs, "a-to-b");

  it("gives up at 102.2 s: the ninth retransmission's moment", () => {
    // Retransmissions of a segment sent at 0: 0.2, 0.6, 1.4, ..., 51.0 s (the eighth); the timer's next firing is at 102.2 s.
    expect(ORPHAN_GIVE_UP_US).toBe(102_200_000);
    expect(retransmittedAt(0, 51_000_001)).toBe(ORPHAN_GIVE_UP_US);
  });

  it("a request whose retransmission after the heal is its ninth never arrives once its client closed the connection, nor does its FIN", () => {
    const r = router(100_000);
    // Sent at 2 s: the attempt after the heal at 100 s is the one at 2 + 102.2 s.
    const request = r.routeOnConnection(2_000_000, "client", "server", "OffsetCommitRequest", 50, "client", 1);
    expect(request).toMatchObject({ fate: "deliver", held: true, at: [104_201_000] });
    expect(r.lostAsOrphan("client", 1, 104_201_000)).toBe(false); // the socket is still open: it goes on retransmitting
    // request.timeout.ms later the client gives the connection up and closes it: the FIN queues behind the request.
    const fin = r.routeOnConnection(32_000_000, "client", "server", "SimDisconnect", 10, "client", 1);
    expect(fin.at[0]).toBeGreaterThanOrEqual(104_201_000);
    expect(r.lostAsOrphan("client", 1, 104_201_000)).toBe(true);
    expect(r.lostAsOrphan("client", 1, fin.at[0] as number)).toBe(true);
    // The server's bytes on that connection come from another socket, and the client's next connection is a new one.
    expect(r.lostAsOrphan("client", -1, 104_201_000)).toBe(false);
    expect(r.lostAsOrphan("client", 2, 104_201_000)).toBe(false);
  });

  it("what arrived before the socket gave up was delivered", () => {
    const r = router(100_000);
    const early = r.routeOnConnection(500_000, "client", "server", "HeartbeatRequest", 50, "client", 1); // before the cut
    r.routeOnConnection(2_000_000, "client", "server", "OffsetCommitRequest", 50, "client", 1);
    r.routeOnConnection(32_000_000, "client", "server", "SimDisconnect", 10, "client", 1);
    expect(early.at).toEqual([501_000]);
    expect(r.lostAsOrphan("client", 1, 501_000)).toBe(false);
  });

  it("a request whose retransmission after the heal is its eighth, 51 s after the send, still arrives after the close", () => {
    const r = router(50_000);
    const request = r.routeOnConnection(2_000_000, "client", "server", "OffsetCommitRequest", 50, "client", 1);
    expect(request.at).toEqual([53_001_000]);
    r.routeOnConnection(32_000_000, "client", "server", "SimDisconnect", 10, "client", 1);
    expect(r.lostAsOrphan("client", 1, 53_001_000)).toBe(false);
  });

  it("acts on a close only from the safe lookahead before the late delivery (every host knows of it by then)", () => {
    for (const [closeAt, lost] of [
      [104_201_000 - 1, false],
      [104_201_000 - 2_000, true],
    ] as const) {
      const r = router(100_000);
      const lookahead = r.safeLookaheadUs;
      expect(lookahead).toBeLessThanOrEqual(1_000);
      r.routeOnConnection(2_000_000, "client", "server", "OffsetCommitRequest", 50, "client", 1);
      r.routeOnConnection(closeAt, "client", "server", "SimDisconnect", 10, "client", 1);
      expect(r.lostAsOrphan("client", 1, 104_201_000)).toBe(lost);
    }
  });
});
