import { type ActorId, ErrorCode, type Message, ms, seconds } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import type { BrokerActor } from "../src/broker/broker-actor.js";
import type { ProducerError, SendHandle, TransactionalResult } from "../src/index.js";
import { type ClusterSpec, cluster } from "./data-path-fixtures.js";
import {
  createFakeGroupCoordinator,
  createFakeTransactionCoordinator,
  type FakeGroupCoordinator,
  type FakeTransactionCoordinator,
} from "./fake-transaction-coordinator.js";
import { createFetcherActor, type FetcherActor } from "./fetcher-actor.js";
import type { SimNetwork } from "./sim-network.js";
import { createTransactionalHost, type TransactionalHostActor } from "./transactional-host-actor.js";

const SPEC: ClusterSpec = {
  brokers: 3,
  topics: [{ name: "t", partitions: 2, replicationFactor: 3 }],
  broker: { "replica.lag.time.max.ms": 2000, "broker.session.timeout.ms": 3000, "broker.heartbeat.interval.ms": 500 },
};
const BROKERS = ["broker-0", "broker-1", "broker-2"];
const GROUP = { groupId: "g", generationId: 5, memberId: "m-1", groupInstanceId: null };

function world(producers: readonly string[] = ["app-1"], settings: Record<string, number | string> = {}): SimNetwork {
  const net = cluster(SPEC);
  net.add("txn-coordinator-0", createFakeTransactionCoordinator({ brokers: BROKERS, groupCoordinator: "coordinator-0" }), null);
  net.add("coordinator-0", createFakeGroupCoordinator(), null);
  for (const id of producers) {
    net.add(
      id,
      createTransactionalHost({
        transactionalId: "tx-1",
        bootstrap: BROKERS,
        topics: [{ name: "t", partitions: 2 }],
        transactionCoordinators: ["txn-coordinator-0"],
        groupCoordinators: ["coordinator-0"],
        settings: { "linger.ms": 5, "request.timeout.ms": 1000, "delivery.timeout.ms": 5000, ...settings },
      }),
      null,
    );
  }
  net.add(
    "reader",
    createFetcherActor({
      bootstrap: BROKERS,
      topic: "t",
      partitions: 2,
      consumer: { "isolation.level": "read_committed", "fetch.max.wait.ms": 100 },
      pollIntervalMs: 20,
    }),
    null,
  );
  net.startAll();
  net.runFor(ms(50));
  return net;
}

const host = (net: SimNetwork, id = "app-1") => net.actor<TransactionalHostActor>(id);
const coordinator = (net: SimNetwork) => net.actor<FakeTransactionCoordinator>("txn-coordinator-0");

/** Runs until the result completes; returns its error (null on success). */
function await_(net: SimNetwork, result: TransactionalResult, limit = seconds(10)): ProducerError | null {
  let done = false;
  let error: ProducerError | null = null;
  result.onComplete((e) => {
    done = true;
    error = e;
  });
  if (!net.runUntilTrue(() => done, limit)) throw new Error(`${result.operation} did not complete`);
  return error;
}

function sendAll(net: SimNetwork, id: string, values: readonly string[]): SendHandle[] {
  const h = host(net, id);
  return values.map((value, i) => h.producer.send("t", `key-${i}`, value, 50, h.ctx));
}

const readValues = (net: SimNetwork) =>
  net
    .actor<FetcherActor>("reader")
    .polled.map((p) => p.record.value)
    .sort();

describe("TransactionalProducer against a transaction coordinator", () => {
  it("commits: partitions added before their first batch, offsets committed with the transaction, records visible after the markers", () => {
    const net = world();
    const order: string[] = [];
    net.onSend = (from: ActorId, to: ActorId, message: Message) => {
      if (
        from === "app-1" &&
        (message.type === "AddPartitionsToTxnRequest" || message.type === "ProduceRequest" || message.type === "EndTxnRequest")
      )
        order.push(message.type);
      if (from === "txn-coordinator-0" && message.type === "WriteTxnMarkersRequest") order.push(`markers->${to}`);
    };
    const h = host(net);
    expect(await_(net, h.producer.initTransactions(h.ctx))).toBeNull();
    expect(h.producer.producerIdAndEpoch).toEqual({ producerId: 1, epoch: 0 });
    expect(await_(net, h.producer.beginTransaction(h.ctx))).toBeNull();
    const handles = sendAll(net, "app-1", ["a", "b", "c", "d"]);
    expect(await_(net, h.producer.sendOffsetsToTransaction([{ topic: "in", partition: 0, offset: 42 }], GROUP, h.ctx))).toBeNull();
    net.runFor(ms(200));
    // Acknowledged but not committed: invisible to read_committed.
    expect(handles.every((handle) => handle.result?.error === null && (handle.result?.offset ?? -1) >= 0)).toBe(true);
    expect(readValues(net)).toEqual([]);

    expect(await_(net, h.producer.commitTransaction(h.ctx))).toBeNull();
    net.runFor(ms(500));
    expect(readValues(net)).toEqual(["a", "b", "c", "d"]);
    expect(order[0]).toBe("AddPartitionsToTxnRequest");
    expect(order.indexOf("ProduceRequest")).toBeGreaterThan(0);
    expect(order.indexOf("EndTxnRequest")).toBeGreaterThan(order.lastIndexOf("ProduceRequest"));
    expect(order.filter((o) => o.startsWith("markers->")).sort()).toEqual([
      "markers->broker-0",
      "markers->broker-1",
      "markers->coordinator-0",
    ]);
    expect(net.actor<FakeGroupCoordinator>("coordinator-0").committed.get("in-0")).toBe(42);
    expect(net.observed("producer.txn").map((o) => [o.event.outcome, o.event.records, o.event.error])).toEqual([["committed", 4, "NONE"]]);
    const acks = net.observed("producer.ack").map((o) => o.event);
    expect(acks.every((a) => a.producerId === 1 && a.producerEpoch === 0 && a.transactionalId === "tx-1" && a.errorCode === 0)).toBe(true);
    expect(h.producer.state).toBe("READY");
  });

  it("aborts: the records never show under read_committed; the next transaction commits and its sequences go on", () => {
    const net = world();
    const h = host(net);
    await_(net, h.producer.initTransactions(h.ctx));
    await_(net, h.producer.beginTransaction(h.ctx));
    sendAll(net, "app-1", ["x1", "x2"]);
    net.runFor(ms(100));
    expect(await_(net, h.producer.abortTransaction(h.ctx))).toBeNull();
    await_(net, h.producer.beginTransaction(h.ctx));
    sendAll(net, "app-1", ["y1", "y2"]);
    expect(await_(net, h.producer.commitTransaction(h.ctx))).toBeNull();
    net.runFor(ms(500));
    expect(readValues(net)).toEqual(["y1", "y2"]);
    expect(net.observed("broker.txn-marker").map((o) => o.event.committed)).toEqual([false, false, true, true]);
    // The same epoch, sequences continuing per partition across the transactions.
    const sequences = net.observed("producer.ack").map((o) => [o.event.partition, o.event.baseSequence, o.event.producerEpoch]);
    expect(sequences.filter(([p]) => p === 0).map(([, s]) => s)).toEqual([0, 1]);
    expect(sequences.every(([, , epoch]) => epoch === 0)).toBe(true);
  });

  it("retries EndTxn after its answer is lost; the transaction is committed once", () => {
    const net = world();
    const h = host(net);
    await_(net, h.producer.initTransactions(h.ctx));
    await_(net, h.producer.beginTransaction(h.ctx));
    sendAll(net, "app-1", ["r1", "r2", "r3"]);
    let dropped = 0;
    net.dropIf = (_from, _to, message) => message.type === "EndTxnResponse" && dropped++ === 0;
    const sentEndTxn: number[] = [];
    net.onSend = (from, _to, message) => {
      if (from === "app-1" && message.type === "EndTxnRequest") sentEndTxn.push(net.now);
    };
    expect(await_(net, h.producer.commitTransaction(h.ctx))).toBeNull();
    expect(sentEndTxn).toHaveLength(2);
    // The lost answer surfaced as a request timeout (1000 ms), then a coordinator lookup and the retry backoff.
    expect((sentEndTxn[1] ?? 0) - (sentEndTxn[0] ?? 0)).toBeGreaterThanOrEqual(ms(1000));
    expect(coordinator(net).endTxns).toHaveLength(1);
    net.runFor(ms(500));
    expect(readValues(net)).toEqual(["r1", "r2", "r3"]);
  });

  it("is fenced by a newer producer with the same transactional id: PRODUCER_FENCED is fatal, its open transaction aborted", () => {
    const net = world(["app-1", "app-2"]);
    const first = host(net, "app-1");
    const second = host(net, "app-2");
    await_(net, first.producer.initTransactions(first.ctx));
    await_(net, first.producer.beginTransaction(first.ctx));
    const zombieHandles = sendAll(net, "app-1", ["z1", "z2"]);
    net.runFor(ms(200));
    // The second instance takes over: the coordinator aborts the open transaction with a bumped epoch, then bumps again.
    expect(await_(net, second.producer.initTransactions(second.ctx))).toBeNull();
    expect(second.producer.producerIdAndEpoch).toEqual({ producerId: 1, epoch: 2 });

    const commit = await_(net, first.producer.commitTransaction(first.ctx));
    expect(commit?.name).toBe("PRODUCER_FENCED");
    expect(first.producer.isFenced).toBe(true);
    // Everything after a fatal error fails at once.
    const late = first.producer.send("t", null, "late", 10, first.ctx);
    expect(late.result?.error?.name).toBe("PRODUCER_FENCED");
    expect(await_(net, first.producer.abortTransaction(first.ctx))?.name).toBe("PRODUCER_FENCED");
    expect(zombieHandles.every((handle) => handle.isDone)).toBe(true);

    await_(net, second.producer.beginTransaction(second.ctx));
    sendAll(net, "app-2", ["s1"]);
    expect(await_(net, second.producer.commitTransaction(second.ctx))).toBeNull();
    net.runFor(ms(500));
    expect(readValues(net)).toEqual(["s1"]);
    expect(net.observed("producer.txn").map((o) => [o.actor, o.event.outcome])).toEqual([
      ["app-1", "failed"],
      ["app-2", "committed"],
    ]);
  });

  it("a zombie's data after the abort marker is refused with INVALID_PRODUCER_EPOCH (abortable), and EndTxn then fences it", () => {
    const net = world(["app-1", "app-2"]);
    const first = host(net, "app-1");
    const second = host(net, "app-2");
    await_(net, first.producer.initTransactions(first.ctx));
    await_(net, first.producer.beginTransaction(first.ctx));
    sendAll(net, "app-1", ["z1"]);
    net.runFor(ms(200));
    await_(net, second.producer.initTransactions(second.ctx));
    // The zombie goes on sending to a partition of its (aborted) transaction: the leader has seen the newer epoch in the marker.
    const refused = first.producer.send("t", "key-0", "z2", 10, first.ctx);
    net.runFor(ms(300));
    expect(refused.result?.error?.errorCode).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
    expect(first.producer.hasAbortableError).toBe(true);
    expect(await_(net, first.producer.abortTransaction(first.ctx))?.name).toBe("PRODUCER_FENCED");
    expect(first.producer.isFenced).toBe(true);
    net.runFor(ms(500));
    expect(readValues(net)).toEqual([]);
  });

  it("ILLEGAL_GENERATION from TxnOffsetCommit is abortable: commit fails, abort works, the next transaction commits", () => {
    const net = world();
    net.actor<FakeGroupCoordinator>("coordinator-0").generation = 6;
    const h = host(net);
    await_(net, h.producer.initTransactions(h.ctx));
    await_(net, h.producer.beginTransaction(h.ctx));
    sendAll(net, "app-1", ["g1"]);
    const offsets = await_(net, h.producer.sendOffsetsToTransaction([{ topic: "in", partition: 0, offset: 7 }], GROUP, h.ctx));
    expect(offsets?.errorCode).toBe(ErrorCode.ILLEGAL_GENERATION);
    expect(h.producer.hasAbortableError).toBe(true);
    expect(await_(net, h.producer.commitTransaction(h.ctx))?.errorCode).toBe(ErrorCode.ILLEGAL_GENERATION);
    expect(await_(net, h.producer.abortTransaction(h.ctx))).toBeNull();
    await_(net, h.producer.beginTransaction(h.ctx));
    sendAll(net, "app-1", ["g2"]);
    expect(
      await_(net, h.producer.sendOffsetsToTransaction([{ topic: "in", partition: 0, offset: 8 }], { ...GROUP, generationId: 6 }, h.ctx)),
    ).toBeNull();
    expect(await_(net, h.producer.commitTransaction(h.ctx))).toBeNull();
    net.runFor(ms(500));
    expect(readValues(net)).toEqual(["g2"]);
    expect(net.actor<FakeGroupCoordinator>("coordinator-0").committed.get("in-0")).toBe(8);
    expect(net.observed("producer.txn").map((o) => [o.event.outcome, o.event.error])).toEqual([
      ["aborted", "CommitFailedException: ILLEGAL_GENERATION"],
      ["committed", "NONE"],
    ]);
  });

  it("a TxnOffsetCommit refused by KIP-890's verification: COORDINATOR_LOAD_IN_PROGRESS is retried, TRANSACTION_ABORTABLE aborts, INVALID_TXN_STATE is fatal", () => {
    const net = world();
    const coordinator = net.actor<FakeGroupCoordinator>("coordinator-0");
    // A verification that lost its connection (NETWORK_EXCEPTION, answered as COORDINATOR_LOAD_IN_PROGRESS): the request goes again.
    coordinator.txnOffsetCommitErrors.push(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
    const h = host(net);
    await_(net, h.producer.initTransactions(h.ctx));
    await_(net, h.producer.beginTransaction(h.ctx));
    sendAll(net, "app-1", ["v1"]);
    expect(await_(net, h.producer.sendOffsetsToTransaction([{ topic: "in", partition: 0, offset: 7 }], GROUP, h.ctx))).toBeNull();
    expect(await_(net, h.producer.commitTransaction(h.ctx))).toBeNull();
    expect(coordinator.committed.get("in-0")).toBe(7);
    // From v4: the transaction must abort, and the producer goes on.
    coordinator.txnOffsetCommitErrors.push(ErrorCode.TRANSACTION_ABORTABLE);
    await_(net, h.producer.beginTransaction(h.ctx));
    sendAll(net, "app-1", ["v2"]);
    expect(await_(net, h.producer.sendOffsetsToTransaction([{ topic: "in", partition: 0, offset: 8 }], GROUP, h.ctx))?.errorCode).toBe(
      ErrorCode.TRANSACTION_ABORTABLE,
    );
    expect(h.producer.hasAbortableError).toBe(true);
    expect(await_(net, h.producer.abortTransaction(h.ctx))).toBeNull();
    // Below v4 the same refusal is INVALID_TXN_STATE, which the Java client treats as fatal.
    coordinator.txnOffsetCommitErrors.push(ErrorCode.INVALID_TXN_STATE);
    await_(net, h.producer.beginTransaction(h.ctx));
    sendAll(net, "app-1", ["v3"]);
    expect(await_(net, h.producer.sendOffsetsToTransaction([{ topic: "in", partition: 0, offset: 9 }], GROUP, h.ctx))?.errorCode).toBe(
      ErrorCode.INVALID_TXN_STATE,
    );
    expect(h.producer.hasFatalError).toBe(true);
    expect(await_(net, h.producer.abortTransaction(h.ctx))?.errorCode).toBe(ErrorCode.INVALID_TXN_STATE);
    expect(coordinator.committed.get("in-0")).toBe(7);
  });

  it("INVALID_PRODUCER_EPOCH from TxnOffsetCommit (a verification that found another epoch) fences the producer, as PRODUCER_FENCED", () => {
    const net = world();
    net.actor<FakeGroupCoordinator>("coordinator-0").txnOffsetCommitErrors.push(ErrorCode.INVALID_PRODUCER_EPOCH);
    const h = host(net);
    await_(net, h.producer.initTransactions(h.ctx));
    await_(net, h.producer.beginTransaction(h.ctx));
    sendAll(net, "app-1", ["f1"]);
    expect(await_(net, h.producer.sendOffsetsToTransaction([{ topic: "in", partition: 0, offset: 7 }], GROUP, h.ctx))?.name).toBe(
      "PRODUCER_FENCED",
    );
    expect(h.producer.isFenced).toBe(true);
  });

  it("offsets of a TxnOffsetCommit failed before it went out are not carried into the next transaction", () => {
    const net = world();
    const h = host(net);
    await_(net, h.producer.initTransactions(h.ctx));
    await_(net, h.producer.beginTransaction(h.ctx));
    sendAll(net, "app-1", ["s1"]);
    const offsets = h.producer.sendOffsetsToTransaction([{ topic: "in", partition: 0, offset: 7 }], GROUP, h.ctx);
    // AddOffsetsToTxn answered: the TxnOffsetCommit waits for its group coordinator lookup; a failed send aborts the transaction now.
    expect(net.runUntilTrue(() => host(net).received.includes("AddOffsetsToTxnResponse"), seconds(5))).toBe(true);
    expect(h.producer.send("t", "k", "too large", 2_000_000, h.ctx).result?.error?.errorCode).toBe(ErrorCode.MESSAGE_TOO_LARGE);
    expect(await_(net, offsets)?.errorCode).toBe(ErrorCode.MESSAGE_TOO_LARGE);
    expect(await_(net, h.producer.abortTransaction(h.ctx))).toBeNull();
    await_(net, h.producer.beginTransaction(h.ctx));
    sendAll(net, "app-1", ["s2"]);
    expect(await_(net, h.producer.sendOffsetsToTransaction([{ topic: "in", partition: 1, offset: 3 }], GROUP, h.ctx))).toBeNull();
    expect(await_(net, h.producer.commitTransaction(h.ctx))).toBeNull();
    net.runFor(ms(500));
    const committed = net.actor<FakeGroupCoordinator>("coordinator-0").committed;
    expect([...committed]).toEqual([["in-1", 3]]);
  });

  it("refuses sends outside a transaction and transactional calls out of order", () => {
    const net = world();
    const h = host(net);
    expect(h.producer.send("t", null, "early", 10, h.ctx).result?.error?.name).toBe("IllegalStateException");
    expect(await_(net, h.producer.beginTransaction(h.ctx))?.name).toBe("IllegalStateException");
    await_(net, h.producer.initTransactions(h.ctx));
    expect(await_(net, h.producer.commitTransaction(h.ctx))?.name).toBe("IllegalStateException");
    await_(net, h.producer.beginTransaction(h.ctx));
    // Nothing sent: the commit completes without an EndTxn.
    expect(await_(net, h.producer.commitTransaction(h.ctx))).toBeNull();
    expect(coordinator(net).endTxns).toEqual([]);
    expect(net.actor<BrokerActor>("broker-0").replicaManager.partition("t", 0)?.log.logEndOffset).toBe(0);
  });
});
