import {
  type Actor,
  type ActorFactory,
  type ActorId,
  type Context,
  type JsonValue,
  type Message,
  type Micros,
  ms,
  type Observation,
  type OffsetCommitRequest,
  type OffsetFetchRequest,
} from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import {
  type ActorRegistry,
  DEFAULT_NETWORK,
  DEFAULT_REGISTRY,
  type FaultPlan,
  type HistoryEvent,
  InlineHost,
  loadScenarioFile,
  type SimulationSpec,
  toSimulationSpec,
  validateScenario,
} from "../src/index.js";
import { actor, committedPartitionsIn, heartbeatRequest, testSpec } from "./helpers.js";

/**
 * The default network: connections with TCP's and Kafka's semantics, shown
 * with small scripted clients and servers on the inline host (the kernel
 * is the same in every host).
 */

const heartbeat = heartbeatRequest;

/**
 * Answers HeartbeatRequests at once and OffsetCommitRequests after `delayMs` (a slow handler), or as soon as
 * a SimPing arrives (a request that waits on another actor, as a Produce with acks=all waits on its
 * followers' fetches), and says when it saw each request.
 */
class SlowServer implements Actor {
  readonly #delayMs: number;
  #waiting: { from: ActorId; correlationId: number }[] = [];

  constructor(config: JsonValue) {
    this.#delayMs = (config as { delayMs: number }).delayMs;
  }
  start(): void {}
  receive(from: ActorId, message: Message, ctx: Context): void {
    if (message.type === "SimPing") this.fire("answer", ctx);
    if (message.type !== "HeartbeatRequest" && message.type !== "OffsetCommitRequest") return;
    ctx.observe({ type: "test.served", correlationId: message.correlationId, request: message.type });
    if (message.type === "OffsetCommitRequest") {
      // A slow OffsetCommit: answered after delayMs.
      this.#waiting.push({ from, correlationId: message.correlationId });
      ctx.setTimer("answer", ms(this.#delayMs));
      return;
    }
    ctx.send(from, { type: "HeartbeatResponse", correlationId: message.correlationId, throttleTimeMs: 0, errorCode: 0 });
  }
  fire(_timer: string, ctx: Context): void {
    for (const { from, correlationId } of this.#waiting.splice(0))
      ctx.send(from, { type: "OffsetCommitResponse", correlationId, throttleTimeMs: 0, topics: [] });
  }
}

/** Sends `count` heartbeats back to back (pipelined) every `everyMs`, and records every response and disconnect. */
class PipeliningClient implements Actor {
  readonly #config: { peer: ActorId; count: number; everyMs: number; commitFirst: boolean };
  #next = 1;

  constructor(config: JsonValue) {
    this.#config = { commitFirst: false, ...(config as { peer: ActorId; count: number; everyMs: number }) };
  }
  start(ctx: Context): void {
    this.#burst(ctx);
  }
  receive(_from: ActorId, message: Message, ctx: Context): void {
    if (message.type === "SimDisconnect") ctx.observe({ type: "test.disconnect", reason: message.reason, connection: message.connection });
    else if ("correlationId" in message)
      ctx.observe({ type: "test.response", correlationId: message.correlationId, response: message.type });
  }
  fire(_timer: string, ctx: Context): void {
    this.#burst(ctx);
  }
  #burst(ctx: Context): void {
    if (this.#config.commitFirst) {
      const commit: OffsetCommitRequest = {
        type: "OffsetCommitRequest",
        correlationId: this.#next++,
        apiVersion: 9,
        clientId: "client",
        groupId: "g",
        generationIdOrMemberEpoch: -1,
        memberId: "",
        groupInstanceId: null,
        topics: [],
      };
      ctx.observe({ type: "test.sent", correlationId: commit.correlationId });
      ctx.send(this.#config.peer, commit);
    }
    for (let i = 0; i < this.#config.count; i++) {
      ctx.observe({ type: "test.sent", correlationId: this.#next });
      ctx.send(this.#config.peer, heartbeat(this.#next++));
    }
    if (this.#config.everyMs > 0) ctx.setTimer("burst", ms(this.#config.everyMs));
  }
}

const registry: ActorRegistry = new Map<string, ActorFactory>([
  ...DEFAULT_REGISTRY,
  ["slow-server", (_id, config) => new SlowServer(config)],
  ["pipelining-client", (_id, config) => new PipeliningClient(config)],
]);

const obs = (events: readonly HistoryEvent[], actorId: string, type: string): (Observation & { readonly t: number })[] =>
  events.flatMap((e) => (e.ev === "obs" && e.actor === actorId && e.o.type === type ? [{ t: e.t, ...e.o }] : []));

function run(spec: SimulationSpec) {
  return new InlineHost(spec, registry).run();
}

describe("connections (the default network)", () => {
  it("delivers responses in request order and at most once, whatever the delays, and breaks fail what is in flight", () => {
    const plan: FaultPlan = {
      network: DEFAULT_NETWORK,
      messageFaults: [
        // Heavy-tailed delays on both directions, and losses that break the connection.
        { name: "tail", delay: { dist: "pareto", scaleMs: 0.5, shape: 1.2 } },
        { name: "jitter", delay: { dist: "exponential", meanMs: 3 } },
        { name: "loss", types: ["Heartbeat*"], drop: { probability: 0.02 } },
      ],
      partitions: [],
    };
    const result = run(
      testSpec({
        durationUs: 20_000_000,
        plan,
        actors: [
          actor("client", "pipelining-client", { peer: "server", count: 5, everyMs: 20 }),
          actor("server", "slow-server", { delayMs: 0 }),
        ],
      }),
    );
    const responses = obs(result.events, "client", "test.response").map((r) => r.correlationId as number);
    const disconnects = obs(result.events, "client", "test.disconnect");
    expect(result.router.breaks).toBeGreaterThan(5);
    const breaks = result.events.flatMap((e) => (e.ev === "conn" && e.what === "break" ? [e] : []));
    expect(breaks.length).toBe(result.router.breaks);
    // Each break the client notices within the run is one disconnect (one noticed after the run's end is none).
    expect(disconnects.length).toBe(breaks.filter((b) => (b.at?.[0] ?? Number.POSITIVE_INFINITY) < 20_000_000).length);
    expect(disconnects.every((d) => d.reason === "broken" && d.connection === "")).toBe(true);
    // Never twice, and on each connection in order: ascending overall, since every new connection carries later requests.
    expect(new Set(responses).size).toBe(responses.length);
    for (let i = 1; i < responses.length; i++) expect(responses[i]).toBeGreaterThan(responses[i - 1] as number);
    expect(responses.length).toBeGreaterThan(500);
    // Requests lost with a break were never answered: a gap in the answers for each break.
    expect(responses.length).toBeLessThan(obs(result.events, "client", "test.sent").length);
  });

  it("a break fails every request in flight on the connection; the client reconnects after reconnect.backoff.ms", () => {
    const plan: FaultPlan = {
      network: { ...DEFAULT_NETWORK, latency: { dist: "fixed", ms: 1 }, breakDetection: { dist: "fixed", ms: 10 } },
      // The 2nd of 3 pipelined heartbeats breaks the connection.
      messageFaults: [{ name: "cut", types: ["HeartbeatRequest"], startMs: 6, endMs: 7, drop: { probability: 1 } }],
      partitions: [],
    };
    const result = run(
      testSpec({
        durationUs: 500_000,
        plan,
        actors: [
          actor("client", "pipelining-client", { peer: "server", count: 3, everyMs: 0 }, 4_000),
          actor("server", "slow-server", { delayMs: 0 }),
          actor("late", "pipelining-client", { peer: "server", count: 1, everyMs: 0 }, 100_000),
        ],
      }),
    );
    const conn = result.events.filter((e) => e.ev === "conn" && e.actor === "client");
    const sentAt = obs(result.events, "client", "test.sent")[0]?.t as number;
    // SYN at 4 ms, accepted at 6 ms; the three heartbeats go at 6 ms: the first arrives and is served, the second breaks it.
    expect(conn.map((e) => (e.ev === "conn" ? e.what : ""))).toEqual(["connect", "ready", "break", "reset"]);
    expect(sentAt).toBe(4_000);
    expect(obs(result.events, "server", "test.served").map((r) => r.correlationId)).toEqual([1]);
    // Its answer, sent after the break, is lost with the connection: the request was applied, and failed at the client.
    expect(obs(result.events, "client", "test.response")).toEqual([]);
    const disconnects = obs(result.events, "client", "test.disconnect");
    expect(disconnects).toHaveLength(1);
    expect(disconnects[0]?.reason).toBe("broken");
    // Requests 2 and 3 failed with the connection (the client was told once, for the connection); nothing arrives later.
    const broke = conn.find((e) => e.ev === "conn" && e.what === "break");
    const noticed = conn.find((e) => e.ev === "conn" && e.what === "reset");
    expect(noticed?.t).toBe((broke?.t as number) + 10_000);
    // The next request on a new connection: no sooner than the reconnect backoff (50 ms, jitter 0.2) after the disconnect.
    const again = testSpec({
      durationUs: 500_000,
      plan,
      actors: [
        actor("client", "pipelining-client", { peer: "server", count: 3, everyMs: 30 }, 4_000),
        actor("server", "slow-server", { delayMs: 0 }),
      ],
    });
    const rerun = run(again);
    const events = rerun.events.filter((e) => e.ev === "conn" && e.actor === "client");
    const reset = events.find((e) => e.ev === "conn" && e.what === "reset")?.t as Micros;
    const reconnect = events.find((e) => e.ev === "conn" && e.what === "connect" && e.t > reset)?.t as Micros;
    expect(reconnect - reset).toBeGreaterThanOrEqual(40_000);
    expect(reconnect - reset).toBeLessThanOrEqual(60_000);
    expect(obs(rerun.events, "client", "test.response").length).toBeGreaterThan(10);
  });

  it("a slow OffsetCommit holds back the next heartbeat on the same connection: the server serves one request at a time", () => {
    const result = run(
      testSpec({
        durationUs: 2_000_000,
        actors: [
          actor("client", "pipelining-client", { peer: "server", count: 1, everyMs: 0, commitFirst: true }),
          actor("server", "slow-server", { delayMs: 500 }),
        ],
      }),
    );
    const served = obs(result.events, "server", "test.served");
    expect(served.map((s) => s.request)).toEqual(["OffsetCommitRequest", "HeartbeatRequest"]);
    // The heartbeat reached the server a few ms after the commit, but it was handed to it only once the commit was answered.
    expect((served[1]?.t as number) - (served[0]?.t as number)).toBeGreaterThanOrEqual(500_000);
    const responses = obs(result.events, "client", "test.response");
    expect(responses.map((r) => r.response)).toEqual(["OffsetCommitResponse", "HeartbeatResponse"]);
  });

  it("a request that arrives as an answer unmutes its connection waits behind the ones queued before it", () => {
    // Fixed latencies line the arrivals up: every 9 ms, a ping from a-pinger (which answers the OffsetCommit being
    // served) and the client's next commit and heartbeat reach the server at the same instant, in that key order
    // ("a-pinger" < "client" < "server"), so the commit arrives after the answer but before the kernel's release
    // of the heartbeat queued behind it (a timer of the server's, due at that same instant).
    const plan: FaultPlan = {
      network: { ...DEFAULT_NETWORK, minLatencyMs: 1, latency: { dist: "fixed", ms: 1 } },
      messageFaults: [],
      partitions: [],
    };
    const result = run(
      testSpec({
        durationUs: 40_000,
        plan,
        actors: [
          actor("a-pinger", "pinger", { peer: "server", intervalMs: 9, timeoutMs: 1_000 }),
          actor("client", "pipelining-client", { peer: "server", count: 1, everyMs: 9, commitFirst: true }),
          actor("server", "slow-server", { delayMs: 1_000 }),
        ],
      }),
    );
    const served = obs(result.events, "server", "test.served").map((s) => s.correlationId);
    const sent = obs(result.events, "client", "test.sent").map((s) => s.correlationId);
    expect(served.length).toBeGreaterThanOrEqual(6);
    expect(served).toEqual(sent.slice(0, served.length));
    const answered = obs(result.events, "client", "test.response").map((r) => r.correlationId);
    expect(answered.length).toBeGreaterThanOrEqual(4);
    expect(answered).toEqual(sent.slice(0, answered.length));
  });

  it("a partition makes a consumer's request time out at request.timeout.ms, closing its connection", () => {
    const scenario = validateScenario(
      {
        name: "partitioned-member",
        durationMs: 120_000,
        cluster: { coordinators: 1, topics: [{ name: "t", partitions: 2 }] },
        groups: [{ groupId: "g", protocol: "consumer", members: 1, subscription: ["t"], consumer: { "request.timeout.ms": 20_000 } }],
        partitions: [{ name: "cut", a: ["member-1"], b: ["coordinator-0"], direction: "two-way", startMs: 30_000, endMs: 100_000 }],
      },
      "test",
    );
    const result = new InlineHost(toSimulationSpec(scenario), DEFAULT_REGISTRY).run();
    const heldHeartbeat = result.events.find(
      (e) => e.ev === "send" && e.from === "member-1" && e.type === "ConsumerGroupHeartbeatRequest" && e.t >= 30_000_000,
    );
    const closed = result.events.find((e) => e.ev === "conn" && e.actor === "member-1" && e.what === "close" && e.t >= 30_000_000);
    expect(heldHeartbeat?.ev === "send" && heldHeartbeat.held).toBe(true);
    expect(closed?.t).toBe((heldHeartbeat?.t as number) + 20_000_000);
    expect(closed?.ev === "conn" && closed.connection).toBe("coordinator");
  });

  it("a commit the coordinator applied whose response was lost is still visible to OffsetFetch", () => {
    const cluster = loadScenarioFile(new URL("../../../scenarios/m10-join.json", import.meta.url).pathname);
    const coordinator = toSimulationSpec(cluster).actors.find((a) => a.id === "coordinator-0");
    if (coordinator === undefined) throw new Error("no coordinator");
    const plan: FaultPlan = {
      network: DEFAULT_NETWORK,
      messageFaults: [{ name: "lose-answer", from: ["coordinator-0"], types: ["OffsetCommitResponse"], drop: { probability: 1 } }],
      partitions: [],
    };
    const result = new InlineHost(
      testSpec({ durationUs: 5_000_000, plan, actors: [coordinator, actor("client", "commit-then-fetch", {}, 200_000)] }), // after the coordinator loaded
      new Map([...registry, ["commit-then-fetch", () => new CommitThenFetch()]]),
    ).run();
    const applied = committedPartitionsIn(result.events);
    expect(applied).toEqual([expect.objectContaining({ offset: 42, errorCode: 0 })]);
    expect(result.events.some((e) => e.ev === "send" && e.type === "OffsetCommitResponse" && e.fate === "broken")).toBe(true);
    const told = obs(result.events, "client", "test.disconnect");
    expect(told.map((d) => d.reason)).toEqual(["broken"]);
    expect(obs(result.events, "client", "test.response").map((r) => r.response)).toEqual(["OffsetFetchResponse"]);
    expect(obs(result.events, "client", "test.fetched")).toEqual([expect.objectContaining({ offset: 42 })]);
  });
});

/** Commits T1-0 = 42 for a simple group; when the connection breaks under it, fetches the committed offset. */
class CommitThenFetch implements Actor {
  start(ctx: Context): void {
    const commit: OffsetCommitRequest = {
      type: "OffsetCommitRequest",
      correlationId: 1,
      apiVersion: 9,
      clientId: "client",
      groupId: "simple",
      generationIdOrMemberEpoch: -1,
      memberId: "",
      groupInstanceId: null,
      topics: [{ name: "T1", partitions: [{ partitionIndex: 0, committedOffset: 42, committedLeaderEpoch: -1, committedMetadata: null }] }],
    };
    ctx.send("coordinator-0", commit);
  }
  receive(_from: ActorId, message: Message, ctx: Context): void {
    if (message.type === "SimDisconnect") {
      ctx.observe({ type: "test.disconnect", reason: message.reason, connection: message.connection });
      const fetch: OffsetFetchRequest = {
        type: "OffsetFetchRequest",
        correlationId: 2,
        apiVersion: 9,
        clientId: "client",
        groups: [{ groupId: "simple", memberId: null, memberEpoch: -1, topics: [{ name: "T1", partitionIndexes: [0] }] }],
        requireStable: false,
      };
      ctx.send("coordinator-0", fetch);
      return;
    }
    if ("correlationId" in message) ctx.observe({ type: "test.response", correlationId: message.correlationId, response: message.type });
    if (message.type === "OffsetFetchResponse") {
      const offset = message.groups[0]?.topics[0]?.partitions[0]?.committedOffset ?? -2;
      ctx.observe({ type: "test.fetched", offset });
    }
  }
  fire(): void {}
}
