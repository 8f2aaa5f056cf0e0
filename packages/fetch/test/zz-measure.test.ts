import { type Message, ms, seconds, toMs } from "@kcsim/protocol";
import fc from "fast-check";
import { it } from "vitest";
import { writeFileSync } from "node:fs";
import { addProducer, brokerId, type ClusterSpec, cluster } from "./data-path-fixtures.js";
import { createFetcherActor, type FetcherActor } from "./fetcher-actor.js";
import type { SimNetwork } from "./sim-network.js";

const out: Record<string, unknown> = {};
const label = process.env.MEASURE_LABEL ?? "run";

function firstAckAfter(net: SimNetwork, partition: number, after: number): number | null {
  const a = net.observed("producer.ack").find((o) => o.at > after && o.event.partition === partition && o.event.errorCode === 0);
  return a === undefined ? null : toMs(a.at - after);
}

it("failover test 1", () => {
  for (const resets of [false, true]) {
    const SPEC: ClusterSpec = {
      brokers: 3,
      topics: [{ name: "t", partitions: 3, replicationFactor: 3 }],
      broker: { "replica.lag.time.max.ms": 2000, "broker.session.timeout.ms": 3000, "broker.heartbeat.interval.ms": 500, "min.insync.replicas": 2 },
    };
    const net = cluster(SPEC);
    if (!resets) (net as unknown as { resetsConnections: boolean }).resetsConnections = false;
    addProducer(net, "producer-1", SPEC, { acks: "all", "linger.ms": 20, "request.timeout.ms": 1000, "delivery.timeout.ms": 20000 },
      { topic: "t", recordsPerSecond: 100, keys: { count: 50, dist: "uniform" }, valueBytes: { dist: "fixed", bytes: 100 }, stopAtMs: 8000 });
    net.startAll();
    net.runUntil(seconds(2));
    net.crash("broker-0");
    net.runUntil(seconds(6));
    net.restart("broker-0");
    net.runUntil(seconds(14));
    const acks = net.observed("producer.ack");
    const crashAcks = acks.filter((a) => a.at > seconds(2) && a.at < seconds(6));
    out[`failover1 resets=${resets}`] = {
      firstAckAfterCrashMs: [0, 1, 2].map((p) => firstAckAfter(net, p, seconds(2))),
      maxLatencyMs: Math.max(...acks.map((a) => a.event.latencyMs as number)),
      meanLatencyDuringOutageMs: crashAcks.reduce((n, a) => n + (a.event.latencyMs as number), 0) / Math.max(1, crashAcks.length),
      failed: acks.filter((a) => a.event.errorCode !== 0).length,
      acked: acks.length,
    };
  }
});

it("chaos", () => {
  const SPEC: ClusterSpec = {
    brokers: 3,
    topics: [{ name: "t", partitions: 2, replicationFactor: 3 }],
    broker: { "replica.lag.time.max.ms": 2000, "broker.session.timeout.ms": 3000, "broker.heartbeat.interval.ms": 500, "min.insync.replicas": 2,
      "replica.socket.timeout.ms": 2000, "controller.socket.timeout.ms": 2000 },
  };
  type Fault =
    | { readonly atMs: number; readonly kind: "crash"; readonly broker: number; readonly downMs: number }
    | { readonly atMs: number; readonly kind: "controller-restart" }
    | { readonly atMs: number; readonly kind: "lossy"; readonly lengthMs: number };
  const atMs = fc.integer({ min: 200, max: 5000 });
  const faultArb: fc.Arbitrary<Fault> = fc.oneof(
    fc.record({ atMs, kind: fc.constant("crash" as const), broker: fc.integer({ min: 0, max: 2 }), downMs: fc.integer({ min: 100, max: 5000 }) }),
    fc.record({ atMs, kind: fc.constant("controller-restart" as const) }),
    fc.record({ atMs, kind: fc.constant("lossy" as const), lengthMs: fc.integer({ min: 100, max: 2000 }) }),
  );
  for (const resets of [false, true]) {
    const runs: { max: number; mean: number; failed: number }[] = [];
    fc.assert(
      fc.property(fc.array(faultArb, { maxLength: 5 }), fc.integer({ min: 1, max: 1_000_000 }), (faults, seed) => {
        const net = cluster({ ...SPEC, seed });
        if (!resets) (net as unknown as { resetsConnections: boolean }).resetsConnections = false;
        addProducer(net, "producer-1", SPEC, { acks: "all", "linger.ms": 20, "request.timeout.ms": 1000, "delivery.timeout.ms": 60000 },
          { topic: "t", recordsPerSecond: 40, keys: null, valueBytes: { dist: "fixed", bytes: 50 }, stopAtMs: 6000 });
        let lossyUntil = 0;
        let counter = 0;
        net.dropIf = () => net.now < lossyUntil && ++counter % 3 === 0;
        net.startAll();
        const backAt = new Map<number, number>();
        const restartDue = (now: number) => {
          for (const [b, at] of backAt) {
            if (at > now) continue;
            backAt.delete(b);
            net.start(brokerId(b));
          }
        };
        for (const fault of [...faults].sort((a, b) => a.atMs - b.atMs)) {
          net.runUntil(ms(fault.atMs));
          restartDue(fault.atMs);
          if (fault.kind === "lossy") lossyUntil = ms(fault.atMs + fault.lengthMs);
          else if (fault.kind === "controller-restart") net.restart("controller");
          else if (!backAt.has(fault.broker)) {
            net.crash(brokerId(fault.broker));
            backAt.set(fault.broker, fault.atMs + fault.downMs);
          }
        }
        for (const at of [...backAt.values()].sort((a, b) => a - b)) {
          net.runUntil(Math.max(net.now, ms(at)));
          restartDue(at);
        }
        net.runUntil(Math.max(net.now, seconds(12)) + seconds(12));
        const acks = net.observed("producer.ack");
        const lat = acks.map((a) => a.event.latencyMs as number);
        runs.push({ max: Math.max(0, ...lat), mean: lat.reduce((a, b) => a + b, 0) / Math.max(1, lat.length), failed: acks.filter((a) => a.event.errorCode !== 0).length });
      }),
      { numRuns: 10, seed: 42 },
    );
    out[`chaos resets=${resets}`] = {
      perRunMaxLatencyMs: runs.map((r) => r.max),
      sumMax: runs.reduce((n, r) => n + r.max, 0),
      meanOfMeans: runs.reduce((n, r) => n + r.mean, 0) / runs.length,
      failed: runs.reduce((n, r) => n + r.failed, 0),
    };
  }
});

function consumerScenario(resets: boolean, crashWhile: "on-the-wire" | "parked"): Record<string, unknown> {
  const spec: ClusterSpec = {
    brokers: 3,
    topics: [{ name: "t", partitions: 1, replicationFactor: 3 }],
    broker: { "replica.lag.time.max.ms": 2000, "broker.session.timeout.ms": 3000, "broker.heartbeat.interval.ms": 500, "min.insync.replicas": 2 },
  };
  const net = cluster(spec);
  if (!resets) (net as unknown as { resetsConnections: boolean }).resetsConnections = false;
  if (crashWhile === "on-the-wire")
    addProducer(net, "producer-1", spec, { acks: "all", "linger.ms": 5 }, { topic: "t", recordsPerSecond: 100, keys: null, valueBytes: { dist: "fixed", bytes: 100 }, stopAtMs: 40000 });
  net.add("consumer-1", createFetcherActor({ bootstrap: ["broker-0", "broker-1", "broker-2"], topic: "t", partitions: 1, consumer: {}, pollIntervalMs: 100 }), null);
  const fetchesTo: { at: number; to: string }[] = [];
  net.onSend = (from, to, message: Message) => {
    if (from === "consumer-1" && message.type === "FetchRequest") fetchesTo.push({ at: net.now, to });
  };
  let responded = false;
  net.onDeliver = (from, to, message) => {
    if (from === "broker-0" && to === "consumer-1" && message.type === "FetchResponse") responded = true;
  };
  net.startAll();
  net.runUntil(seconds(2));
  responded = false;
  net.runUntilTrue(() => responded, seconds(5));
  if (crashWhile === "parked") net.runFor(ms(100));
  const crashAt = net.now;
  net.crash("broker-0");
  net.runFor(seconds(40));
  const first = fetchesTo.find((f) => f.at > crashAt && f.to !== "broker-0");
  const consumer = net.actor<FetcherActor>("consumer-1");
  const after = consumer.polled.filter((p) => p.at > crashAt);
  return {
    firstFetchToNewLeaderMs: first === undefined ? null : toMs(first.at - crashAt),
    firstRecordAfterCrashMs: after[0] === undefined ? null : toMs(after[0].at - crashAt),
    fetchesToDeadLeader: fetchesTo.filter((f) => f.at > crashAt && f.to === "broker-0").length,
    handled: consumer.disconnectsHandled,
    left: consumer.disconnectsLeft,
  };
}

it("consumer", () => {
  for (const resets of [false, true])
    for (const w of ["on-the-wire", "parked"] as const) out[`consumer ${w} resets=${resets}`] = consumerScenario(resets, w);
});

it("write", () => {
  writeFileSync(`/tmp/measure/${label}.json`, JSON.stringify(out, null, 1));
});
