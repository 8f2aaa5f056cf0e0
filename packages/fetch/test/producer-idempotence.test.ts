import { type JsonValue, ms, seconds } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import type { BrokerActor } from "../src/broker/broker-actor.js";
import { BROKER_PRODUCER_ID_BASE } from "../src/index.js";
import { addProducer, type ClusterSpec, cluster } from "./data-path-fixtures.js";
import type { SimNetwork } from "./sim-network.js";

const SPEC: ClusterSpec = {
  brokers: 3,
  topics: [{ name: "t", partitions: 3, replicationFactor: 3 }],
  broker: { "broker.session.timeout.ms": 3000, "broker.heartbeat.interval.ms": 500 },
};

/** Every record value in the partition logs of "t", as the leaders hold them. */
function loggedValues(net: SimNetwork): string[] {
  const values: string[] = [];
  for (let p = 0; p < 3; p++) {
    const batches = net.actor<BrokerActor>(`broker-${p}`).replicaManager.partition("t", p)?.log.batches() ?? [];
    for (const batch of batches) for (const r of batch.records) values.push(r.value ?? "");
  }
  return values;
}

/** A producer whose answers are lost one time in four for two seconds: each loss is a retry of a batch the leader already has. */
function lossyRun(producer: Record<string, JsonValue>): SimNetwork {
  const net = cluster(SPEC);
  addProducer(
    net,
    "producer-1",
    SPEC,
    { "linger.ms": 5, "request.timeout.ms": 200, ...producer },
    {
      topic: "t",
      recordsPerSecond: 200,
      keys: { count: 30, dist: "uniform" },
      valueBytes: { dist: "fixed", bytes: 50 },
      stopAtMs: 2000,
    },
  );
  let answers = 0;
  net.dropIf = (_from, _to, message) => message.type === "ProduceResponse" && net.now < seconds(2) && answers++ % 4 === 0;
  net.startAll();
  net.runUntil(seconds(8));
  return net;
}

describe("the idempotent producer (enable.idempotence, Kafka's default)", () => {
  it("gets a producer id from a broker and numbers its batches per partition", () => {
    const net = lossyRun({});
    const ids = net.observed("producer.id").map((o) => o.event);
    expect(ids).toHaveLength(1);
    expect(ids[0]).toMatchObject({ transactionalId: null, producerEpoch: 0, reason: "init" });
    expect(ids[0]?.producerId as number).toBeGreaterThanOrEqual(BROKER_PRODUCER_ID_BASE);
    const acks = net.observed("producer.ack").map((o) => o.event);
    for (let p = 0; p < 3; p++) {
      // Retried batches are answered late, but the sequences of a partition's batches are contiguous from 0.
      let next = 0;
      const bySequence = acks.filter((a) => a.partition === p).sort((a, b) => (a.baseSequence as number) - (b.baseSequence as number));
      for (const ack of bySequence) {
        expect(ack.baseSequence).toBe(next);
        next += ack.count as number;
      }
    }
  });

  it("lost answers make it retry, and the leaders drop the duplicates: every record is in the log once", () => {
    const net = lossyRun({});
    const values = loggedValues(net);
    expect(values).toHaveLength(400);
    expect(new Set(values).size).toBe(400);
    const acks = net.observed("producer.ack").map((o) => o.event);
    expect(acks.every((a) => a.errorCode === 0)).toBe(true);
    expect(acks.reduce((n, a) => n + (a.count as number), 0)).toBe(400);
  });

  it("without idempotence the same losses write duplicates", () => {
    const net = lossyRun({ "enable.idempotence": false });
    const values = loggedValues(net);
    expect(new Set(values).size).toBe(400);
    expect(values.length).toBeGreaterThan(400);
    expect(net.observed("producer.id")).toEqual([]);
  });

  it("is off when acks is not all and enable.idempotence was not set (Kafka's rule)", () => {
    const net = cluster(SPEC);
    addProducer(
      net,
      "producer-1",
      SPEC,
      { acks: "1" },
      { topic: "t", recordsPerSecond: 10, keys: null, valueBytes: { dist: "fixed", bytes: 10 }, stopAtMs: 500 },
    );
    net.startAll();
    net.runUntil(seconds(1));
    expect(net.observed("producer.id")).toEqual([]);
    expect(net.observed("producer.ack").every((o) => o.event.producerId === -1 && o.event.errorCode === 0)).toBe(true);
    expect(net.now).toBe(ms(1000));
  });
});
