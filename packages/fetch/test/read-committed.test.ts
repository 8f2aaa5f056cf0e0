import { ControlRecordType, type FetchResponsePartition, IsolationLevel, ms, type RecordBatch, seconds } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { CompletedFetch } from "../src/consumer/completed-fetch.js";
import { FetchMetrics } from "../src/consumer/fetch-metrics.js";
import { FetchMetricsAggregator } from "../src/consumer/fetch-metrics-aggregator.js";
import { controlBatchOf } from "../src/index.js";
import { answer, type ClusterSpec, cluster, produceRequest } from "./data-path-fixtures.js";
import { createFetcherActor, type FetcherActor } from "./fetcher-actor.js";
import type { SimNetwork } from "./sim-network.js";
import { type ProducerStamp, stampedBatch, writeMarkers } from "./txn-fixtures.js";

/** A batch at `baseOffset` as a log holds it. */
function at(baseOffset: number, batch: RecordBatch): RecordBatch {
  return { ...batch, baseOffset };
}

function marker(baseOffset: number, producerId: number, abort: boolean): RecordBatch {
  const type = abort ? ControlRecordType.ABORT : ControlRecordType.COMMIT;
  return at(baseOffset, controlBatchOf(producerId, 0, { controlType: type, coordinatorEpoch: 0 }, 0));
}

function partitionData(records: RecordBatch[], abortedTransactions: FetchResponsePartition["abortedTransactions"]): FetchResponsePartition {
  return {
    partitionIndex: 0,
    errorCode: 0,
    highWatermark: 100,
    lastStableOffset: 100,
    logStartOffset: 0,
    abortedTransactions,
    preferredReadReplica: -1,
    records,
  };
}

function consume(data: FetchResponsePartition, fetchOffset: number, isolationLevel: number): { values: (string | null)[]; next: number } {
  const aggregator = new FetchMetricsAggregator(new FetchMetrics(), ["t-0"]);
  const fetch = new CompletedFetch({ topic: "t", partition: 0 }, "t-0", data, fetchOffset, aggregator, isolationLevel);
  const values = fetch.fetchRecords(1000, 0).map((r) => r.value);
  fetch.advanceToNextRecord(0);
  return { values, next: fetch.nextFetchOffset };
}

describe("CompletedFetch under read_committed (Kafka's nextFetchedBatch)", () => {
  // Offsets: 0 A(aborted) | 1 B(committed) | 2 plain | 3 A | 4 ABORT(A) | 5 COMMIT(B) | 6 A again, a new transaction, committed | 7 COMMIT(A)
  const txn = (producerId: number, sequence: number): ProducerStamp => ({ producerId, epoch: 0, sequence, transactional: true });
  const log = [
    at(0, stampedBatch(txn(1, 0), 1, "a")),
    at(1, stampedBatch(txn(2, 0), 1, "b")),
    at(2, stampedBatch({ producerId: 3, epoch: 0, sequence: 0 }, 1, "plain")),
    at(3, stampedBatch(txn(1, 1), 1, "a-again")),
    marker(4, 1, true),
    marker(5, 2, false),
    at(6, stampedBatch(txn(1, 2), 1, "a-next")),
    marker(7, 1, false),
  ];

  it("skips the aborted producer's batches up to its ABORT marker, and never hands out markers", () => {
    const read = consume(partitionData(log, [{ producerId: 1, firstOffset: 0 }]), 0, IsolationLevel.READ_COMMITTED);
    expect(read.values).toEqual(["b0", "plain0", "a-next0"]);
    expect(read.next).toBe(8);
  });

  it("skips an aborted transaction that began before the fetch offset", () => {
    const read = consume(partitionData(log.slice(3), [{ producerId: 1, firstOffset: 0 }]), 3, IsolationLevel.READ_COMMITTED);
    expect(read.values).toEqual(["a-next0"]);
    expect(read.next).toBe(8);
  });

  it("hands out everything but the markers under read_uncommitted", () => {
    const read = consume(partitionData(log, null), 0, IsolationLevel.READ_UNCOMMITTED);
    expect(read.values).toEqual(["a0", "b0", "plain0", "a-again0", "a-next0"]);
    expect(read.next).toBe(8);
  });
});

const SPEC: ClusterSpec = {
  brokers: 3,
  topics: [{ name: "t", partitions: 1, replicationFactor: 3 }],
  broker: { "replica.lag.time.max.ms": 2000, "broker.session.timeout.ms": 3000, "broker.heartbeat.interval.ms": 500 },
};
const BROKERS = ["broker-0", "broker-1", "broker-2"];

function withConsumers(): SimNetwork {
  const net = cluster(SPEC);
  net.addClient("client");
  const consumer = (isolation: string, startAt: "zero" | "latest") =>
    createFetcherActor({
      bootstrap: BROKERS,
      topic: "t",
      partitions: 1,
      consumer: { "isolation.level": isolation, "fetch.max.wait.ms": 100 },
      pollIntervalMs: 50,
      startAt,
    });
  net.add("consumer-committed", consumer("read_committed", "zero"), null);
  net.add("consumer-uncommitted", consumer("read_uncommitted", "zero"), null);
  net.startAll();
  net.runFor(ms(20));
  return net;
}

function produce(net: SimNetwork, stamp: ProducerStamp, prefix: string, records = 1): void {
  const request = produceRequest("t", 0, stampedBatch(stamp, records, prefix), -1);
  net.send("client", "broker-0", request);
  net.runUntilTrue(() => answer(net, "ProduceResponse", request.correlationId) !== undefined, seconds(5));
  expect(answer(net, "ProduceResponse", request.correlationId)?.responses[0]?.partitionResponses[0]?.errorCode).toBe(0);
}

function endTxn(net: SimNetwork, producerId: number, committed: boolean): void {
  const request = writeMarkers(producerId, 0, committed, [0]);
  net.send("client", "broker-0", request);
  net.runUntilTrue(() => answer(net, "WriteTxnMarkersResponse", request.correlationId) !== undefined, seconds(5));
}

const polledValues = (net: SimNetwork, id: string) => net.actor<FetcherActor>(id).polled.map((p) => p.record.value);
const polledOffsets = (net: SimNetwork, id: string) => net.actor<FetcherActor>(id).polled.map((p) => p.record.offset);

describe("the Fetcher with isolation.level=read_committed", () => {
  it("sees a committed transaction only after its marker, never an aborted one, and moves past the markers", () => {
    const net = withConsumers();
    produce(net, { producerId: 10, epoch: 0, sequence: 0, transactional: true }, "aborted-", 2);
    produce(net, { producerId: 20, epoch: 0, sequence: 0 }, "plain-", 1);
    produce(net, { producerId: 11, epoch: 0, sequence: 0, transactional: true }, "committed-", 2);
    net.runFor(seconds(1));
    // Everything is held back behind the open transaction at offset 0 for read_committed.
    expect(polledValues(net, "consumer-committed")).toEqual([]);
    expect(polledValues(net, "consumer-uncommitted")).toEqual(["aborted-0", "aborted-1", "plain-0", "committed-0", "committed-1"]);

    endTxn(net, 10, false);
    net.runFor(seconds(1));
    // Transaction 11 is still open: read_committed gets the plain record only.
    expect(polledValues(net, "consumer-committed")).toEqual(["plain-0"]);

    endTxn(net, 11, true);
    net.runFor(seconds(1));
    expect(polledValues(net, "consumer-committed")).toEqual(["plain-0", "committed-0", "committed-1"]);
    expect(polledOffsets(net, "consumer-committed")).toEqual([2, 3, 4]);
    const tp = { topic: "t", partition: 0 };
    // Both positions are past the two markers (offsets 5 and 6), which neither consumer was handed.
    expect(net.actor<FetcherActor>("consumer-committed").fetcher.position(tp)).toBe(7);
    expect(net.actor<FetcherActor>("consumer-uncommitted").fetcher.position(tp)).toBe(7);
    expect(polledValues(net, "consumer-uncommitted")).toHaveLength(5);
  });

  it("resets to latest at the last stable offset", () => {
    const net = withConsumers();
    produce(net, { producerId: 20, epoch: 0, sequence: 0 }, "plain-", 2);
    produce(net, { producerId: 11, epoch: 0, sequence: 0, transactional: true }, "open-", 2);
    net.add(
      "consumer-latest",
      createFetcherActor({
        bootstrap: BROKERS,
        topic: "t",
        partitions: 1,
        consumer: { "isolation.level": "read_committed" },
        pollIntervalMs: 50,
        startAt: "latest",
      }),
      null,
    );
    net.start("consumer-latest");
    net.runFor(seconds(1));
    expect(net.observed("fetch.reset").map((o) => [o.actor, o.event.offset])).toEqual([["consumer-latest", 2]]);
    expect(net.actor<FetcherActor>("consumer-latest").fetcher.lag({ topic: "t", partition: 0 })).toBe(0);
  });
});
