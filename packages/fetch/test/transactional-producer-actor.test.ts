import { type JsonValue, seconds } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { createProducer } from "../src/index.js";
import { type ClusterSpec, cluster } from "./data-path-fixtures.js";
import { createFakeTransactionCoordinator } from "./fake-transaction-coordinator.js";
import { createFetcherActor, type FetcherActor } from "./fetcher-actor.js";
import type { SimNetwork } from "./sim-network.js";

const SPEC: ClusterSpec = {
  brokers: 3,
  topics: [{ name: "t", partitions: 3, replicationFactor: 3 }],
  broker: { "replica.lag.time.max.ms": 2000, "broker.session.timeout.ms": 3000, "broker.heartbeat.interval.ms": 500 },
};
const BROKERS = ["broker-0", "broker-1", "broker-2"];

/** A transactional producer actor writing 100 records a second for `seconds` s, and a reader of each isolation level. */
function world(transaction: Record<string, JsonValue>, producerSeconds = 3, seed = 1): SimNetwork {
  const net = cluster({ ...SPEC, seed });
  net.add("txn-coordinator-0", createFakeTransactionCoordinator({ brokers: BROKERS, groupCoordinator: null }), null);
  net.add("producer-1", createProducer, {
    bootstrap: BROKERS,
    topics: [{ name: "t", partitions: 3 }],
    producer: { "transactional.id": "orders-tx", "linger.ms": 5, "request.timeout.ms": 500, "delivery.timeout.ms": 5000 },
    workload: {
      topic: "t",
      recordsPerSecond: 100,
      keys: { count: 50, dist: "uniform" },
      valueBytes: { dist: "fixed", bytes: 80 },
      stopAtMs: producerSeconds * 1000,
    },
    transactionCoordinators: ["txn-coordinator-0"],
    transaction,
  });
  for (const isolation of ["read_committed", "read_uncommitted"]) {
    net.add(
      `reader-${isolation}`,
      createFetcherActor({
        bootstrap: BROKERS,
        topic: "t",
        partitions: 3,
        consumer: { "isolation.level": isolation, "fetch.max.wait.ms": 100 },
        pollIntervalMs: 20,
      }),
      null,
    );
  }
  return net;
}

const values = (net: SimNetwork, isolation: string) =>
  net.actor<FetcherActor>(`reader-${isolation}`).polled.map((p) => p.record.value ?? "");

function transactions(net: SimNetwork) {
  const ended = net.observed("producer.txn").map((o) => o.event);
  const records = (outcome: string) => ended.filter((t) => t.outcome === outcome).reduce((n, t) => n + (t.records as number), 0);
  return {
    committed: ended.filter((t) => t.outcome === "committed").length,
    aborted: ended.filter((t) => t.outcome === "aborted").length,
    committedRecords: records("committed"),
    abortedRecords: records("aborted"),
  };
}

describe("the producer actor with transactional.id", () => {
  it("writes its workload in transactions, some aborted on purpose: read_committed sees exactly the committed records, once", () => {
    const net = world({ recordsPerTransaction: 20, abortRatio: 0.3 });
    net.startAll();
    net.runUntil(seconds(6));
    const txns = transactions(net);
    expect(txns.committed).toBeGreaterThan(3);
    expect(txns.aborted).toBeGreaterThan(1);
    expect(txns.committedRecords + txns.abortedRecords).toBe(300);
    const committed = values(net, "read_committed");
    expect(committed).toHaveLength(txns.committedRecords);
    expect(new Set(committed).size).toBe(committed.length);
    // read_uncommitted also sees the aborted transactions' records that went out before the abort (the rest were dropped unsent).
    const everything = values(net, "read_uncommitted");
    expect(new Set(everything).size).toBe(everything.length);
    expect(everything.length).toBeGreaterThan(txns.committedRecords);
    expect(everything.length).toBeLessThanOrEqual(300);
    for (const value of committed) expect(everything).toContain(value);
    // Each transaction's markers: one per partition it wrote, committed or aborted as the producer saw it.
    const markers = net.observed("broker.txn-marker").map((o) => o.event);
    expect(markers.filter((m) => m.committed).length).toBeGreaterThanOrEqual(txns.committed);
    expect(markers.filter((m) => !m.committed).length).toBeGreaterThanOrEqual(txns.aborted);
    expect(net.snapshot("producer-1")).toMatchObject({ state: "in-transaction", waitingRecords: 0, producerRestarts: 0 });
  });

  it("ends transactions after transactionMs when records come slowly", () => {
    const net = world({ recordsPerTransaction: 1000, transactionMs: 250 }, 2);
    net.startAll();
    net.runUntil(seconds(4));
    const txns = transactions(net);
    expect(txns.committed).toBeGreaterThanOrEqual(6);
    expect(txns.committedRecords).toBe(200);
    expect(values(net, "read_committed")).toHaveLength(200);
  });

  it("loses no committed record and duplicates none when produce, transaction and marker messages are lost", () => {
    for (const seed of [1, 2, 3]) {
      const net = world({ recordsPerTransaction: 15, abortRatio: 0.2 }, 3, seed);
      let n = 0;
      const lossy = new Set([
        "ProduceRequest",
        "ProduceResponse",
        "EndTxnResponse",
        "AddPartitionsToTxnResponse",
        "WriteTxnMarkersResponse",
      ]);
      net.dropIf = (_from, _to, message) => net.now < seconds(3) && lossy.has(message.type) && ++n % 9 === 0;
      net.startAll();
      net.runUntil(seconds(15));
      const txns = transactions(net);
      expect(txns.committed).toBeGreaterThan(3);
      const committed = values(net, "read_committed");
      expect(new Set(committed).size).toBe(committed.length);
      expect(committed).toHaveLength(txns.committedRecords);
      // No record was written twice, whatever was retried.
      expect(new Set(values(net, "read_uncommitted")).size).toBe(values(net, "read_uncommitted").length);
    }
  });

  it("a producer restarted mid-transaction fences its old incarnation: the open transaction is aborted, the workload goes on", () => {
    const net = world({ recordsPerTransaction: 50 }, 4);
    net.startAll();
    net.runUntil(seconds(1) + 300_000);
    net.restart("producer-1");
    net.runUntil(seconds(8));
    const txns = transactions(net);
    const committed = values(net, "read_committed");
    expect(new Set(committed).size).toBe(committed.length);
    expect(committed).toHaveLength(txns.committedRecords);
    // The crashed incarnation's open transaction (its records reached the leaders) was aborted by the coordinator.
    const written = values(net, "read_uncommitted");
    expect(written.length).toBeGreaterThan(committed.length);
    expect(new Set(written).size).toBe(written.length);
    expect(net.observed("producer.id").map((o) => o.event.producerEpoch)).toEqual([0, 2]);
  });
});
