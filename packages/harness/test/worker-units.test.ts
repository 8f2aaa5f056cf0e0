import { MessageChannel } from "node:worker_threads";
import {
  type Actor,
  type ActorId,
  type Context,
  decodeUnchecked,
  encode,
  type JsonValue,
  type Message,
  type Micros,
} from "@kcsim/protocol";
import { expose, releaseProxy, wrap } from "comlink";
import { describe, expect, it } from "vitest";
import {
  ActorCell,
  type ActorRegistry,
  answerWindow,
  autoWorkerCount,
  type CellSink,
  comlinkEndpoint,
  DEFAULT_NETWORK,
  type DeliveryTuple,
  type EffectBatch,
  encodeWindow,
  MemoryDurableLog,
  mergeByHeads,
  parseActorsPerWorker,
  planShards,
  RealtimeShard,
  type ShardClock,
  ShardRuntime,
  safeLookahead,
  VirtualClock,
  type WindowReply,
} from "../src/index.js";
import { heartbeatRequest, quietSink } from "./helpers.js";

/** Ticks every 10 ms; answers SimPing with SimPong; records its boots in the durable log. */
class Ticker implements Actor {
  start(ctx: Context): void {
    ctx.storage.append({ boot: ctx.now() });
    ctx.setTimer("tick", 10_000);
  }
  receive(from: ActorId, message: Message, ctx: Context): void {
    if (message.type === "SimPing") ctx.send(from, { type: "SimPong", seq: message.seq, payload: String(ctx.random()) });
  }
  fire(_timer: string, ctx: Context): void {
    ctx.observe({ type: "tick", at: ctx.now() });
    ctx.setTimer("tick", 10_000);
  }
}

const registry: ActorRegistry = new Map([["ticker", () => new Ticker()]]);
const settings = { seed: 1, useCodec: true, network: "connection", restartPolicy: { mode: "restart", delayUs: 1_000 } } as const;
/** Origin ranks as OriginRanks would give them for actors a and b (harness origins first). */
const RANK = { "!nemesis": 2, a: 4, b: 5, late: 6, x: 7 } as const;
const ticker = (id: "a" | "b" | "late") => ({ id, rank: RANK[id], kind: "ticker", config: {} as JsonValue, log: [] });
const control = (due: Micros, to: string, action: "start" | "crash" | "restart") =>
  [1, due, "!nemesis", RANK["!nemesis"], due, 0, to, { action }] as const;

describe("ShardRuntime (the lockstep worker half)", () => {
  it("runs a window's events merged with its own timers in key order, and tags every effect group with its event's key", () => {
    const shard = new ShardRuntime(settings, [ticker("a"), ticker("b")], registry);
    const reply = decodeUnchecked(
      answerWindow(shard, encodeWindow([25_000, [control(0, "a", "start"), control(5_000, "b", "start")], []])),
    ) as WindowReply;
    const keys = reply[0].map((group) => [group[0], group[1]]);
    // a starts at 0, b at 5 ms; a ticks at 10 and 20 ms, b at 15 and 25 ms.
    expect(keys).toEqual([
      [0, RANK["!nemesis"]],
      [5_000, RANK["!nemesis"]],
      [10_000, RANK.a],
      [15_000, RANK.b],
      [20_000, RANK.a],
      [25_000, RANK.b],
    ]);
    expect(reply[1]).toBe(30_000);
    expect(reply[3]).toBe(4);
  });

  it("drops replaced and cancelled timers instead of waking up for them, and reports a crashed cell's carry", () => {
    const shard = new ShardRuntime(settings, [ticker("a")], registry);
    shard.runWindow(0, [
      { kind: "control", due: 0, origin: "!nemesis", rank: RANK["!nemesis"], seq: 0, sub: 0, to: "a", control: { action: "start" } },
    ]);
    const outcome = shard.runWindow(
      5_000,
      [{ kind: "control", due: 5_000, origin: "!nemesis", rank: RANK["!nemesis"], seq: 1, sub: 0, to: "a", control: { action: "crash" } }],
      ["a"],
    );
    expect(outcome.nextDue).toBeNull(); // the 10 ms tick died with the process
    const [[id, carry, armed]] = outcome.carries as unknown as [[string, { state: string; seq: number }, number]];
    expect([id, carry.state, carry.seq, armed]).toEqual(["a", "crashed", 1, 0]);
  });
});

/** Ticks every 10 ms and sends on its second tick only (the run-on test's sender). */
class Talker implements Actor {
  #ticks = 0;
  start(ctx: Context): void {
    ctx.setTimer("tick", 10_000);
  }
  receive(): void {}
  fire(_timer: string, ctx: Context): void {
    if (++this.#ticks === 2) ctx.send("b", { type: "SimPing", seq: 1, payload: "" });
    ctx.setTimer("tick", 10_000);
  }
}

describe("ShardRuntime running on past its window", () => {
  const talker = { id: "a", rank: RANK.a, kind: "talker", config: {} as JsonValue, log: [] };
  const start = {
    kind: "control",
    due: 0,
    origin: "!nemesis",
    rank: RANK["!nemesis"],
    seq: 0,
    sub: 0,
    to: "a",
    control: { action: "start" },
  } as const;
  const talkers: ActorRegistry = new Map([["talker", () => new Talker()]]);
  const datagram = { ...settings, network: "datagram" } as const;

  it("runs its own timers up to the reach while it has sent nothing", () => {
    const shard = new ShardRuntime(settings, [ticker("a")], registry);
    const outcome = shard.runWindow(0, [start], [], { reach: 35_000, lookahead: 2_000 });
    expect(outcome.groups.map((group) => group[0])).toEqual([0, 10_000, 20_000, 30_000]);
    expect([outcome.reached, outcome.nextDue, outcome.timersRun]).toEqual([35_000, 40_000, 3]);
  });

  it("stops one lookahead after its first send: what it sent may arrive from then on", () => {
    const shard = new ShardRuntime(datagram, [talker], talkers);
    const outcome = shard.runWindow(0, [start], [], { reach: 100_000, lookahead: 2_000 });
    // The tick at 20 ms sends: the one at 30 ms waits for the next window. Alone in its window, the shard
    // leaves out the events without effects (its first tick).
    expect(outcome.groups.map((group) => [group[0], group[4].map((effect) => effect[0])])).toEqual([
      [0, ["life"]],
      [20_000, ["send"]],
    ]);
    expect([outcome.reached, outcome.nextDue, outcome.timersRun]).toEqual([21_999, 30_000, 2]);
  });

  it("without a reach, stops at the limit and reports every event, effects or not", () => {
    const shard = new ShardRuntime(datagram, [talker], talkers);
    const outcome = shard.runWindow(10_000, [start]);
    expect(outcome.groups.map((group) => [group[0], group[4].length])).toEqual([
      [0, 1],
      [10_000, 0],
    ]);
    expect([outcome.reached, outcome.nextDue]).toEqual([10_000, 20_000]);
  });
});

describe("the merge of the shards' effects", () => {
  it("follows the inline queue, not the key order: a zero-delay timer comes after the event that armed it", () => {
    // Shard X handled a delivery from "zed" (rank 9) at 10 us, which armed a zero-delay timer of its actor "A"
    // (rank 1: key (10, 1) < (10, 9)); shard Y handled a delivery from "m" (rank 5) at 10 us.
    const x = [
      [10, 9, 1, 0, [["obs", "A", 10, { type: "x1" }]]],
      [10, 1, 2, 0, [["obs", "A", 10, { type: "x2" }]]],
    ] as const;
    const y = [[10, 5, 1, 0, [["obs", "B", 10, { type: "y1" }]]]] as const;
    const order = mergeByHeads([x, y]).map((group) => (group[4][0] as readonly [string, string, number, { type: string }])[3].type);
    // Inline pops y1 (m < zed), then x1, then the timer x1 armed.
    expect(order).toEqual(["y1", "x1", "x2"]);
  });
});

describe("ActorCell carry", () => {
  it("rebuilds a crashed cell elsewhere that continues its sequence numbers and random stream", () => {
    const effects: string[] = [];
    const sink: CellSink = {
      ...quietSink(),
      send: (_f, _t, seq, _n, _type, payload) =>
        effects.push(`${seq}:${(decodeUnchecked(payload as Uint8Array) as { payload: string }).payload}`),
    };
    const options = {
      id: "a",
      kind: "ticker",
      config: {},
      factory: () => new Ticker(),
      seed: 3,
      rank: 0,
      messages: "frames" as const,
      network: "datagram" as const,
      restartPolicy: settings.restartPolicy,
      logger: { debug() {}, info() {}, warn() {}, error() {} },
    };
    const ping = (seq: number) => ({
      kind: "deliver" as const,
      due: 1,
      origin: "x",
      rank: 0,
      seq,
      sub: 0,
      to: "a",
      from: "x",
      msgType: "SimPing",
      payload: encode({ type: "SimPing", seq, payload: "" }),
      conn: 0,
      toRank: -1,
    });
    const boot = {
      kind: "control" as const,
      due: 0,
      origin: "!n",
      rank: 0,
      seq: 0,
      sub: 0,
      to: "a",
      control: { action: "start" as const },
    };
    const restart = { ...boot, control: { action: "restart" as const } };
    // One cell lives through a crash and a restart...
    const same = new ActorCell({ ...options, storage: new MemoryDurableLog() }, sink);
    same.handle(boot);
    same.handle(ping(1));
    same.handle({ ...boot, control: { action: "crash" } });
    same.handle(restart);
    same.handle(ping(2));
    const inOne = effects.splice(0);
    // ...and the same story with the process rebuilt from its carry after the crash.
    const first = new ActorCell({ ...options, storage: new MemoryDurableLog() }, sink);
    first.handle(boot);
    first.handle(ping(1));
    first.handle({ ...boot, control: { action: "crash" } });
    const second = new ActorCell({ ...options, storage: new MemoryDurableLog(), carry: first.carry() }, sink);
    expect(second.state).toBe("crashed");
    second.handle(restart);
    second.handle(ping(2));
    expect(effects).toEqual(inOne);
  });
});

/** A clock and timers under the test's control (fake timers do not reach workers; these need none). */
class FakeTime implements ShardClock {
  now_: Micros = 0;
  readonly timers: { at: Micros; fire: () => void; live: boolean }[] = [];
  now(): Micros {
    return this.now_;
  }
  realDelayMs(due: Micros): number {
    return (due - this.now_) / 1000;
  }
  driver = {
    set: (delayMs: number, fire: () => void) => {
      const timer = { at: this.now_ + delayMs * 1000, fire, live: true };
      this.timers.push(timer);
      return timer;
    },
    clear: (handle: unknown) => {
      (handle as { live: boolean }).live = false;
    },
  };
  advance(to: Micros): void {
    this.now_ = to;
    for (const timer of this.timers.filter((t) => t.live && t.at <= to)) {
      timer.live = false;
      timer.fire();
    }
  }
}

/**
 * A server whose requests wait for something else (a Produce with acks=all waits for its followers):
 * it holds every request it is handed and answers them when a SimPing (the follower's fetch) arrives.
 */
class HoldingServer implements Actor {
  readonly #held: { from: ActorId; correlationId: number }[] = [];
  start(): void {}
  receive(from: ActorId, message: Message, ctx: Context): void {
    if (message.type === "HeartbeatRequest") {
      ctx.observe({ type: "test.served", correlationId: message.correlationId });
      this.#held.push({ from, correlationId: message.correlationId });
    } else if (message.type === "SimPing") {
      for (const { from: client, correlationId } of this.#held.splice(0))
        ctx.send(client, { type: "HeartbeatResponse", correlationId, throttleTimeMs: 0, errorCode: 0 });
    }
  }
  fire(): void {}
}

describe("RealtimeShard (the realtime worker half)", () => {
  it("handles events on the clock, never before they are due, and reports each with its effects in one batch", () => {
    const time = new FakeTime();
    const batches: EffectBatch[] = [];
    const shard = new RealtimeShard(settings, [ticker("a")], registry, time.driver, (batch) => batches.push(batch));
    shard.begin(time);
    shard.control(control(0, "a", "start"));
    time.advance(3_000);
    // Delivered early (due 4 ms, the clock says 3 ms): handled at its due time.
    shard.deliver([[0, 4_000, "x", RANK.x, 1, 0, "a", "x", "SimPing", encode({ type: "SimPing", seq: 1, payload: "" }), 0, 0]]);
    time.advance(10_400); // the tick's real timer fires a little late: handled at 10.4 ms
    expect(batches.map((b) => b[2].map((run) => [run[0], run[1], run[2]]))).toEqual([[["a", 0, 1]], [["a", 4_000, 0]], [["a", 10_400, 2]]]);
    // The answer needs a connection of its own (the ping came with none): it is opened first (a "conn" line, then the SYN).
    expect(batches[1]?.[1].map((effect) => effect[0])).toEqual(["conn", "send"]);
    expect(batches[2]?.[1].map((effect) => effect[0])).toEqual(["obs"]);
    expect(batches.every((b) => b[3].length === 1 && b[3][0]?.[0] === "a")).toBe(true); // carries of the cells that ran
    expect(shard.stop()).toBe(3);
  });

  it("keeps deliveries for an actor it has not adopted yet (they travel on another port) and runs them at adoption", () => {
    const time = new FakeTime();
    const batches: EffectBatch[] = [];
    const shard = new RealtimeShard(settings, [], registry, time.driver, (batch) => batches.push(batch));
    shard.begin(time);
    shard.deliver([[0, 0, "x", RANK.x, 1, 0, "late", "x", "SimPing", encode({ type: "SimPing", seq: 1, payload: "" }), 1, 0]]);
    expect(batches).toHaveLength(0);
    shard.adopt(ticker("late"));
    // Not started yet: the ping is lost (and the dead process resets the connection).
    expect(batches.flatMap((b) => b[1].map((effect) => [effect[0], effect[1]]))).toEqual([
      ["lost", "late"],
      ["send", "late"],
    ]);
  });

  it("serves a connection's requests in arrival order when the next one comes in the same batch as the answer that unmutes it", () => {
    const time = new FakeTime();
    const batches: EffectBatch[] = [];
    const servers: ActorRegistry = new Map([["holding-server", () => new HoldingServer()]]);
    // Origin ranks in string order after the harness origins (client < follower < server).
    const ranks: Record<string, number> = { client: 8, follower: 9, server: 10 };
    const server = { id: "server", rank: ranks.server as number, kind: "holding-server", config: {} as JsonValue, log: [] };
    const shard = new RealtimeShard(settings, [server], servers, time.driver, (batch) => batches.push(batch));
    shard.begin(time);
    shard.control(control(0, "server", "start"));
    let seq = 0;
    const wire = (due: Micros, from: string, message: Message): DeliveryTuple =>
      [0, due, from, ranks[from] as number, ++seq, 0, "server", from, message.type, encode(message), 1, 0] as const;
    const request = heartbeatRequest;
    const ping: Message = { type: "SimPing", seq: 0, payload: "" };
    // The client opens a connection and pipelines two requests; the follower opens one of its own.
    shard.deliver([
      wire(1_000, "client", { type: "SimConnect", connection: "" }),
      wire(1_000, "follower", { type: "SimConnect", connection: "" }),
      wire(2_000, "client", request(1)),
      wire(2_000, "client", request(2)),
    ]);
    // One delivery round: the follower's fetch (request 1 is answered, which unmutes the connection), then
    // request 3, handed over before the kernel's release of request 2 (a timer) has had its turn.
    time.advance(3_000);
    shard.deliver([wire(4_000, "follower", ping), wire(4_000, "client", request(3))]);
    for (const at of [5_000, 6_000]) {
      time.advance(at);
      shard.deliver([wire(at, "follower", ping)]);
    }
    time.advance(7_000);
    const effects = batches.flatMap((b) => b[1]);
    const served = effects.flatMap((e) => (e[0] === "obs" ? [(e[3] as unknown as { correlationId: number }).correlationId] : []));
    const answered = effects.flatMap((e) =>
      e[0] === "send" && e[5] === "HeartbeatResponse"
        ? [(decodeUnchecked(e[6] as Uint8Array) as { correlationId: number }).correlationId]
        : [],
    );
    expect(served).toEqual([1, 2, 3]);
    expect(answered).toEqual([1, 2, 3]);
  });
});

describe("worker plumbing", () => {
  it("speaks comlink over a node MessagePort through the typed adapter, and releases the proxy", async () => {
    const { port1, port2 } = new MessageChannel();
    expose({ add: (a: number, b: number) => a + b }, comlinkEndpoint(port2));
    const remote = wrap<{ add(a: number, b: number): number }>(comlinkEndpoint(port1));
    expect(await remote.add(2, 3)).toBe(5);
    remote[releaseProxy]();
    port1.close();
    port2.close();
  });

  it("plans shards: one actor per worker by default, auto one worker per core", () => {
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `m${i}`);
    expect(planShards(ids(4))).toHaveLength(4);
    expect(planShards(ids(5), 2).map((s) => s.length)).toEqual([2, 2, 1]);
    expect([autoWorkerCount(1000, 2), autoWorkerCount(1000, 64), autoWorkerCount(3, 8)]).toEqual([2, 64, 3]);
    // Less the cores the main thread keeps (lockstep: one), never fewer than one worker.
    expect([autoWorkerCount(1000, 2, 1), autoWorkerCount(1000, 8, 1), autoWorkerCount(1000, 1, 1)]).toEqual([1, 7, 1]);
    expect(planShards(ids(10), "auto", 1)).toHaveLength(autoWorkerCount(10, undefined, 1));
    const large = planShards(ids(1000), "auto");
    expect(large).toHaveLength(autoWorkerCount(1000));
    expect(large.flat()).toEqual(ids(1000));
    expect([parseActorsPerWorker("auto"), parseActorsPerWorker("3"), parseActorsPerWorker("0"), parseActorsPerWorker("x")]).toEqual([
      "auto",
      3,
      null,
      null,
    ]);
  });

  it("widens the lockstep window to the network's latency floor, and to no more than its break-detection floor", () => {
    const plan = (
      latency: typeof DEFAULT_NETWORK.latency,
      breakDetection = DEFAULT_NETWORK.breakDetection,
      mode: typeof DEFAULT_NETWORK.mode = "connection",
    ) => ({
      network: { ...DEFAULT_NETWORK, mode, minLatencyMs: 0.5, latency, breakDetection },
      messageFaults: [],
      partitions: [],
    });
    expect(safeLookahead(plan(DEFAULT_NETWORK.latency), 500)).toBe(500);
    expect(safeLookahead(plan({ dist: "fixed", ms: 2 }), 500)).toBe(1_000);
    expect(safeLookahead(plan({ dist: "fixed", ms: 2 }, { dist: "fixed", ms: 5 }), 500)).toBe(2_000);
    expect(safeLookahead(plan({ dist: "uniform", minMs: 1, maxMs: 3 }), 500)).toBe(1_000);
    expect(safeLookahead(plan({ dist: "exponential", meanMs: 5 }), 500)).toBe(500);
    // A 20 ms network whose breaks are noticed after 2 ms: a break notice can land 2 ms after the send that broke it.
    expect(safeLookahead(plan({ dist: "fixed", ms: 20 }, { dist: "fixed", ms: 2 }), 500)).toBe(2_000);
    // No connections, no break notices: the latency floor alone.
    expect(safeLookahead(plan({ dist: "fixed", ms: 20 }, { dist: "fixed", ms: 2 }, "datagram"), 500)).toBe(20_000);
  });

  it("scales the realtime clock: virtual microseconds = real elapsed / timeScale", () => {
    let wall = 1_000;
    const clock = new VirtualClock(1_000, 0.01, () => wall);
    wall = 1_450; // 450 ms of wall time at 0.01 = 45 s of virtual time
    expect(clock.now()).toBe(45_000_000);
    expect(clock.realDelayMs(46_000_000)).toBeCloseTo(10);
  });
});
