import { ErrorCode, ListOffsetsTimestamp, ms, seconds } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import type { BrokerActor } from "../src/broker/broker-actor.js";
import { answer, type ClusterSpec, cluster, fetchRequest, listOffsetsRequest, partitionOn, produceRequest } from "./data-path-fixtures.js";
import type { SimNetwork } from "./sim-network.js";
import { type ProducerStamp, readCommittedFetch, readCommittedListOffsets, stampedBatch, writeMarkers } from "./txn-fixtures.js";

/** Two partitions replicated on three brokers: broker-0 leads t-0, broker-1 leads t-1. */
const SPEC: ClusterSpec = {
  brokers: 3,
  topics: [{ name: "t", partitions: 2, replicationFactor: 3 }],
  broker: { "replica.lag.time.max.ms": 2000, "broker.session.timeout.ms": 3000, "broker.heartbeat.interval.ms": 500 },
};

function started(): SimNetwork {
  const net = cluster(SPEC);
  net.addClient("client");
  net.startAll();
  net.runFor(ms(20));
  return net;
}

function produce(net: SimNetwork, stamp: ProducerStamp, records = 1, to = "broker-0", partition = 0): number {
  const request = produceRequest("t", partition, stampedBatch(stamp, records, `p${stamp.producerId}-`), -1);
  net.send("client", to, request);
  net.runUntilTrue(() => answer(net, "ProduceResponse", request.correlationId) !== undefined, seconds(5));
  const p = answer(net, "ProduceResponse", request.correlationId)?.responses[0]?.partitionResponses[0];
  expect(p?.errorCode).toBe(ErrorCode.NONE);
  return p?.baseOffset ?? -1;
}

function markers(net: SimNetwork, request: ReturnType<typeof writeMarkers>, to = "broker-0") {
  net.send("client", to, request);
  net.runUntilTrue(() => answer(net, "WriteTxnMarkersResponse", request.correlationId) !== undefined, seconds(5));
  return answer(net, "WriteTxnMarkersResponse", request.correlationId);
}

function fetchFrom(net: SimNetwork, request: ReturnType<typeof fetchRequest>, to = "broker-0") {
  net.send("client", to, request);
  net.runFor(ms(5));
  const p = answer(net, "FetchResponse", request.correlationId)?.responses[0]?.partitions[0];
  if (p === undefined) throw new Error("no fetch answer");
  return p;
}

function latest(net: SimNetwork, readCommitted: boolean): number {
  const request = readCommitted
    ? readCommittedListOffsets("t", 0, ListOffsetsTimestamp.LATEST)
    : listOffsetsRequest("t", 0, ListOffsetsTimestamp.LATEST);
  net.send("client", "broker-0", request);
  net.runFor(ms(5));
  return answer(net, "ListOffsetsResponse", request.correlationId)?.topics[0]?.partitions[0]?.offset ?? -2;
}

const valuesOf = (batches: readonly { isControl: boolean; records: readonly { value: string | null }[] }[]) =>
  batches.flatMap((b) => (b.isControl ? [`<${b.records[0]?.value === null ? "" : "marker"}>`] : b.records.map((r) => r.value)));

describe("transactions on the partition leader", () => {
  it("holds the last stable offset at an open transaction's first offset; read_committed reads and lists only below it", () => {
    const net = started();
    produce(net, { producerId: 1, epoch: 0, sequence: 0 }, 2);
    const txnStart = produce(net, { producerId: 2, epoch: 0, sequence: 0, transactional: true }, 2);
    produce(net, { producerId: 1, epoch: 0, sequence: 2 }, 1);
    expect(txnStart).toBe(2);
    const log = net.actor<BrokerActor>("broker-0").replicaManager.partition("t", 0)?.log;
    expect(log?.highWatermark).toBe(5);
    expect(log?.lastStableOffset).toBe(2);

    const committed = fetchFrom(net, readCommittedFetch([{ topic: "t", partition: 0, fetchOffset: 0 }]));
    expect(committed).toMatchObject({ errorCode: 0, highWatermark: 5, lastStableOffset: 2, abortedTransactions: [] });
    expect(valuesOf(committed.records)).toEqual(["p1-0", "p1-1"]);
    const uncommitted = fetchFrom(net, fetchRequest([{ topic: "t", partition: 0, fetchOffset: 0 }]));
    expect(uncommitted).toMatchObject({ lastStableOffset: 2, abortedTransactions: null });
    expect(valuesOf(uncommitted.records)).toEqual(["p1-0", "p1-1", "p2-0", "p2-1", "p1-0"]);
    // Nothing to read at the LSO yet for read_committed.
    expect(fetchFrom(net, readCommittedFetch([{ topic: "t", partition: 0, fetchOffset: 2 }])).records).toEqual([]);
    expect(latest(net, true)).toBe(2);
    expect(latest(net, false)).toBe(5);
  });

  it("a COMMIT marker ends the transaction: the LSO moves to the high watermark once the marker is replicated", () => {
    const net = started();
    produce(net, { producerId: 2, epoch: 0, sequence: 0, transactional: true }, 2);
    const parked = readCommittedFetch([{ topic: "t", partition: 0, fetchOffset: 0 }], { maxWaitMs: 5000, minBytes: 1 });
    net.send("client", "broker-0", parked);
    net.runFor(ms(50));
    expect(answer(net, "FetchResponse", parked.correlationId)).toBeUndefined();

    const response = markers(net, writeMarkers(2, 0, true, [0]));
    expect(response?.markers).toEqual([{ producerId: 2, topics: [{ name: "t", partitions: [{ partitionIndex: 0, errorCode: 0 }] }] }]);
    const log = net.actor<BrokerActor>("broker-0").replicaManager.partition("t", 0)?.log;
    expect(log?.lastStableOffset).toBe(3);
    // The parked read_committed fetch woke when the LSO moved.
    net.runFor(ms(5));
    const woken = answer(net, "FetchResponse", parked.correlationId)?.responses[0]?.partitions[0];
    expect(woken?.lastStableOffset).toBe(3);
    expect(valuesOf(woken?.records ?? [])).toEqual(["p2-0", "p2-1", "<marker>"]);
    expect(net.observed("broker.txn-marker").map((o) => o.event)).toEqual([
      { type: "broker.txn-marker", topic: "t", partition: 0, producerId: 2, producerEpoch: 0, committed: true, offset: 2 },
    ]);
    expect(latest(net, true)).toBe(3);
  });

  it("an ABORT marker enters the aborted-transaction index; read_committed fetches over it carry it", () => {
    const net = started();
    produce(net, { producerId: 1, epoch: 0, sequence: 0 }, 1);
    produce(net, { producerId: 2, epoch: 0, sequence: 0, transactional: true }, 2);
    produce(net, { producerId: 3, epoch: 0, sequence: 0, transactional: true }, 1);
    expect(markers(net, writeMarkers(2, 0, false, [0]))?.markers[0]?.topics[0]?.partitions[0]?.errorCode).toBe(0);
    // Producer 3's transaction is still open at offset 3: the LSO stays there.
    const log = net.actor<BrokerActor>("broker-0").replicaManager.partition("t", 0)?.log;
    expect(log?.lastStableOffset).toBe(3);
    expect(markers(net, writeMarkers(3, 0, true, [0]))?.markers[0]?.topics[0]?.partitions[0]?.errorCode).toBe(0);
    expect(log?.lastStableOffset).toBe(6);

    const all = fetchFrom(net, readCommittedFetch([{ topic: "t", partition: 0, fetchOffset: 0 }]));
    expect(all.abortedTransactions).toEqual([{ producerId: 2, firstOffset: 1 }]);
    expect(valuesOf(all.records)).toEqual(["p1-0", "p2-0", "p2-1", "p3-0", "<marker>", "<marker>"]);
    // A fetch starting after the aborted transaction's marker does not carry it.
    expect(fetchFrom(net, readCommittedFetch([{ topic: "t", partition: 0, fetchOffset: 5 }])).abortedTransactions).toEqual([]);
    // Nor one that reads nothing.
    expect(fetchFrom(net, readCommittedFetch([{ topic: "t", partition: 0, fetchOffset: 6 }])).abortedTransactions).toEqual([]);
  });

  it("answers NOT_LEADER_OR_FOLLOWER for partitions it does not lead, and fences markers and data of an older epoch", () => {
    const net = started();
    produce(net, { producerId: 2, epoch: 0, sequence: 0, transactional: true }, 1);
    produce(net, { producerId: 2, epoch: 0, sequence: 0, transactional: true }, 1, "broker-1", 1);
    const both = markers(net, writeMarkers(2, 0, false, [0, 1]));
    expect(both?.markers[0]?.topics[0]?.partitions).toEqual([
      { partitionIndex: 0, errorCode: 0 },
      { partitionIndex: 1, errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER },
    ]);
    // The coordinator bumped the epoch (a timed-out transaction): the marker fences the old epoch.
    expect(markers(net, writeMarkers(2, 1, false, [1]), "broker-1")?.markers[0]?.topics[0]?.partitions[0]?.errorCode).toBe(0);
    expect(markers(net, writeMarkers(2, 0, true, [1]), "broker-1")?.markers[0]?.topics[0]?.partitions[0]?.errorCode).toBe(
      ErrorCode.INVALID_PRODUCER_EPOCH,
    );
    const zombie = produceRequest("t", 1, stampedBatch({ producerId: 2, epoch: 0, sequence: 1, transactional: true }), -1);
    net.send("client", "broker-1", zombie);
    net.runFor(ms(5));
    expect(answer(net, "ProduceResponse", zombie.correlationId)?.responses[0]?.partitionResponses[0]?.errorCode).toBe(
      ErrorCode.INVALID_PRODUCER_EPOCH,
    );
    // An older coordinator epoch is fenced too.
    expect(markers(net, writeMarkers(2, 1, false, [1], 5), "broker-1")?.markers[0]?.topics[0]?.partitions[0]?.errorCode).toBe(0);
    expect(markers(net, writeMarkers(2, 1, false, [1], 4), "broker-1")?.markers[0]?.topics[0]?.partitions[0]?.errorCode).toBe(
      ErrorCode.TRANSACTION_COORDINATOR_FENCED,
    );
  });

  it("rebuilds the open transactions and the aborted index after a restart, and on a new leader", () => {
    const net = started();
    produce(net, { producerId: 2, epoch: 0, sequence: 0, transactional: true }, 2);
    markers(net, writeMarkers(2, 0, false, [0]));
    produce(net, { producerId: 3, epoch: 0, sequence: 0, transactional: true }, 1);
    net.runFor(seconds(6));
    net.crash("broker-0");
    expect(net.runUntilTrue(() => partitionOn(net, "broker-1", "t", 0)?.role === "leader", seconds(10))).toBe(true);
    const onNewLeader = net.actor<BrokerActor>("broker-1").replicaManager.partition("t", 0)?.log;
    expect(onNewLeader?.lastStableOffset).toBe(3);
    expect(fetchFrom(net, readCommittedFetch([{ topic: "t", partition: 0, fetchOffset: 0 }]), "broker-1").abortedTransactions).toEqual([
      { producerId: 2, firstOffset: 0 },
    ]);
    net.start("broker-0");
    net.runFor(seconds(8));
    const restarted = net.actor<BrokerActor>("broker-0").replicaManager.partition("t", 0)?.log;
    expect(restarted?.producerState.ongoingTransactions()).toEqual([{ producerId: 3, firstOffset: 3 }]);
    expect(restarted?.collectAbortedTransactions(0, 10)).toEqual([{ producerId: 2, firstOffset: 0 }]);
  });
});
