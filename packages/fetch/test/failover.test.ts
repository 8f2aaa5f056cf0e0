import { type Message, ms, type ProduceRequest, type RecordBatch, seconds, tpKey } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import type { BrokerActor } from "../src/broker/broker-actor.js";
import type { ControllerActor } from "../src/controller/controller-actor.js";
import { addProducer, type ClusterSpec, cluster, partitionOn } from "./data-path-fixtures.js";
import type { SimNetwork } from "./sim-network.js";

const SPEC: ClusterSpec = {
  brokers: 3,
  topics: [{ name: "t", partitions: 3, replicationFactor: 3 }],
  broker: {
    "replica.lag.time.max.ms": 2000,
    "broker.session.timeout.ms": 3000,
    "broker.heartbeat.interval.ms": 500,
    "min.insync.replicas": 2,
  },
};

/** Every record a broker acknowledged to the producer, by partition and offset, from the wire. */
function trackAcknowledged(net: SimNetwork): Map<string, Map<number, string>> {
  const sent = new Map<string, ProduceRequest>();
  const acknowledged = new Map<string, Map<number, string>>();
  net.onDeliver = (from: string, to: string, message: Message) => {
    if (message.type === "ProduceRequest") sent.set(`${from}/${message.correlationId}`, message);
    if (message.type !== "ProduceResponse") return;
    const request = sent.get(`${to}/${message.correlationId}`);
    for (const topic of message.responses) {
      for (const p of topic.partitionResponses) {
        if (p.errorCode !== 0 || request === undefined) continue;
        const batch = request.topicData.find((t) => t.name === topic.name)?.partitionData.find((d) => d.index === p.index)?.records;
        const byOffset = acknowledged.get(tpKey(topic.name, p.index)) ?? new Map<number, string>();
        for (const record of batch?.records ?? []) byOffset.set(p.baseOffset + record.offsetDelta, record.value ?? "");
        acknowledged.set(tpKey(topic.name, p.index), byOffset);
      }
    }
  };
  return acknowledged;
}

function valuesByOffset(batches: readonly RecordBatch[]): Map<number, string> {
  const values = new Map<number, string>();
  for (const batch of batches) for (const r of batch.records) values.set(batch.baseOffset + r.offsetDelta, r.value ?? "");
  return values;
}

describe("controller failover", () => {
  it("moves a crashed leader's partitions to ISR members; no record acknowledged with acks=all is lost", () => {
    const net = cluster(SPEC);
    addProducer(
      net,
      "producer-1",
      SPEC,
      { acks: "all", "linger.ms": 20, "request.timeout.ms": 1000, "delivery.timeout.ms": 20000 },
      {
        topic: "t",
        recordsPerSecond: 100,
        keys: { count: 50, dist: "uniform" },
        valueBytes: { dist: "fixed", bytes: 100 },
        stopAtMs: 8000,
      },
    );
    const acknowledged = trackAcknowledged(net);
    net.startAll();
    net.runUntil(seconds(2));
    expect(partitionOn(net, "broker-0", "t", 0)?.role).toBe("leader");
    net.crash("broker-0");
    net.runUntil(seconds(6));

    // Fenced after its session, broker-0's partitions went to the first live ISR replica, epoch + 1.
    const controller = net.actor<ControllerActor>("controller");
    expect(controller.partition("t", 0)).toMatchObject({ leader: 1, leaderEpoch: 1, isr: [1, 2] });
    expect(controller.partition("t", 2)).toMatchObject({ leader: 2, leaderEpoch: 0, isr: [2, 1] });
    const fence = net.observed("controller.partition").find((o) => o.event.partition === 0 && o.event.leaderEpoch === 1);
    expect(fence?.event.reason).toBe("broker session expired: broker 0 fenced");
    expect(fence?.at).toBeGreaterThanOrEqual(seconds(2) + ms(2500));
    expect(fence?.at).toBeLessThanOrEqual(seconds(2) + ms(3001));

    // broker-0 comes back: it re-registers (refused until its session is gone, which it is), catches up and rejoins.
    net.restart("broker-0");
    net.runUntil(seconds(14));
    const acks = net.observed("producer.ack");
    expect(acks.length).toBeGreaterThan(100);
    expect(acks.every((a) => a.event.errorCode === 0)).toBe(true);

    for (let p = 0; p < 3; p++) {
      const leaderId = controller.partition("t", p)?.leader ?? -1;
      const leader = net.actor<BrokerActor>(`broker-${leaderId}`).replicaManager.partition("t", p);
      const log = valuesByOffset(leader?.log.batches() ?? []);
      for (const [offset, value] of acknowledged.get(tpKey("t", p)) ?? new Map()) expect(log.get(offset)).toBe(value);
      // Every replica holds the same records up to the high watermark.
      for (const broker of ["broker-0", "broker-1", "broker-2"]) {
        const replica = net.actor<BrokerActor>(broker).replicaManager.partition("t", p);
        expect(replica?.log.logEndOffset).toBe(leader?.log.logEndOffset);
        expect(valuesByOffset(replica?.log.batches() ?? [])).toEqual(log);
      }
      expect([...(controller.partition("t", p)?.isr ?? [])].sort()).toEqual([0, 1, 2]);
    }
    const acknowledgedCount = [...acknowledged.values()].reduce((n, m) => n + m.size, 0);
    expect(acknowledgedCount).toBe(acks.reduce((n, a) => n + (a.event.count as number), 0));
  });

  it("a broker restarted after a crash rebuilds its log from storage; an offline partition comes back with it", () => {
    const spec: ClusterSpec = {
      ...SPEC,
      brokers: 1,
      topics: [{ name: "t", partitions: 1, replicationFactor: 1 }],
      broker: { ...SPEC.broker, "min.insync.replicas": 1 },
    };
    const net = cluster(spec);
    addProducer(
      net,
      "producer-1",
      spec,
      { acks: "all", "linger.ms": 0 },
      {
        topic: "t",
        recordsPerSecond: 100,
        keys: null,
        valueBytes: { dist: "uniform", minBytes: 10, maxBytes: 50 },
        stopAtMs: 1000,
      },
    );
    net.startAll();
    net.runUntil(seconds(6));
    const before = net.actor<BrokerActor>("broker-0").replicaManager.partition("t", 0);
    const batches = before?.log.batches() ?? [];
    expect(before?.log.logEndOffset).toBe(100);
    net.crash("broker-0");
    net.runUntil(seconds(6) + ms(100));
    net.start("broker-0");
    const after = net.actor<BrokerActor>("broker-0").replicaManager.partition("t", 0);
    // Log, log end and the checkpointed high watermark are back; the role waits for the controller.
    expect(after?.log.batches()).toEqual(batches);
    expect(after?.log.highWatermark).toBe(100);
    expect(after?.role).toBe("none");

    net.runUntil(seconds(15));
    const controller = net.actor<ControllerActor>("controller");
    const states = net.observed("controller.partition").map((o) => [o.event.leader, o.event.leaderEpoch, o.event.reason]);
    expect(states).toEqual([
      [0, 0, "create"],
      [-1, 1, "broker session expired: broker 0 fenced"],
      [0, 2, "broker 0 unfenced"],
    ]);
    expect(controller.partition("t", 0)).toMatchObject({ leader: 0, isr: [0] });
    expect(partitionOn(net, "broker-0", "t", 0)).toMatchObject({ role: "leader", leaderEpoch: 2, logEndOffset: 100, highWatermark: 100 });
  });
});
