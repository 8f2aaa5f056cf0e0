import {
  type Actor,
  type ActorId,
  type AddPartitionsToTxnBrokerRequest,
  addPartitionsToTxnBrokerResponse,
  type Context,
  ErrorCode,
  type JsonValue,
  type Message,
  type Micros,
  ms,
  seconds,
} from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import type { BrokerActor } from "../src/broker/broker-actor.js";
import { answer, type ClusterSpec, cluster, produceRequest } from "./data-path-fixtures.js";
import type { SimNetwork } from "./sim-network.js";
import { stampedBatch, writeMarkers } from "./txn-fixtures.js";

/**
 * KIP-890 part 2 on the partition leader: a transactional batch of a
 * producer of transaction version 2 (Produce v12) for a partition where its
 * transaction is not open at its epoch has the partition added to the
 * transaction (AddPartitionsToTxn v5, verifyOnly false), whatever
 * transaction.partition.verification.enable says; the coordinator's
 * CONCURRENT_TRANSACTIONS is retried by the leader for a while.
 */

const COORDINATOR = "txn-coordinator-0";
const TRANSACTIONAL_ID = "t-a";
const SPEC: ClusterSpec = {
  brokers: 1,
  topics: [{ name: "t", partitions: 2, replicationFactor: 1 }],
  txnCoordinators: [COORDINATOR],
};

/** Produce v12: a producer of transaction version 2. */
const TV2 = 12;
/** Produce v9: kcsim's producer before transaction version 2. */
const PRE_TV2 = 9;

/**
 * A transaction coordinator answering a broker's AddPartitionsToTxn with
 * the errors queued in `errors` (one per request, NONE when empty);
 * `holding` keeps requests unanswered until `release`. It records each
 * request with when it arrived.
 */
class ScriptedCoordinator implements Actor {
  readonly errors: number[] = [];
  holding = false;
  readonly requests: { readonly at: Micros; readonly request: AddPartitionsToTxnBrokerRequest }[] = [];
  readonly #held: { from: ActorId; request: AddPartitionsToTxnBrokerRequest; errorCode: number }[] = [];
  #ctx: Context | null = null;

  start(ctx: Context): void {
    this.#ctx = ctx;
  }

  receive(from: ActorId, message: Message, ctx: Context): void {
    this.#ctx = ctx;
    if (message.type !== "AddPartitionsToTxnBrokerRequest") return;
    this.requests.push({ at: ctx.now(), request: message });
    const errorCode = this.errors.shift() ?? ErrorCode.NONE;
    if (this.holding) this.#held.push({ from, request: message, errorCode });
    else
      ctx.send(
        from,
        addPartitionsToTxnBrokerResponse(message, () => () => errorCode),
      );
  }

  fire(): void {}

  release(): void {
    this.holding = false;
    const ctx = this.#ctx;
    if (ctx === null) throw new Error("not started");
    for (const { from, request, errorCode } of this.#held.splice(0)) {
      ctx.send(
        from,
        addPartitionsToTxnBrokerResponse(request, () => () => errorCode),
      );
    }
  }
}

function started(broker: Record<string, JsonValue> = {}): { net: SimNetwork; coordinator: ScriptedCoordinator } {
  const net = cluster({ ...SPEC, broker });
  const coordinator = new ScriptedCoordinator();
  net.add(COORDINATOR, () => coordinator, null);
  net.addClient("client");
  net.startAll();
  net.runFor(ms(20));
  return { net, coordinator };
}

interface Write {
  readonly producerId?: number;
  readonly epoch?: number;
  readonly sequence?: number;
  readonly apiVersion?: number;
  readonly partition?: number;
}

/** Sends a transactional produce of one record and returns its correlation id (producer 7, epoch 0, sequence 0, v12 by default). */
function send(net: SimNetwork, write: Write = {}): number {
  const stamp = { producerId: write.producerId ?? 7, epoch: write.epoch ?? 0, sequence: write.sequence ?? 0, transactional: true };
  const request = {
    ...produceRequest("t", write.partition ?? 0, stampedBatch(stamp, 1), 1),
    transactionalId: TRANSACTIONAL_ID,
    apiVersion: write.apiVersion ?? TV2,
  };
  net.send("client", "broker-0", request);
  return request.correlationId;
}

function errorOf(net: SimNetwork, correlationId: number): number | undefined {
  net.runUntilTrue(() => answer(net, "ProduceResponse", correlationId) !== undefined, seconds(1));
  return answer(net, "ProduceResponse", correlationId)?.responses[0]?.partitionResponses[0]?.errorCode;
}

/** Writes a marker to t-`partition` and returns its error. */
function marker(net: SimNetwork, producerId: number, epoch: number, transactionVersion: number, partition = 0): number | undefined {
  const request = writeMarkers(producerId, epoch, true, [partition], 0, "t", transactionVersion);
  net.send("client", "broker-0", request);
  net.runUntilTrue(() => answer(net, "WriteTxnMarkersResponse", request.correlationId) !== undefined, seconds(1));
  return answer(net, "WriteTxnMarkersResponse", request.correlationId)?.markers[0]?.topics[0]?.partitions[0]?.errorCode;
}

function logEnd(net: SimNetwork, partition = 0): number | undefined {
  return net.actor<BrokerActor>("broker-0").replicaManager.partition("t", partition)?.log.logEndOffset;
}

/** What the coordinator was asked, per request: version, producer epoch, verifyOnly and partitions. */
const asked = (coordinator: ScriptedCoordinator) =>
  coordinator.requests.map(({ request }) => {
    const transaction = request.transactions[0];
    return {
      apiVersion: request.apiVersion,
      producerId: transaction?.producerId,
      producerEpoch: transaction?.producerEpoch,
      verifyOnly: transaction?.verifyOnly,
      topics: transaction?.topics,
    };
  });

describe("a partition leader's implicit add for transaction version 2 (KIP-890 part 2)", () => {
  it("adds the partition of a Produce v12 even with transaction.partition.verification.enable=false; Produce v9 goes unverified", () => {
    const { net, coordinator } = started({ "transaction.partition.verification.enable": false });
    expect(errorOf(net, send(net, { producerId: 8, apiVersion: PRE_TV2, partition: 1 }))).toBe(ErrorCode.NONE);
    expect(coordinator.requests).toEqual([]);
    expect(errorOf(net, send(net))).toBe(ErrorCode.NONE);
    expect(asked(coordinator)).toEqual([
      { apiVersion: 5, producerId: 7, producerEpoch: 0, verifyOnly: false, topics: [{ name: "t", partitions: [0] }] },
    ]);
    expect([logEnd(net, 0), logEnd(net, 1)]).toEqual([1, 1]);
  });

  it("with verification off, a failed add still fails its partition: nothing is appended where the coordinator did not add", () => {
    const { net, coordinator } = started({ "transaction.partition.verification.enable": false });
    coordinator.errors.push(ErrorCode.INVALID_PRODUCER_ID_MAPPING, ...Array.from({ length: 10 }, () => ErrorCode.CONCURRENT_TRANSACTIONS));
    expect(errorOf(net, send(net))).toBe(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    expect(errorOf(net, send(net))).toBe(ErrorCode.CONCURRENT_TRANSACTIONS);
    // A stale epoch is refused unasked (KAFKA-18042) once the partition has the producer at a newer one.
    expect(errorOf(net, send(net, { epoch: 1 }))).toBe(ErrorCode.NONE);
    expect(errorOf(net, send(net, { epoch: 0, sequence: 1 }))).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
    expect(logEnd(net)).toBe(1);
  });

  it("with verification on, adds once per transaction: the next batch at the same epoch finds it open", () => {
    const { net, coordinator } = started();
    expect(errorOf(net, send(net))).toBe(ErrorCode.NONE);
    expect(errorOf(net, send(net, { sequence: 1 }))).toBe(ErrorCode.NONE);
    expect(asked(coordinator)).toEqual([
      { apiVersion: 5, producerId: 7, producerEpoch: 0, verifyOnly: false, topics: [{ name: "t", partitions: [0] }] },
    ]);
    expect(logEnd(net)).toBe(2);
  });

  it("a transaction open at another epoch is not the batch's (KAFKA-18575) for v12; for v9 it is, as before", () => {
    const { net, coordinator } = started();
    // Transaction version 2: epoch 0's transaction is open on t-0 (its marker, at epoch 1, not there yet); epoch 1's batch is added.
    expect(errorOf(net, send(net))).toBe(ErrorCode.NONE);
    expect(errorOf(net, send(net, { epoch: 1 }))).toBe(ErrorCode.NONE);
    expect(asked(coordinator).map((a) => [a.producerId, a.producerEpoch, a.verifyOnly])).toEqual([
      [7, 0, false],
      [7, 1, false],
    ]);
    // Before transaction version 2: a transaction open at any epoch needs no verification.
    expect(errorOf(net, send(net, { producerId: 8, apiVersion: PRE_TV2, partition: 1 }))).toBe(ErrorCode.NONE);
    expect(errorOf(net, send(net, { producerId: 8, epoch: 1, apiVersion: PRE_TV2, partition: 1 }))).toBe(ErrorCode.NONE);
    expect(asked(coordinator).map((a) => [a.producerId, a.producerEpoch, a.verifyOnly])).toEqual([
      [7, 0, false],
      [7, 1, false],
      [8, 0, true],
    ]);
    expect([logEnd(net, 0), logEnd(net, 1)]).toEqual([2, 2]);
  });

  it("retries CONCURRENT_TRANSACTIONS every 20 ms, then answers it once 100 ms have passed since the first attempt", () => {
    const { net, coordinator } = started();
    coordinator.errors.push(...Array.from({ length: 10 }, () => ErrorCode.CONCURRENT_TRANSACTIONS));
    const sentAt = net.now;
    const request = send(net);
    expect(errorOf(net, request)).toBe(ErrorCode.CONCURRENT_TRANSACTIONS);
    // The link takes 1 ms each way: each answer comes 2 ms after its request, and the next request 20 ms after that.
    // The fifth answer comes 90 ms after the first request (under 100 ms: one more), the sixth 112 ms after it.
    expect(coordinator.requests.map(({ at }) => (at - sentAt) / 1000)).toEqual([2, 24, 46, 68, 90, 112]);
    expect(net.received("ProduceResponse", request)[0]?.at).toBe(sentAt + ms(114));
    expect(logEnd(net)).toBe(0);
  });

  it("appends once the coordinator adds the partition after its CONCURRENT_TRANSACTIONS", () => {
    const { net, coordinator } = started();
    coordinator.errors.push(ErrorCode.CONCURRENT_TRANSACTIONS, ErrorCode.CONCURRENT_TRANSACTIONS);
    expect(errorOf(net, send(net))).toBe(ErrorCode.NONE);
    expect(coordinator.requests).toHaveLength(3);
    expect(logEnd(net)).toBe(1);
  });

  it.each([
    ["add.partitions.to.txn.retry.backoff.max.ms = 0: no retry", { "add.partitions.to.txn.retry.backoff.max.ms": 0 }, 1],
    ["request.timeout.ms = 50 bounds the retries", { "request.timeout.ms": 50 }, 4],
    [
      "add.partitions.to.txn.retry.backoff.ms = 60: answers 2, 64 and 126 ms after the first request",
      { "add.partitions.to.txn.retry.backoff.ms": 60 },
      3,
    ],
  ])("%s", (_, broker, requests) => {
    const { net, coordinator } = started(broker);
    coordinator.errors.push(...Array.from({ length: 10 }, () => ErrorCode.CONCURRENT_TRANSACTIONS));
    expect(errorOf(net, send(net))).toBe(ErrorCode.CONCURRENT_TRANSACTIONS);
    expect(coordinator.requests).toHaveLength(requests);
  });

  it("before transaction version 2 CONCURRENT_TRANSACTIONS is not retried: NOT_ENOUGH_REPLICAS at once, as before", () => {
    const { net, coordinator } = started();
    coordinator.errors.push(ErrorCode.CONCURRENT_TRANSACTIONS, ErrorCode.CONCURRENT_TRANSACTIONS);
    expect(errorOf(net, send(net, { apiVersion: PRE_TV2 }))).toBe(ErrorCode.NOT_ENOUGH_REPLICAS);
    expect(coordinator.requests).toHaveLength(1);
  });

  it("a stale epoch is INVALID_PRODUCER_EPOCH without asking (KAFKA-18042) for v12; v9 still asks first", () => {
    const { net, coordinator } = started();
    // Transaction version 2: epoch 1's transaction ended by its marker at epoch 2; a batch of epoch 1 is stale.
    expect(errorOf(net, send(net, { epoch: 1 }))).toBe(ErrorCode.NONE);
    expect(marker(net, 7, 2, 2)).toBe(ErrorCode.NONE);
    expect(errorOf(net, send(net, { epoch: 1, sequence: 1 }))).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
    expect(coordinator.requests).toHaveLength(1);
    // Before transaction version 2: epoch 1's transaction ended by its marker at epoch 1; a batch of epoch 0 is verified, then refused.
    expect(errorOf(net, send(net, { producerId: 8, epoch: 1, apiVersion: PRE_TV2, partition: 1 }))).toBe(ErrorCode.NONE);
    expect(marker(net, 8, 1, 0, 1)).toBe(ErrorCode.NONE);
    expect(errorOf(net, send(net, { producerId: 8, epoch: 0, apiVersion: PRE_TV2, partition: 1 }))).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
    expect(asked(coordinator).map((a) => [a.producerId, a.producerEpoch])).toEqual([
      [7, 1],
      [8, 1],
      [8, 0],
    ]);
  });

  it("a v12 producer new to the partition starts at sequence 0 (KAFKA-18202); a v9 one may start anywhere", () => {
    const { net, coordinator } = started();
    expect(errorOf(net, send(net, { sequence: 3 }))).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
    expect(errorOf(net, send(net, { sequence: 0 }))).toBe(ErrorCode.NONE);
    expect(errorOf(net, send(net, { producerId: 8, sequence: 3, apiVersion: PRE_TV2, partition: 1 }))).toBe(ErrorCode.NONE);
    expect(coordinator.requests).toHaveLength(3);
    expect([logEnd(net, 0), logEnd(net, 1)]).toEqual([1, 1]);
  });

  it("the next transaction's add outlives the marker that ends the previous one at its epoch", () => {
    const { net, coordinator } = started();
    expect(errorOf(net, send(net))).toBe(ErrorCode.NONE);
    // Epoch 1's first batch is being added while epoch 0's transaction is still open here...
    coordinator.holding = true;
    const next = send(net, { epoch: 1 });
    net.runFor(ms(20));
    // ...and the marker ending it, at epoch 1, arrives first: the add's guard survives it (Kafka's isV2NextTransactionStarted).
    expect(marker(net, 7, 1, 2)).toBe(ErrorCode.NONE);
    coordinator.release();
    expect(errorOf(net, next)).toBe(ErrorCode.NONE);
    expect(logEnd(net)).toBe(3);
  });
});
