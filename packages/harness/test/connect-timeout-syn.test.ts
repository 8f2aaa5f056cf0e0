import { type Actor, type ActorFactory, type ActorId, type Context, type JsonValue, type Message, ms } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import {
  type ActorRegistry,
  DEFAULT_NETWORK,
  DEFAULT_REGISTRY,
  type FaultPlan,
  type HistoryEvent,
  InlineHost,
  type SimulationSpec,
} from "../src/index.js";
import { actor, heartbeatRequest, testSpec } from "./helpers.js";

/**
 * A client that gives up a connection still in its handshake
 * (socket.connection.setup.timeout.ms) closes a socket in SYN_SENT: Linux
 * sends nothing more on it (no SYN retransmission, no FIN), and a SYN-ACK
 * that still comes is answered with a reset. So the server never keeps a
 * connection the client no longer has.
 */

/** Answers heartbeats, and sends the client a SimPing every second, on the client's latest connection to it if there is one. */
class PingingServer implements Actor {
  readonly #client: ActorId;
  #seq = 0;
  constructor(config: JsonValue) {
    this.#client = (config as { client: ActorId }).client;
  }
  start(ctx: Context): void {
    ctx.setTimer("ping", ms(1000));
  }
  receive(from: ActorId, message: Message, ctx: Context): void {
    if (message.type !== "HeartbeatRequest") return;
    ctx.send(from, { type: "HeartbeatResponse", correlationId: message.correlationId, throttleTimeMs: 0, errorCode: 0 });
  }
  fire(_timer: string, ctx: Context): void {
    ctx.send(this.#client, { type: "SimPing", seq: ++this.#seq, payload: "" });
    ctx.setTimer("ping", ms(1000));
  }
}

/** Sends a heartbeat every 500 ms (on its one connection to the server) and says which pings it got. */
class HeartbeatingClient implements Actor {
  #next = 1;
  start(ctx: Context): void {
    this.fire("beat", ctx);
  }
  receive(_from: ActorId, message: Message, ctx: Context): void {
    if (message.type === "SimPing") ctx.observe({ type: "test.ping", seq: message.seq });
  }
  fire(_timer: string, ctx: Context): void {
    ctx.send("server", heartbeatRequest(this.#next++));
    ctx.setTimer("beat", ms(500));
  }
}

const registry: ActorRegistry = new Map<string, ActorFactory>([
  ...DEFAULT_REGISTRY,
  ["pinging-server", (_id, config) => new PingingServer(config)],
  ["heartbeating-client", () => new HeartbeatingClient()],
]);

function spec(plan: FaultPlan): SimulationSpec {
  return testSpec({
    durationUs: 90_000_000,
    plan,
    actors: [actor("client", "heartbeating-client"), actor("server", "pinging-server", { client: "client" })],
  });
}

type ConnRecord = Extract<HistoryEvent, { ev: "conn" }>;
type SendRecord = Extract<HistoryEvent, { ev: "send" }>;

const clientConns = (events: readonly HistoryEvent[], what: string): ConnRecord[] =>
  events.filter((e): e is ConnRecord => e.ev === "conn" && e.actor === "client" && e.what === what);
const sends = (events: readonly HistoryEvent[], from: string, type: string): SendRecord[] =>
  events.filter((e): e is SendRecord => e.ev === "send" && e.from === from && e.type === type);
const lostAt = (events: readonly HistoryEvent[], actorId: string, type: string) =>
  events.filter((e) => e.ev === "lost" && e.actor === actorId && e.type === type);

describe("a connection given up in its handshake", () => {
  it("a SYN held by a partition is not sent again once the client gave the connection up: the server never sees it", () => {
    // Cut both ways until 40 s. The first SYN (at 0) would be retransmitted at 63 s, the second (just after the first
    // setup timeout, about 10 s) at 41 s: the client gives each up at its setup timeout first (about 10 s, then about
    // 20 s), so neither goes out again. The third SYN, at about 30 s, is retransmitted at 45 s and opens the connection.
    const plan: FaultPlan = {
      network: DEFAULT_NETWORK,
      messageFaults: [],
      partitions: [{ name: "cut", a: ["client"], b: ["server"], direction: "two-way", startMs: 0, endMs: 40_000 }],
    };
    const events = new InlineHost(spec(plan), registry).run().events;
    const timedOut = clientConns(events, "connect-timeout");
    expect(timedOut.map((e) => e.gen).length).toBe(2);
    const syns = sends(events, "client", "SimConnect");
    const given = syns.filter((syn) => timedOut.some((e) => e.gen === syn.conn));
    expect(given).toHaveLength(2);
    for (const syn of given) {
      expect(syn.held).toBe(true);
      // Due after the client closed it: at the retransmission that the close prevented.
      const closedAt = timedOut.find((e) => e.gen === syn.conn)?.t as number;
      expect(syn.at[0] as number).toBeGreaterThan(closedAt);
    }
    // The server loses both SYNs and both closes behind them, and answers none of them.
    expect(lostAt(events, "server", "SimConnect").map((e) => e.t)).toEqual(given.map((syn) => syn.at[0] as number).sort((a, b) => a - b));
    expect(lostAt(events, "server", "SimDisconnect")).toHaveLength(2);
    const accepts = sends(events, "server", "SimAccept");
    expect(accepts.map((a) => a.conn)).toEqual(syns.filter((syn) => !given.includes(syn)).map((syn) => -(syn.conn as number)));
    // The third connection serves the heartbeats from 45 s on, and the server's pings ride it: none is lost.
    const ready = clientConns(events, "ready");
    expect(ready).toHaveLength(1);
    expect(ready[0]?.t as number).toBeGreaterThan(45_000_000);
    expect(lostAt(events, "client", "SimPing")).toEqual([]);
  });

  it("a SYN that was already on its way is accepted, and the client's reset behind it closes the server's end", () => {
    // The first SYN takes 15 s: the client gives it up at its setup timeout (about 10 s) and opens a second
    // connection at once. The late SYN then opens a connection the client no longer has; the client's reset,
    // sent behind it, closes it again, so the server's pings keep riding the second connection.
    const plan: FaultPlan = {
      network: DEFAULT_NETWORK,
      messageFaults: [{ name: "slow-syn", types: ["SimConnect"], startMs: 0, endMs: 1, delay: { dist: "fixed", ms: 15_000 } }],
      partitions: [],
    };
    const events = new InlineHost(spec(plan), registry).run().events;
    const timedOut = clientConns(events, "connect-timeout");
    expect(timedOut).toHaveLength(1);
    const gen = timedOut[0]?.gen as number;
    const [syn] = sends(events, "client", "SimConnect").filter((s) => s.conn === gen);
    expect(syn?.at[0] as number).toBeGreaterThan(timedOut[0]?.t as number);
    // The server accepts it (the SYN-ACK reaches a client kernel that has no such socket), then hears the reset.
    expect(sends(events, "server", "SimAccept").some((a) => a.conn === -gen)).toBe(true);
    const reset = sends(events, "client", "SimDisconnect").filter((s) => s.conn === gen);
    expect(reset).toHaveLength(1);
    expect(reset[0]?.t).toBe(timedOut[0]?.t);
    // FIFO on the connection: due with the SYN at the earliest, and handed over after it.
    expect(reset[0]?.at[0] as number).toBeGreaterThanOrEqual(syn?.at[0] as number);
    expect(lostAt(events, "server", "SimDisconnect")).toEqual([]);
    // No ping rides the connection the client gave up: every ping sent from 20 s on reaches the client.
    const pings = sends(events, "server", "SimPing").filter((p) => p.t >= 20_000_000 && p.t < 80_000_000);
    expect(pings.length).toBeGreaterThan(50);
    expect(pings.every((p) => p.conn !== -gen)).toBe(true);
    expect(lostAt(events, "client", "SimPing")).toEqual([]);
  });
});
