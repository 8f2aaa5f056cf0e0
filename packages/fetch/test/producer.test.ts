import { ConfigError, ErrorCode, ms, seconds } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import type { BrokerActor } from "../src/broker/broker-actor.js";
import { murmur2, partitionForKey, toPositive } from "../src/producer/murmur2.js";
import { createProducer } from "../src/producer/producer-actor.js";
import { addProducer, type ClusterSpec, cluster } from "./data-path-fixtures.js";
import type { SimNetwork } from "./sim-network.js";

const utf8 = new TextEncoder();

describe("murmur2 (Kafka's Utils.murmur2)", () => {
  it("matches Kafka's UtilsTest vectors bit for bit", () => {
    const cases: [string, number][] = [
      ["21", -973932308],
      ["foobar", -790332482],
      ["a-little-bit-long-string", -985981536],
      ["a-little-bit-longer-string", -1486304829],
      ["lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58897971],
      ["abc", 479470107],
    ];
    for (const [key, hash] of cases) expect(murmur2(utf8.encode(key))).toBe(hash);
  });

  it("partitions keys as toPositive(murmur2(utf-8 key)) % partitions, toPositive clearing the sign bit", () => {
    expect(toPositive(-973932308)).toBe(-973932308 & 0x7fffffff);
    expect(toPositive(-2147483648)).toBe(0);
    expect(partitionForKey("21", 4)).toBe((-973932308 & 0x7fffffff) % 4);
    expect(partitionForKey("foobar", 7)).toBe((-790332482 & 0x7fffffff) % 7);
    // Multi-byte UTF-8 goes through the encoder, not UTF-16 code units.
    expect(partitionForKey("é", 1000)).toBe(toPositive(murmur2(Uint8Array.from([0xc3, 0xa9]))) % 1000);
  });
});

const SPEC: ClusterSpec = {
  brokers: 3,
  topics: [{ name: "t", partitions: 3, replicationFactor: 3 }],
  broker: { "broker.session.timeout.ms": 3000, "broker.heartbeat.interval.ms": 500 },
};

function withProducer(producer: Record<string, unknown>, workload: Record<string, unknown>): SimNetwork {
  const net = cluster(SPEC);
  addProducer(net, "producer-1", SPEC, producer as never, { topic: "t", valueBytes: { dist: "fixed", bytes: 100 }, ...workload } as never);
  net.startAll();
  return net;
}

function logOf(net: SimNetwork, broker: string, partition: number) {
  return net.actor<BrokerActor>(broker).replicaManager.partition("t", partition)?.log.batches() ?? [];
}

describe("producer", () => {
  it("sends keyed records to murmur2 partitions and tags values with unique sequence numbers", () => {
    const net = withProducer({ "linger.ms": 10 }, { recordsPerSecond: 200, keys: { count: 20, dist: "zipf" }, stopAtMs: 1000 });
    net.runUntil(seconds(2));
    const values: string[] = [];
    for (let p = 0; p < 3; p++) {
      const leader = `broker-${p}`;
      for (const batch of logOf(net, leader, p)) {
        for (const r of batch.records) {
          expect(partitionForKey(r.key ?? "", 3)).toBe(p);
          values.push(r.value ?? "");
        }
      }
    }
    expect(values.length).toBe(200);
    expect(new Set(values).size).toBe(200);
    expect(values.every((v) => /^producer-1:\d+$/.test(v))).toBe(true);
    const acks = net.observed("producer.ack");
    expect(acks.every((a) => a.event.errorCode === 0 && a.event.acks === "all")).toBe(true);
    expect(acks.reduce((n, a) => n + (a.event.count as number), 0)).toBe(200);
  });

  it("fills sticky batches up to batch.size for null keys, then switches partition", () => {
    // A 100-byte value with small offset and timestamp deltas takes 109 bytes in a batch (after 61 bytes of
    // batch header): 9 records fill 1042 bytes exactly, and a full batch leaves without lingering.
    const net = withProducer({ "linger.ms": 1000, "batch.size": 1042 }, { recordsPerSecond: 1000, keys: null, stopAtMs: 90 });
    net.runUntil(seconds(3));
    const acks = net.observed("producer.ack").map((a) => a.event);
    expect(acks.reduce((n, a) => n + (a.count as number), 0)).toBe(90);
    // Full batches leave at once (9 records each): the partition switches after each batch.size bytes, to a partition
    // drawn again among all three (KIP-794 may draw the same one; KIP-480 never did).
    expect(acks.map((a) => a.count)).toEqual([9, 9, 9, 9, 9, 9, 9, 9, 9, 9]);
    expect(new Set(acks.map((a) => a.partition)).size).toBe(3);
    expect(acks.some((a, i) => i > 0 && a.partition === acks[i - 1]?.partition)).toBe(true);
  });

  it("holds a batch for linger.ms, and acks=0 batches complete without offsets", () => {
    // One record, due at 0.5 s.
    const net = withProducer({ "linger.ms": 50, acks: "0" }, { recordsPerSecond: 2, keys: null, stopAtMs: 600 });
    net.runUntil(seconds(1));
    const acks = net.observed("producer.ack");
    expect(acks.map((a) => [a.at, a.event])).toEqual([
      [
        ms(550),
        {
          type: "producer.ack",
          topic: "t",
          partition: acks[0]?.event.partition,
          baseOffset: -1,
          lastOffset: -1,
          count: 1,
          acks: "0",
          errorCode: 0,
          latencyMs: 50,
          producerId: -1,
          producerEpoch: -1,
          baseSequence: -1,
          transactionalId: null,
          // acks=0: no broker answered it.
          leader: null,
        },
      ],
    ]);
    net.runUntil(seconds(2));
    expect(logOf(net, "broker-0", 0).length + logOf(net, "broker-1", 1).length + logOf(net, "broker-2", 2).length).toBe(1);
  });

  it("retries NOT_LEADER_OR_FOLLOWER after a leadership move with refreshed metadata; nothing is lost", () => {
    const net = withProducer({ "linger.ms": 5 }, { recordsPerSecond: 100, keys: { count: 9, dist: "uniform" }, stopAtMs: 2000 });
    net.runUntil(seconds(1));
    net.control("controller", { command: "move-leader", topic: "t", partition: 0, to: 2 });
    net.runUntil(seconds(3));
    const acks = net.observed("producer.ack");
    expect(acks.every((a) => a.event.errorCode === 0)).toBe(true);
    expect(acks.reduce((n, a) => n + (a.event.count as number), 0)).toBe(200);
    const afterMove = acks.filter((a) => a.event.partition === 0 && a.at > seconds(1) + ms(20));
    expect(afterMove.length).toBeGreaterThan(0);
    expect(logOf(net, "broker-2", 0).at(-1)?.partitionLeaderEpoch).toBe(1);
  });

  it("fails batches with REQUEST_TIMED_OUT after delivery.timeout.ms when no broker answers", () => {
    const net = withProducer(
      { "linger.ms": 0, "request.timeout.ms": 500, "delivery.timeout.ms": 2000 },
      { recordsPerSecond: 10, keys: null, stopAtMs: 150 },
    );
    net.runUntil(ms(50));
    for (const b of ["broker-0", "broker-1", "broker-2"]) net.crash(b);
    net.runUntil(seconds(5));
    // The one record (due at 0.1 s) is retried on each request timeout until its delivery timeout.
    const acks = net.observed("producer.ack");
    expect(acks.map((a) => [a.at, a.event.errorCode, a.event.latencyMs])).toEqual([[ms(2100), ErrorCode.REQUEST_TIMED_OUT, 2000]]);
  });

  it("rejects bad configs with one line naming the field", () => {
    const base = {
      bootstrap: ["broker-0"],
      topics: [{ name: "t", partitions: 1 }],
      workload: { topic: "t", recordsPerSecond: 1, keys: null, valueBytes: { dist: "fixed", bytes: 1 } },
    };
    const bad = (patch: Record<string, unknown>) => () => createProducer("p", { ...base, ...patch } as never);
    expect(bad({ producer: { "enable.idempotence": true, acks: "1" } })).toThrow(
      /'producer.acks' must be all in order to use the idempotent producer/,
    );
    expect(bad({ producer: { "transactional.id": "tx" } })).toThrow(/'transactionCoordinators' must name at least one/);
    expect(bad({ producer: { "delivery.timeout.ms": 100 } })).toThrow(/'producer.delivery.timeout.ms' = 100 must be at least/);
    expect(bad({ producer: { lingerms: 1 } })).toThrow(ConfigError);
    expect(bad({ workload: { ...base.workload, topic: "u" } })).toThrow(/'workload.topic' = "u" is not one of the configured topics/);
    expect(bad({ workload: { ...base.workload, valueBytes: { dist: "uniform", minBytes: 5, maxBytes: 1 } } })).toThrow(
      /'workload.valueBytes.maxBytes' = 1 is below the minimum 5/,
    );
    expect(bad({ bootstrap: [] })).toThrow(/'bootstrap' must have at least 1 item/);
    for (const make of [bad({ producer: { "enable.idempotence": true, acks: "1" } }), bad({ topics: [{ name: "t" }] })]) {
      expect(make).toThrow(/^producer config: '[^']+' [^\n]+$/);
    }
  });
});
