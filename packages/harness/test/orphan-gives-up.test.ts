import { describe, expect, it } from "vitest";
import { DEFAULT_REGISTRY, type HistoryEvent, InlineHost, LockstepHost, toSimulationSpec } from "../src/index.js";
import { ORPHAN_GIVE_UP_US } from "../src/router/orphaned-sockets.js";
import { runScenario } from "../src/run/run-scenario.js";
import { SEED_184_GROUP, swarmConsumerScenario } from "./helpers.js";

/**
 * The shape of stale-commit-retransmitted.test.ts (swarm seed 184), with member-1's requests to the coordinator
 * cut until 100 s instead of 45.5 s. Its auto-commit of 19.6 s is held; request.timeout.ms (30 s) later the client
 * closes that connection, and the kernel keeps retransmitting the closed socket's bytes: at 19.8, 20.2, ... 70.6 s
 * (the eighth retransmission, still inside the cut), and the next firing, 102.2 s after the send, is where Linux
 * gives an orphaned socket up (tcp_orphan_retries 0 means 8): the commit never reaches the broker, and neither does
 * anything queued behind it on that connection (which waits for the commit's retransmission: TCP keeps one timer per
 * socket). The coordinator records each of them as lost.
 */
const scenario = swarmConsumerScenario({
  ...SEED_184_GROUP,
  name: "orphan-gives-up",
  durationMs: 130_000,
  partitions: [{ name: "p0", a: ["member-1"], b: ["coordinator-0"], direction: "a-to-b", startMs: 19_579, endMs: 100_000 }],
});

type SendEvent = Extract<HistoryEvent, { ev: "send" }>;

describe("a request held past a closed socket's last retransmission", () => {
  it("never arrives, nor does anything behind it on that connection; what arrived by then stays delivered", async () => {
    const { summary, result } = await runScenario(scenario, { host: "inline", seed: 184 });
    expect(Object.entries(summary.checks).filter(([, check]) => !check.ok)).toEqual([]);
    const events = result.log.toArray();
    const sends = events.filter(
      (event): event is SendEvent =>
        event.ev === "send" && event.from === "member-1" && event.to === "coordinator-0" && event.held === true,
    );
    // The commit is the head of the stall: what the client wrote behind it waits for its retransmission (one timer
    // per socket), so only the commit is itself retransmitted past the limit.
    const late = sends.filter((send) => (send.at[0] as number) - send.t >= ORPHAN_GIVE_UP_US);
    expect(late.map((send) => send.type)).toEqual(["OffsetCommitRequest"]);
    const gen = (late[0] as SendEvent).conn;
    const giveUpAt = (late[0] as SendEvent).at[0] as number;
    const closedAt = events.find(
      (event) => event.ev === "conn" && event.actor === "member-1" && event.what === "close" && event.gen === gen,
    )?.t;
    expect(closedAt).toBeDefined();
    expect(closedAt as number).toBeLessThan(giveUpAt);

    // Everything the closed socket still had to send from the first late segment on: the two requests and the FIN.
    const behind = sends.filter((send) => send.conn === gen && (send.at[0] as number) >= giveUpAt);
    expect(behind.map((send) => send.type)).toEqual(["OffsetCommitRequest", "ConsumerGroupHeartbeatRequest", "SimDisconnect"]);
    // And, on a later connection, the handshake member-1 gave up inside the cut (socket.connection.setup.timeout.ms):
    // its SYN is not sent again after the close, so neither it nor the reset behind it arrives.
    const givenUp = events.flatMap((event) =>
      event.ev === "conn" && event.actor === "member-1" && event.what === "connect-timeout" ? [event.gen] : [],
    );
    expect(givenUp).toHaveLength(1);
    const handshake = events.filter(
      (event): event is SendEvent => event.ev === "send" && event.from === "member-1" && event.conn === givenUp[0],
    );
    expect(handshake.map((send) => [send.type, send.held])).toEqual([
      ["SimConnect", true],
      ["SimDisconnect", true],
    ]);
    const lost = events.filter((event) => event.ev === "lost" && event.actor === "coordinator-0" && event.from === "member-1");
    expect(lost.map((event) => (event.ev === "lost" ? [event.t, event.type, event.why] : []))).toEqual(
      [...handshake, ...behind].map((send) => [send.at[0], send.type, "its connection broke"]),
    );
    // Held sends on member-1's later connections (but the given-up handshake) are not given up: their sockets were not
    // closed that long.
    const later = sends.filter((send) => send.conn !== gen && send.conn !== givenUp[0]);
    expect(later.length).toBeGreaterThan(0);
    for (const send of later)
      expect(lost.some((event) => event.t === send.at[0] && event.ev === "lost" && event.type === send.type)).toBe(false);
  }, 60_000);

  it("is decided alike on the lockstep host, two shards, as inline", async () => {
    const spec = toSimulationSpec(scenario, { seed: 184 });
    const inline = new InlineHost(spec, DEFAULT_REGISTRY).run();
    // The three given up with the orphaned socket, and the given-up handshake's SYN and reset.
    expect(inline.events.filter((event) => event.ev === "lost" && event.why === "its connection broke").length).toBe(5);
    const host = new LockstepHost(spec, { actorsPerWorker: Math.ceil(spec.actors.length / 2) });
    try {
      const lockstep = await host.run();
      expect(lockstep.historyHash).toBe(inline.historyHash);
    } finally {
      await host.close();
    }
  }, 120_000);
});
