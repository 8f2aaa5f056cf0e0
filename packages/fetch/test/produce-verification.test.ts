import {
  type Actor,
  type ActorId,
  ADD_PARTITIONS_TO_TXN_CONNECTION,
  type AddPartitionsToTxnBrokerRequest,
  addPartitionsToTxnBrokerResponse,
  type Context,
  ErrorCode,
  type Message,
  ms,
  seconds,
  tpKey,
} from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import type { BrokerActor } from "../src/broker/broker-actor.js";
import { answer, type ClusterSpec, cluster, produceRequest } from "./data-path-fixtures.js";
import type { SimNetwork } from "./sim-network.js";
import { type ProducerStamp, stampedBatch, writeMarkers } from "./txn-fixtures.js";

/**
 * KIP-890 part 1 on the partition leader: a transactional batch for a
 * partition where its producer has no transaction open is verified with the
 * transaction coordinator before it is appended.
 */

const COORDINATOR = "txn-coordinator-0";
const TRANSACTIONAL_ID = "t-a";
const SPEC: ClusterSpec = {
  brokers: 1,
  topics: [{ name: "t", partitions: 2, replicationFactor: 1 }],
  txnCoordinators: [COORDINATOR],
};

/**
 * A transaction coordinator that answers a broker's verification from
 * `inTransaction` (tpKeys), or with `error` for every partition; `holding`
 * keeps the requests unanswered until `release`.
 */
class VerifyingCoordinator implements Actor {
  readonly inTransaction = new Set<string>();
  error: number | null = null;
  holding = false;
  readonly requests: AddPartitionsToTxnBrokerRequest[] = [];
  readonly #held: { from: ActorId; request: AddPartitionsToTxnBrokerRequest }[] = [];
  #ctx: Context | null = null;

  start(ctx: Context): void {
    this.#ctx = ctx;
  }

  receive(from: ActorId, message: Message, ctx: Context): void {
    this.#ctx = ctx;
    if (message.type !== "AddPartitionsToTxnBrokerRequest") return;
    this.requests.push(message);
    if (this.holding) this.#held.push({ from, request: message });
    else this.#answer(from, message, ctx);
  }

  fire(): void {}

  release(): void {
    this.holding = false;
    const ctx = this.#ctx;
    if (ctx === null) throw new Error("not started");
    for (const { from, request } of this.#held.splice(0)) this.#answer(from, request, ctx);
  }

  #answer(from: ActorId, request: AddPartitionsToTxnBrokerRequest, ctx: Context): void {
    const inTransaction = (topic: string, partition: number) => this.inTransaction.has(tpKey(topic, partition));
    ctx.send(
      from,
      addPartitionsToTxnBrokerResponse(
        request,
        () => (topic, partition) => this.error ?? (inTransaction(topic, partition) ? ErrorCode.NONE : ErrorCode.TRANSACTION_ABORTABLE),
      ),
    );
  }
}

function started(): { net: SimNetwork; coordinator: VerifyingCoordinator } {
  const net = cluster(SPEC);
  const coordinator = new VerifyingCoordinator();
  net.add(COORDINATOR, () => coordinator, null);
  net.addClient("client");
  net.startAll();
  net.runFor(ms(20));
  return { net, coordinator };
}

function stamp(sequence: number): ProducerStamp {
  return { producerId: 7, epoch: 0, sequence, transactional: true };
}

/** Sends a transactional produce of one record to t-`partition` and returns its correlation id. */
function send(net: SimNetwork, sequence: number, apiVersion = 9, partition = 0): number {
  const request = { ...produceRequest("t", partition, stampedBatch(stamp(sequence), 1), 1), transactionalId: TRANSACTIONAL_ID, apiVersion };
  net.send("client", "broker-0", request);
  return request.correlationId;
}

function errorOf(net: SimNetwork, correlationId: number): number | undefined {
  net.runUntilTrue(() => answer(net, "ProduceResponse", correlationId) !== undefined, seconds(1));
  return answer(net, "ProduceResponse", correlationId)?.responses[0]?.partitionResponses[0]?.errorCode;
}

function logEnd(net: SimNetwork, partition = 0): number | undefined {
  return net.actor<BrokerActor>("broker-0").replicaManager.partition("t", partition)?.log.logEndOffset;
}

describe("transactional produce verification (KIP-890 part 1)", () => {
  it("a transaction's first batch on a partition waits for its verification; its next batches there do not", () => {
    const { net, coordinator } = started();
    coordinator.inTransaction.add("t-0");
    coordinator.holding = true;
    const first = send(net, 0);
    net.runFor(ms(20));
    expect(answer(net, "ProduceResponse", first)).toBeUndefined();
    expect(coordinator.requests.map((r) => r.transactions)).toEqual([
      [{ transactionalId: TRANSACTIONAL_ID, producerId: 7, producerEpoch: 0, verifyOnly: true, topics: [{ name: "t", partitions: [0] }] }],
    ]);
    coordinator.release();
    expect(errorOf(net, first)).toBe(ErrorCode.NONE);
    expect(logEnd(net)).toBe(1);
    // The transaction is open on t-0 now: no second verification.
    expect(errorOf(net, send(net, 1))).toBe(ErrorCode.NONE);
    expect(coordinator.requests).toHaveLength(1);
    expect(logEnd(net)).toBe(2);
  });

  it("a partition outside the transaction is INVALID_TXN_STATE (TRANSACTION_ABORTABLE from Produce v11) and nothing is written", () => {
    const { net, coordinator } = started();
    expect(errorOf(net, send(net, 0))).toBe(ErrorCode.INVALID_TXN_STATE);
    expect(errorOf(net, send(net, 0, 11))).toBe(ErrorCode.TRANSACTION_ABORTABLE);
    expect(logEnd(net)).toBe(0);
    expect(coordinator.requests).toHaveLength(2);
  });

  it("the coordinator's retriable errors and a lost connection become NOT_ENOUGH_REPLICAS; the retry, verified, is written", () => {
    const { net, coordinator } = started();
    coordinator.error = ErrorCode.CONCURRENT_TRANSACTIONS;
    expect(errorOf(net, send(net, 0))).toBe(ErrorCode.NOT_ENOUGH_REPLICAS);
    coordinator.error = null;
    coordinator.holding = true;
    const reset = send(net, 0);
    net.runFor(ms(20));
    net.send(COORDINATOR, "broker-0", { type: "SimDisconnect", reason: "reset", connection: ADD_PARTITIONS_TO_TXN_CONNECTION });
    expect(errorOf(net, reset)).toBe(ErrorCode.NOT_ENOUGH_REPLICAS);
    expect(logEnd(net)).toBe(0);
    coordinator.release();
    coordinator.inTransaction.add("t-0");
    expect(errorOf(net, send(net, 0))).toBe(ErrorCode.NONE);
    expect(logEnd(net)).toBe(1);
  });

  it("a marker written between the verification and the append fails the append (the verification guard)", () => {
    const { net, coordinator } = started();
    coordinator.inTransaction.add("t-0");
    coordinator.holding = true;
    const request = send(net, 0);
    net.runFor(ms(20));
    const marker = writeMarkers(7, 0, false, [0]);
    net.send("client", "broker-0", marker);
    net.runUntilTrue(() => answer(net, "WriteTxnMarkersResponse", marker.correlationId) !== undefined, seconds(1));
    coordinator.release();
    expect(errorOf(net, request)).toBe(ErrorCode.INVALID_TXN_STATE);
    // Only the marker is in the log.
    expect(logEnd(net)).toBe(1);
  });

  it("while a lower sequence waits to be verified again, a higher one is out of order", () => {
    const { net, coordinator } = started();
    coordinator.error = ErrorCode.NOT_COORDINATOR;
    expect(errorOf(net, send(net, 0))).toBe(ErrorCode.NOT_ENOUGH_REPLICAS);
    coordinator.error = null;
    coordinator.inTransaction.add("t-0");
    // Sequence 1 passes verification, but sequence 0's verification state blocks it.
    expect(errorOf(net, send(net, 1))).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
    expect(errorOf(net, send(net, 0))).toBe(ErrorCode.NONE);
    expect(errorOf(net, send(net, 1))).toBe(ErrorCode.NONE);
    expect(logEnd(net)).toBe(2);
  });

  it("a transactional batch in a request without a transactional id cannot be verified and is refused", () => {
    const { net, coordinator } = started();
    coordinator.inTransaction.add("t-0");
    const request = produceRequest("t", 0, stampedBatch(stamp(0), 1), 1);
    net.send("client", "broker-0", request);
    expect(errorOf(net, request.correlationId)).toBe(ErrorCode.INVALID_TXN_STATE);
    expect(coordinator.requests).toEqual([]);
    expect(logEnd(net)).toBe(0);
  });

  it("with transaction.partition.verification.enable=false the broker appends unverified, as before Kafka 3.6", () => {
    const net = cluster({ ...SPEC, broker: { "transaction.partition.verification.enable": false } });
    const coordinator = new VerifyingCoordinator();
    net.add(COORDINATOR, () => coordinator, null);
    net.addClient("client");
    net.startAll();
    net.runFor(ms(20));
    expect(errorOf(net, send(net, 0))).toBe(ErrorCode.NONE);
    expect(coordinator.requests).toEqual([]);
    expect(logEnd(net)).toBe(1);
  });
});
