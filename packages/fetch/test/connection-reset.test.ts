import { type ActorId, type FetchRequest, type Message, type Micros, ms, type SimDisconnect, seconds } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import type { ControllerActor } from "../src/controller/controller-actor.js";
import { addProducer, type ClusterSpec, cluster, partitionOn } from "./data-path-fixtures.js";
import { createFetcherActor, type FetcherActor } from "./fetcher-actor.js";
import type { Observed, SimNetwork } from "./sim-network.js";

/** Three brokers, one partition on all of them; broker-0 leads. Request timeouts stay at Kafka's 30 s. */
const SPEC: ClusterSpec = {
  brokers: 3,
  topics: [{ name: "t", partitions: 1, replicationFactor: 3 }],
  broker: {
    "replica.lag.time.max.ms": 2000,
    "broker.session.timeout.ms": 3000,
    "broker.heartbeat.interval.ms": 500,
    "min.insync.replicas": 2,
  },
};
const BROKERS: readonly ActorId[] = ["broker-0", "broker-1", "broker-2"];
const RESET: SimDisconnect = { type: "SimDisconnect", reason: "crashed", connection: "*" };

interface Sent {
  readonly at: Micros;
  readonly from: ActorId;
  readonly to: ActorId;
  readonly message: Message;
}

/** Every message put on the network, with its send time. */
function recordSends(net: SimNetwork): Sent[] {
  const sends: Sent[] = [];
  net.onSend = (from, to, message) => sends.push({ at: net.now, from, to, message });
  return sends;
}

/** Runs until `from` sends a message of `type` to `to` (it is then on the wire); returns the send time. */
function runUntilSent(net: SimNetwork, sends: readonly Sent[], from: ActorId, to: ActorId, type: Message["type"]): Micros {
  const seen = sends.length;
  const found = () => sends.slice(seen).find((s) => s.from === from && s.to === to && s.message.type === type);
  expect(net.runUntilTrue(() => found() !== undefined, seconds(5))).toBe(true);
  return found()!.at;
}

function asFetch(message: Message): FetchRequest {
  if (message.type !== "FetchRequest") throw new Error(`not a fetch: ${message.type}`);
  return message;
}

function leaderElected(net: SimNetwork, leader: number): Observed | undefined {
  return net.observed("controller.partition").find((o) => o.event.leader === leader && o.event.reason !== "create");
}

describe("connection resets from crashed processes (SimDisconnect)", () => {
  it("a consumer whose leader crashes fails its fetch at once, refreshes metadata and fetches from the new leader, long before request.timeout.ms", () => {
    const net = cluster(SPEC);
    addProducer(
      net,
      "producer-1",
      SPEC,
      { acks: "all", "linger.ms": 5 },
      { topic: "t", recordsPerSecond: 100, keys: null, valueBytes: { dist: "fixed", bytes: 100 }, stopAtMs: 8000 },
    );
    net.add("consumer-1", createFetcherActor({ bootstrap: BROKERS, topic: "t", partitions: 1, consumer: {}, pollIntervalMs: 100 }), null);
    const sends = recordSends(net);
    net.startAll();
    net.runUntil(seconds(2));
    // Crash the leader while the consumer's next fetch is on the wire to it. (A fetch parked at the leader when it
    // crashes gets no reset: only what reaches a dead process is answered, so that one would wait for its timeout.)
    const crashAt = runUntilSent(net, sends, "consumer-1", "broker-0", "FetchRequest");
    net.crash("broker-0");
    net.runFor(seconds(10));

    const consumer = net.actor<FetcherActor>("consumer-1");
    const failed = net.observations.filter((o) => o.actor === "consumer-1" && o.event.type === "fetch.round" && o.event.error !== "NONE");
    expect(failed[0]).toMatchObject({ at: crashAt + ms(2), event: { broker: "broker-0", error: "NETWORK_EXCEPTION" } });
    expect(failed.every((o) => o.event.error === "NETWORK_EXCEPTION")).toBe(true);
    expect(consumer.disconnectsHandled).toBeGreaterThan(0);
    // While broker-0 still leads (until its session expires) it is retried, each time after a longer reconnect backoff.
    const retries = sends.filter((s) => s.from === "consumer-1" && s.to === "broker-0" && s.at > crashAt).map((s) => s.at);
    for (let i = 1; i < retries.length; i++) expect(retries[i]! - retries[i - 1]!).toBeGreaterThanOrEqual(ms(50));
    // The new leader is asked once elected, in a new session at its epoch: seconds after the crash, not request.timeout.ms (30 s).
    const elected = leaderElected(net, 1);
    const toNewLeader = sends.find((s) => s.from === "consumer-1" && s.to === "broker-1" && s.message.type === "FetchRequest");
    expect(elected?.event.leaderEpoch).toBe(1);
    expect(toNewLeader!.at).toBeGreaterThan(elected!.at);
    expect(toNewLeader!.at - elected!.at).toBeLessThan(ms(1_500));
    expect(asFetch(toNewLeader!.message)).toMatchObject({ sessionId: 0, sessionEpoch: 0 });
    expect(asFetch(toNewLeader!.message).topics[0]?.partitions[0]?.currentLeaderEpoch).toBe(1);
    // Every acknowledged record is read once, in order, with no gap.
    const offsets = consumer.polled.map((p) => p.record.offset);
    expect(offsets).toEqual(offsets.map((_, i) => i));
    expect(offsets.length).toBe(partitionOn(net, "broker-1", "t", 0)?.highWatermark);
    expect(consumer.polled.some((p) => p.at > crashAt && p.at < crashAt + seconds(6))).toBe(true);
  });

  it("a producer whose leader crashes fails its requests at once and retries on the new leader promptly", () => {
    const net = cluster(SPEC);
    addProducer(
      net,
      "producer-1",
      SPEC,
      { acks: "all", "linger.ms": 5 },
      { topic: "t", recordsPerSecond: 100, keys: null, valueBytes: { dist: "fixed", bytes: 100 }, stopAtMs: 8000 },
    );
    const sends = recordSends(net);
    const resets: Micros[] = [];
    net.onDeliver = (from, to, message) => {
      if (from === "broker-0" && to === "producer-1" && message.type === "SimDisconnect") resets.push(net.now);
    };
    net.startAll();
    net.runUntil(seconds(2));
    const crashAt = runUntilSent(net, sends, "producer-1", "broker-0", "ProduceRequest");
    net.crash("broker-0");
    net.runUntil(seconds(12));

    const acks = net.observed("producer.ack");
    expect(acks.every((a) => a.event.errorCode === 0)).toBe(true);
    expect(acks.reduce((n, a) => n + (a.event.count as number), 0)).toBe(800);
    expect(resets[0]).toBe(crashAt + ms(2));
    // Nothing waited for request.timeout.ms (30 s): the worst record waited for the election and one retry backoff.
    const elected = leaderElected(net, 1);
    expect(elected).toBeDefined();
    const worst = Math.max(...acks.map((a) => a.event.latencyMs as number));
    expect(ms(worst)).toBeLessThan(elected!.at - crashAt + ms(2_500));
    const firstOnNewLeader = acks.find((a) => a.at > elected!.at);
    expect(firstOnNewLeader!.at - elected!.at).toBeLessThan(ms(2_500));
    // After each reset broker-0 is left alone for the reconnect backoff (at least reconnect.backoff.ms = 50 ms).
    for (const send of sends.filter((s) => s.from === "producer-1" && s.to === "broker-0" && s.at > crashAt)) {
      const lastReset = resets.filter((at) => at <= send.at).at(-1);
      expect(lastReset).toBeDefined();
      expect(send.at - lastReset!).toBeGreaterThanOrEqual(ms(50));
    }
  });

  it("a follower whose leader crashes stops fetching from it at once: its next request waits replica.fetch.backoff.ms and closes the session", () => {
    const net = cluster(SPEC);
    const sends = recordSends(net);
    net.startAll();
    net.runUntil(seconds(1));
    const crashAt = runUntilSent(net, sends, "broker-1", "broker-0", "FetchRequest");
    const lastFetch = asFetch(sends.filter((s) => s.from === "broker-1" && s.to === "broker-0").at(-1)!.message);
    expect(lastFetch.sessionId).toBeGreaterThan(0);
    expect(lastFetch.sessionEpoch).toBeGreaterThan(0);
    net.crash("broker-0");
    net.runFor(seconds(6));

    // The reset came back at +2 ms; the next request waited replica.fetch.backoff.ms (1 s), not replica.socket.timeout.ms (30 s).
    const toLeader = sends.filter((s) => s.from === "broker-1" && s.to === "broker-0" && s.at > crashAt);
    expect(toLeader[0]?.at).toBe(crashAt + ms(2) + seconds(1));
    // Kafka's FetchSessionHandler.handleError: the next fetch is full and names the old session at epoch 0.
    const retry = asFetch(toLeader[0]!.message);
    expect(retry).toMatchObject({ sessionId: lastFetch.sessionId, sessionEpoch: 0 });
    expect(retry.topics.flatMap((t) => t.partitions.map((p) => p.partition))).toEqual([0]);
    // Once broker-0's session expired, broker-1 leads and broker-2 follows it; nothing more goes to broker-0.
    const elected = leaderElected(net, 1);
    expect(elected).toBeDefined();
    expect(toLeader.every((s) => s.at < elected!.at + ms(10))).toBe(true);
    expect(partitionOn(net, "broker-1", "t", 0)?.role).toBe("leader");
    expect(partitionOn(net, "broker-2", "t", 0)?.role).toBe("follower");
  });

  it("a leader's AlterPartition to a crashed controller fails at once and goes through as soon as the controller is back", () => {
    const net = cluster(SPEC);
    addProducer(
      net,
      "producer-1",
      SPEC,
      { acks: "1", "linger.ms": 5 },
      { topic: "t", recordsPerSecond: 20, keys: null, valueBytes: { dist: "fixed", bytes: 100 }, stopAtMs: 8000 },
    );
    const sends = recordSends(net);
    net.startAll();
    net.runUntil(seconds(1));
    net.crash("controller");
    // broker-2's fetches are lost: it falls behind, and broker-0 wants it out of the ISR after replica.lag.time.max.ms.
    net.dropIf = (from, _to, message) => from === "broker-2" && message.type === "FetchRequest";
    net.runUntil(seconds(6));
    const attempts = sends.filter((s) => s.from === "broker-0" && s.to === "controller" && s.message.type === "AlterPartitionRequest");
    // Each attempt was reset at once and retried after Kafka's 50 ms, instead of waiting controller.socket.timeout.ms (30 s).
    expect(attempts.length).toBeGreaterThan(20);
    for (let i = 1; i < attempts.length; i++) expect(attempts[i]!.at - attempts[i - 1]!.at).toBe(ms(52));
    net.start("controller");
    const backAt = net.now;
    net.runFor(seconds(1));
    const shrink = net.observed("controller.partition").find((o) => o.event.reason === "AlterPartition from broker 0");
    expect(shrink?.event.isr).toEqual([0, 1]);
    expect(shrink!.at - backAt).toBeLessThanOrEqual(ms(53));
  });

  it("the controller survives a crashed broker: its updates to it fail, nothing is resent, and the broker is taken back when it returns", () => {
    const net = cluster({ ...SPEC, topics: [{ name: "t", partitions: 2, replicationFactor: 2 }] });
    const sends = recordSends(net);
    const resets: Micros[] = [];
    net.onDeliver = (from, to, message) => {
      if (from === "broker-2" && to === "controller" && message.type === "SimDisconnect") resets.push(net.now);
    };
    net.startAll();
    net.runUntil(seconds(1));
    net.crash("broker-2");
    const crashAt = net.now;
    // A leadership move and the fencing of broker-2 are pushed to every broker, broker-2 included.
    net.control("controller", { command: "move-leader", topic: "t", partition: 0, to: 1 });
    net.runUntil(seconds(6));
    const commits = net.observed("controller.partition").filter((o) => o.at >= crashAt);
    const toDead = sends.filter((s) => s.from === "controller" && s.to === "broker-2" && s.at >= crashAt);
    expect(commits.map((o) => o.event.reason)).toEqual(["move-leader to broker 1", "broker session expired: broker 2 fenced"]);
    expect(toDead.map((s) => s.message.type)).toEqual(["UpdateMetadataRequest", "UpdateMetadataRequest"]);
    expect(resets).toEqual(toDead.map((s) => s.at + ms(2)));
    expect(net.actor<ControllerActor>("controller").partition("t", 1)?.isr).toEqual([1]);

    net.start("broker-2");
    net.runUntil(seconds(12));
    const controller = net.snapshot("controller") as { brokers: { nodeId: number; fenced: boolean }[] };
    expect(controller.brokers.find((b) => b.nodeId === 2)?.fenced).toBe(false);
    expect(net.actor<ControllerActor>("controller").partition("t", 1)?.isr).toEqual([1, 2]);
    expect(partitionOn(net, "broker-2", "t", 1)?.role).toBe("follower");
  });

  it("a SimDisconnect with nothing in flight, or repeated, changes nothing", () => {
    const run = (inject: boolean) => {
      const net = cluster(SPEC);
      addProducer(
        net,
        "producer-1",
        SPEC,
        { acks: "1", "linger.ms": 5 },
        { topic: "t", recordsPerSecond: 20, keys: null, valueBytes: { dist: "fixed", bytes: 100 }, stopAtMs: 3000 },
      );
      net.startAll();
      net.runUntil(seconds(1) + ms(100));
      if (inject) {
        // Peers nothing is in flight to: the producer never asks the controller; broker-1 follows broker-0,
        // not broker-2, and serves the producer nothing; the controller's updates are all acknowledged.
        for (let i = 0; i < 3; i++) {
          net.send("controller", "producer-1", RESET);
          net.send("broker-2", "broker-1", RESET);
          net.send("producer-1", "broker-1", RESET);
          net.send("broker-1", "controller", RESET);
        }
      }
      net.runUntil(seconds(5));
      return net;
    };
    const clean = run(false);
    const injected = run(true);
    expect(injected.observations).toEqual(clean.observations);
    expect(injected.observed("producer.ack").length).toBeGreaterThan(50);
    for (const id of [...BROKERS, "controller", "producer-1"]) expect(injected.snapshot(id)).toEqual(clean.snapshot(id));
  });
});
