import { type ActorId, ErrorCode, type JsonValue, type Message, ms, seconds } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { createProducer, type ProducerError, type SendHandle, type TransactionalResult } from "../src/index.js";
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

/**
 * A transactional producer of transaction version 2 (KIP-890 part 2, as
 * Kafka 4.2's TransactionManager has it) against real partition leaders,
 * which add its partitions to its transactions, and fake coordinators.
 */

const COORDINATOR = "txn-coordinator-0";
const GROUP_COORDINATOR = "coordinator-0";
const BROKERS = ["broker-0", "broker-1", "broker-2"];
const SPEC: ClusterSpec = {
  brokers: 3,
  topics: [{ name: "t", partitions: 2, replicationFactor: 3 }],
  broker: { "replica.lag.time.max.ms": 2000, "broker.session.timeout.ms": 3000, "broker.heartbeat.interval.ms": 500 },
  txnCoordinators: [COORDINATOR],
};
const GROUP = { groupId: "g", generationId: 5, memberId: "m-1", groupInstanceId: null };

/** The requests whose kind and version the tests follow. */
const FOLLOWED = new Set([
  "InitProducerIdRequest",
  "AddPartitionsToTxnRequest",
  "AddOffsetsToTxnRequest",
  "TxnOffsetCommitRequest",
  "EndTxnRequest",
  "ProduceRequest",
]);

interface World {
  readonly net: SimNetwork;
  readonly host: TransactionalHostActor;
  /** The followed requests app-1 sent, as `type@version`, in order. */
  readonly sent: string[];
  /** The AddPartitionsToTxn the transaction coordinator got from partition leaders and the group coordinator. */
  readonly adds: { from: ActorId; apiVersion: number; verifyOnly: boolean; topic: string; epoch: number }[];
  /** The markers the transaction coordinator sent: `to epoch transactionVersion committed`. */
  readonly markers: string[];
}

function world(transactionVersion: number): World {
  const net = cluster(SPEC);
  net.add(COORDINATOR, createFakeTransactionCoordinator({ brokers: BROKERS, groupCoordinator: GROUP_COORDINATOR }), null);
  net.add(GROUP_COORDINATOR, createFakeGroupCoordinator(COORDINATOR), null);
  net.add(
    "app-1",
    createTransactionalHost({
      transactionalId: "tx-1",
      bootstrap: BROKERS,
      topics: [{ name: "t", partitions: 2 }],
      transactionCoordinators: [COORDINATOR],
      groupCoordinators: [GROUP_COORDINATOR],
      settings: { "linger.ms": 5, "request.timeout.ms": 1000, "delivery.timeout.ms": 5000 },
      transactionVersion,
    }),
    null,
  );
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
  const sent: string[] = [];
  const adds: World["adds"] = [];
  const markers: string[] = [];
  net.onSend = (from: ActorId, to: ActorId, message: Message) => {
    if (from === "app-1" && FOLLOWED.has(message.type) && "apiVersion" in message) sent.push(`${message.type}@${message.apiVersion}`);
    if (to === COORDINATOR && message.type === "AddPartitionsToTxnBrokerRequest") {
      for (const t of message.transactions) {
        for (const topic of t.topics) {
          adds.push({ from, apiVersion: message.apiVersion, verifyOnly: t.verifyOnly, topic: topic.name, epoch: t.producerEpoch });
        }
      }
    }
    if (from === COORDINATOR && message.type === "WriteTxnMarkersRequest") {
      for (const m of message.markers) markers.push(`${to} ${m.producerEpoch} ${m.transactionVersion} ${m.transactionResult}`);
    }
  };
  net.startAll();
  net.runFor(ms(50));
  return { net, host: net.actor<TransactionalHostActor>("app-1"), sent, adds, markers };
}

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

function sendAll(w: World, values: readonly string[]): SendHandle[] {
  return values.map((value, i) => w.host.producer.send("t", `key-${i}`, value, 50, w.host.ctx));
}

const readValues = (net: SimNetwork) =>
  net
    .actor<FetcherActor>("reader")
    .polled.map((p) => p.record.value)
    .sort();

/** `reason epoch` of each producer.id observation. */
const producerIds = (net: SimNetwork) => net.observed("producer.id").map((o) => `${o.event.reason} ${o.event.producerEpoch}`);

describe("TransactionalProducer with transaction version 2", () => {
  it("commits with neither AddPartitionsToTxn nor AddOffsetsToTxn: Produce v12, TxnOffsetCommit v5, EndTxn v5", () => {
    const w = world(2);
    const { net, host } = w;
    const producer = host.producer;
    expect(await_(net, producer.initTransactions(host.ctx))).toBeNull();
    expect(producer.producerIdAndEpoch).toEqual({ producerId: 1, epoch: 0 });
    expect(await_(net, producer.beginTransaction(host.ctx))).toBeNull();
    const handles = sendAll(w, ["a", "b", "c", "d"]);
    expect(await_(net, producer.sendOffsetsToTransaction([{ topic: "in", partition: 0, offset: 42 }], GROUP, host.ctx))).toBeNull();
    net.runFor(ms(200));
    expect(handles.every((handle) => handle.result?.error === null)).toBe(true);
    expect(readValues(net)).toEqual([]);
    expect(await_(net, producer.commitTransaction(host.ctx))).toBeNull();
    net.runFor(ms(500));

    const produces = w.sent.filter((s) => s.startsWith("ProduceRequest"));
    expect(produces.length).toBeGreaterThan(0);
    expect(w.sent.filter((s) => !s.startsWith("ProduceRequest"))).toEqual([
      "InitProducerIdRequest@4",
      "TxnOffsetCommitRequest@5",
      "EndTxnRequest@5",
    ]);
    expect(new Set(produces)).toEqual(new Set(["ProduceRequest@12"]));
    // The partition leaders and the group coordinator added the partitions, at the transaction's epoch.
    expect(w.adds.map((a) => `${a.from} ${a.topic} v${a.apiVersion} ${a.verifyOnly} ${a.epoch}`).sort()).toEqual([
      "broker-0 t v5 false 0",
      "broker-1 t v5 false 0",
      "coordinator-0 __consumer_offsets v5 false 0",
    ]);
    // Markers at the epoch EndTxn bumped to, of transaction version 2; the producer took that epoch.
    expect([...w.markers].sort()).toEqual(["broker-0 1 2 true", "broker-1 1 2 true", "coordinator-0 1 2 true"]);
    expect(producer.producerIdAndEpoch).toEqual({ producerId: 1, epoch: 1 });
    expect(producerIds(net)).toEqual(["init 0", "end-txn 1"]);
    expect(net.observed("producer.txn").map((o) => [o.event.outcome, o.event.producerEpoch, o.event.records])).toEqual([
      ["committed", 0, 4],
    ]);
    expect(readValues(net)).toEqual(["a", "b", "c", "d"]);
    expect(net.actor<FakeGroupCoordinator>(GROUP_COORDINATOR).committed.get("in-0")).toBe(42);
    expect(producer.state).toBe("READY");
  });

  it("runs the next transaction at the epoch EndTxn returned, its sequences from 0 again", () => {
    const w = world(2);
    const { net, host } = w;
    const producer = host.producer;
    // One record at a time, each acknowledged before the next: a batch each, so the sequences go up within a transaction.
    const sendOneByOne = (values: readonly string[]) => {
      for (const value of values) {
        const handle = producer.send("t", `key-${value}`, value, 50, host.ctx);
        net.runUntilTrue(() => handle.isDone, seconds(1));
      }
    };
    await_(net, producer.initTransactions(host.ctx));
    await_(net, producer.beginTransaction(host.ctx));
    sendOneByOne(["a1", "a2", "a3", "a4", "a5"]);
    expect(await_(net, producer.commitTransaction(host.ctx))).toBeNull();
    const firstAcks = net.observed("producer.ack").length;
    await_(net, producer.beginTransaction(host.ctx));
    sendOneByOne(["b1", "b2", "b3", "b4", "b5"]);
    expect(await_(net, producer.commitTransaction(host.ctx))).toBeNull();
    net.runFor(ms(500));

    const acks = net.observed("producer.ack").map((o) => o.event);
    const byPartition = (from: number, to: number) =>
      [0, 1].map((p) =>
        acks
          .slice(from, to)
          .filter((a) => a.partition === p)
          .map((a) => `${a.producerEpoch}:${a.baseSequence}`),
      );
    const first = byPartition(0, firstAcks);
    const second = byPartition(firstAcks, acks.length);
    // Five batches over two partitions: one partition's sequences went past 0 in the first transaction.
    expect(first.flat().some((a) => a !== "0:0")).toBe(true);
    expect(first.flat()).toHaveLength(5);
    expect(first.map((p) => p[0])).toEqual(["0:0", "0:0"]);
    expect(second.map((p) => p[0])).toEqual(["1:0", "1:0"]);
    expect(second.flat().every((a) => a.startsWith("1:"))).toBe(true);
    expect(acks.every((a) => a.errorCode === ErrorCode.NONE)).toBe(true);
    expect(producerIds(net)).toEqual(["init 0", "end-txn 1", "end-txn 2"]);
    expect(readValues(net)).toEqual(["a1", "a2", "a3", "a4", "a5", "b1", "b2", "b3", "b4", "b5"]);
    expect(net.actor<FakeTransactionCoordinator>(COORDINATOR).endTxns.map((e) => e.epoch)).toEqual([0, 1]);
  });

  it.each([
    [2, ["InitProducerIdRequest@4", "ProduceRequest@12", "EndTxnRequest@5"], ["init 0", "end-txn 1"], "TRANSACTION_ABORTABLE"],
    [
      0,
      ["InitProducerIdRequest@4", "AddPartitionsToTxnRequest@3", "ProduceRequest@9", "EndTxnRequest@3", "InitProducerIdRequest@4"],
      ["init 0", "init 1"],
      "INVALID_TXN_STATE",
    ],
  ])("transaction version %i: an abortable produce error is aborted %j", (version, requests, ids, error) => {
    const w = world(version);
    const { net, host } = w;
    const producer = host.producer;
    await_(net, producer.initTransactions(host.ctx));
    await_(net, producer.beginTransaction(host.ctx));
    // The leader's add (or, before version 2, its verification) is refused.
    net.actor<FakeTransactionCoordinator>(COORDINATOR).brokerRequestErrors.push(ErrorCode.TRANSACTION_ABORTABLE);
    const [handle] = sendAll(w, ["x"]);
    net.runUntilTrue(() => handle?.isDone === true, seconds(5));
    expect(handle?.result?.error?.name).toBe(error);
    expect(producer.hasAbortableError).toBe(true);
    expect(await_(net, producer.abortTransaction(host.ctx))).toBeNull();
    net.runFor(ms(200));
    // Retries (InitProducerId answered CONCURRENT_TRANSACTIONS while the abort's markers are written) counted once.
    expect(w.sent.filter((request, i) => request !== w.sent[i - 1])).toEqual(requests);
    expect(producerIds(net)).toEqual(ids);
    expect(producer.producerIdAndEpoch).toEqual({ producerId: 1, epoch: 1 });
    expect(producer.state).toBe("READY");
    // The next transaction commits at that epoch.
    await_(net, producer.beginTransaction(host.ctx));
    sendAll(w, ["y"]);
    expect(await_(net, producer.commitTransaction(host.ctx))).toBeNull();
    net.runFor(ms(500));
    expect(readValues(net)).toEqual(["y"]);
  });

  it("an empty commit or abort sends nothing and keeps the epoch", () => {
    const w = world(2);
    const { net, host } = w;
    const producer = host.producer;
    await_(net, producer.initTransactions(host.ctx));
    await_(net, producer.beginTransaction(host.ctx));
    expect(await_(net, producer.commitTransaction(host.ctx))).toBeNull();
    await_(net, producer.beginTransaction(host.ctx));
    expect(await_(net, producer.abortTransaction(host.ctx))).toBeNull();
    net.runFor(ms(200));
    expect(w.sent).toEqual(["InitProducerIdRequest@4"]);
    expect(producer.producerIdAndEpoch).toEqual({ producerId: 1, epoch: 0 });
    expect(producerIds(net)).toEqual(["init 0"]);
    expect(net.observed("producer.txn").map((o) => o.event.outcome)).toEqual(["committed", "aborted"]);
  });

  it("sendOffsetsToTransaction alone starts the transaction: its commit sends EndTxn v5", () => {
    const w = world(2);
    const { net, host } = w;
    const producer = host.producer;
    await_(net, producer.initTransactions(host.ctx));
    await_(net, producer.beginTransaction(host.ctx));
    expect(await_(net, producer.sendOffsetsToTransaction([{ topic: "in", partition: 1, offset: 9 }], GROUP, host.ctx))).toBeNull();
    expect(await_(net, producer.commitTransaction(host.ctx))).toBeNull();
    net.runFor(ms(200));
    expect(w.sent).toEqual(["InitProducerIdRequest@4", "TxnOffsetCommitRequest@5", "EndTxnRequest@5"]);
    expect(w.markers).toEqual(["coordinator-0 1 2 true"]);
    expect(net.actor<FakeGroupCoordinator>(GROUP_COORDINATOR).committed.get("in-1")).toBe(9);
  });

  it("sendOffsetsToTransaction with no offsets sends nothing and starts nothing: the commit after it sends nothing either", () => {
    const w = world(2);
    const { net, host } = w;
    const producer = host.producer;
    await_(net, producer.initTransactions(host.ctx));
    await_(net, producer.beginTransaction(host.ctx));
    expect(await_(net, producer.sendOffsetsToTransaction([], GROUP, host.ctx))).toBeNull();
    expect(await_(net, producer.commitTransaction(host.ctx))).toBeNull();
    net.runFor(ms(200));
    expect(w.sent).toEqual(["InitProducerIdRequest@4"]);
    expect(producer.producerIdAndEpoch).toEqual({ producerId: 1, epoch: 0 });
  });

  it("refuses a transactionVersion outside 0..2", () => {
    for (const transactionVersion of [3, -1, 1.5]) {
      expect(() =>
        createTransactionalHost({
          transactionalId: "tx",
          bootstrap: BROKERS,
          topics: [],
          transactionCoordinators: [COORDINATOR],
          transactionVersion,
        })("app", null),
      ).toThrow(`transactional producer: 'transactionVersion' must be an integer from 0 to 2, got ${transactionVersion}`);
    }
  });
});

describe("the producer actor with transactionVersion 2", () => {
  function actorWorld(transactionVersion: JsonValue): SimNetwork {
    const net = cluster({ ...SPEC, topics: [{ name: "t", partitions: 3, replicationFactor: 3 }] });
    net.add(COORDINATOR, createFakeTransactionCoordinator({ brokers: BROKERS, groupCoordinator: null }), null);
    net.add("producer-1", createProducer, {
      bootstrap: BROKERS,
      topics: [{ name: "t", partitions: 3 }],
      producer: { "transactional.id": "orders-tx", "linger.ms": 5, "request.timeout.ms": 500, "delivery.timeout.ms": 5000 },
      workload: {
        topic: "t",
        recordsPerSecond: 100,
        keys: { count: 50, dist: "uniform" },
        valueBytes: { dist: "fixed", bytes: 80 },
        stopAtMs: 2000,
      },
      transactionCoordinators: [COORDINATOR],
      transaction: { recordsPerTransaction: 20, abortRatio: 0.3 },
      transactionVersion,
    });
    net.add(
      "reader",
      createFetcherActor({
        bootstrap: BROKERS,
        topic: "t",
        partitions: 3,
        consumer: { "isolation.level": "read_committed", "fetch.max.wait.ms": 100 },
        pollIntervalMs: 20,
      }),
      null,
    );
    return net;
  }

  it("bumps its epoch once per transaction through EndTxn: read_committed sees exactly the committed records, once", () => {
    const net = actorWorld(2);
    const markerVersions = new Set<number>();
    const produceVersions = new Set<number>();
    net.onSend = (from, _to, message) => {
      if (message.type === "WriteTxnMarkersRequest") for (const m of message.markers) markerVersions.add(m.transactionVersion);
      if (from === "producer-1" && message.type === "ProduceRequest") produceVersions.add(message.apiVersion);
    };
    net.startAll();
    net.runUntil(seconds(5));
    const ended = net.observed("producer.txn").map((o) => o.event);
    const committed = ended.filter((t) => t.outcome === "committed");
    expect(committed.length).toBeGreaterThan(3);
    expect(ended.filter((t) => t.outcome === "aborted").length).toBeGreaterThan(0);
    expect(ended.every((t) => t.outcome !== "failed")).toBe(true);
    // One InitProducerId, then an epoch per transaction: each ran at the epoch the one before returned.
    expect(ended.map((t) => t.producerEpoch)).toEqual(ended.map((_, i) => i));
    expect(producerIds(net)).toEqual(["init 0", ...ended.map((_, i) => `end-txn ${i + 1}`)]);
    const values = net.actor<FetcherActor>("reader").polled.map((p) => p.record.value ?? "");
    expect(new Set(values).size).toBe(values.length);
    expect(values).toHaveLength(committed.reduce((n, t) => n + (t.records as number), 0));
    expect([...markerVersions]).toEqual([2]);
    expect([...produceVersions]).toEqual([12]);
  });

  it("refuses a transactionVersion outside 0..2 with one line naming the field", () => {
    for (const bad of [3, -1, 1.5, "2"]) {
      expect(() => actorWorld(bad).startAll()).toThrow(/^producer config: 'transactionVersion' /);
    }
    for (const good of [0, 1, 2]) expect(() => actorWorld(good).startAll()).not.toThrow();
  });
});
