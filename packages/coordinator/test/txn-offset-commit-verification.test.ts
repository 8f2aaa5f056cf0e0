import {
  ADD_PARTITIONS_TO_TXN_CONNECTION,
  type AddOffsetsToTxnResponse,
  type AddPartitionsToTxnBrokerRequest,
  type AddPartitionsToTxnBrokerResponse,
  type AddPartitionsToTxnResponse,
  addPartitionsToTxnBrokerResponse,
  type EndTxnResponse,
  ErrorCode,
  type InitProducerIdResponse,
  type JsonValue,
  type OffsetFetchResponse,
  partitionFor,
  type TxnOffsetCommitResponse,
} from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { CoordinatorUnderTest, coordinatorConfig, SimulatedMember } from "./coordinator-test-kit.js";
import {
  addOffsets,
  addPartitions,
  endTxn,
  initProducerId,
  offsetFetch,
  offsetsMarker,
  type ProducerIdAndEpoch,
  TRANSACTIONAL_ID,
  TXN_COORDINATOR,
  TxnCoordinatorUnderTest,
  txnConfig,
  txnOffsetCommit,
  writeTxnMarkers,
} from "./transaction-test-kit.js";

/**
 * KIP-890 part 1 on the group coordinator: a TxnOffsetCommit whose producer
 * has no transaction ongoing on the group's `__consumer_offsets` partition is
 * verified with the transaction coordinator before it is written.
 */

/** The `__consumer_offsets` partition of group "g" (50 partitions). */
const G_PARTITION = partitionFor("g", 50);

/** A group coordinator that verifies with txn-coordinator-0. */
function verifyingConfig(broker: Record<string, JsonValue> = {}): JsonValue {
  return { ...(coordinatorConfig({ broker }) as Record<string, JsonValue>), txnCoordinators: [TXN_COORDINATOR] };
}

/** The group coordinator and the transaction coordinator wired together, a member m1 at epoch 1, a producer whose transaction holds the group's offsets partition. */
function wired(broker: Record<string, JsonValue> = {}): {
  gc: CoordinatorUnderTest;
  tc: TxnCoordinatorUnderTest;
  producer: ProducerIdAndEpoch;
} {
  const gc = new CoordinatorUnderTest(verifyingConfig(broker));
  expect(new SimulatedMember("m1").heartbeat(gc).memberEpoch).toBe(1);
  const tc = new TxnCoordinatorUnderTest(txnConfig(), gc);
  const init = tc.request<InitProducerIdResponse>(initProducerId());
  const producer = { producerId: init.producerId, producerEpoch: init.producerEpoch };
  expect(tc.request<AddOffsetsToTxnResponse>(addOffsets(producer)).errorCode).toBe(0);
  return { gc, tc, producer };
}

function commit(producer: ProducerIdAndEpoch, offset: number, apiVersion = 3): ReturnType<typeof txnOffsetCommit> {
  return { ...txnOffsetCommit({ producer, memberId: "m1", generationId: 1, offsets: { 0: offset } }), apiVersion };
}

function errorOf(gc: CoordinatorUnderTest, request: { correlationId: number }): number | undefined {
  return gc.responseTo<TxnOffsetCommitResponse>(request.correlationId)?.topics[0]?.partitions[0]?.errorCode;
}

function verifications(gc: CoordinatorUnderTest): AddPartitionsToTxnBrokerRequest[] {
  return gc.ctx.sent.flatMap(({ to, message }) =>
    to === TXN_COORDINATOR && message.type === "AddPartitionsToTxnBrokerRequest" ? [message] : [],
  );
}

function fetchOffset(gc: CoordinatorUnderTest): [number, number] {
  const request = offsetFetch(true);
  gc.send("client", request);
  const partition = gc.responseTo<OffsetFetchResponse>(request.correlationId)?.groups[0]?.topics[0]?.partitions[0];
  return [partition?.committedOffset ?? Number.NaN, partition?.errorCode ?? Number.NaN];
}

/** The answer of a transaction coordinator to the latest verification, every partition with `errorCode`. */
function answerLatest(gc: CoordinatorUnderTest, errorCode: number): void {
  const request = verifications(gc).at(-1);
  if (request === undefined) throw new Error("no verification sent");
  const response = addPartitionsToTxnBrokerResponse(request, () => () => errorCode);
  gc.send(TXN_COORDINATOR, response);
}

describe("TxnOffsetCommit verification (KIP-890 part 1)", () => {
  it("the first commit of a transaction waits for the transaction coordinator to confirm the offsets partition; the next ones do not", () => {
    const { gc, tc, producer } = wired();
    const first = commit(producer, 42);
    gc.send("producer", first);
    expect(errorOf(gc, first)).toBeUndefined();
    expect(verifications(gc)).toEqual([
      expect.objectContaining({
        apiVersion: 4,
        transactions: [
          {
            transactionalId: TRANSACTIONAL_ID,
            producerId: producer.producerId,
            producerEpoch: producer.producerEpoch,
            verifyOnly: true,
            topics: [{ name: "__consumer_offsets", partitions: [G_PARTITION] }],
          },
        ],
      }),
    ]);
    // Verification is a question: the transaction coordinator's state does not move.
    const transitions = tc.transitions().length;
    tc.pump();
    expect(tc.transitions()).toHaveLength(transitions);
    expect(errorOf(gc, first)).toBe(ErrorCode.NONE);
    expect(fetchOffset(gc)).toEqual([-1, ErrorCode.UNSTABLE_OFFSET_COMMIT]);

    // The producer's transaction is ongoing in the log now: no second verification.
    const second = commit(producer, 43);
    gc.send("producer", second);
    expect(errorOf(gc, second)).toBe(ErrorCode.NONE);
    expect(verifications(gc)).toHaveLength(1);

    expect(tc.request<EndTxnResponse>(endTxn(producer, true)).errorCode).toBe(0);
    expect(fetchOffset(gc)).toEqual([43, 0]);
  });

  it("a stale commit between two transactions is refused and writes nothing: INVALID_TXN_STATE below v4, TRANSACTION_ABORTABLE from v4", () => {
    const { gc, tc, producer } = wired();
    const first = commit(producer, 42);
    gc.send("producer", first);
    tc.pump();
    expect(tc.request<EndTxnResponse>(endTxn(producer, true)).errorCode).toBe(0);
    expect(fetchOffset(gc)).toEqual([42, 0]);

    // The same producer's earlier request, retransmitted after the transaction ended (CompleteCommit: no partitions).
    const stale = commit(producer, 10);
    gc.send("producer", stale);
    tc.pump();
    expect(errorOf(gc, stale)).toBe(ErrorCode.INVALID_TXN_STATE);
    const staleV4 = commit(producer, 11, 4);
    gc.send("producer", staleV4);
    tc.pump();
    expect(errorOf(gc, staleV4)).toBe(ErrorCode.TRANSACTION_ABORTABLE);
    expect(fetchOffset(gc)).toEqual([42, 0]);
    expect(gc.ctx.observationsOf("gc.txn-offset").map((o) => `${o.offset}:${o.outcome}:${o.errorCode}`)).toEqual([
      "42:pending:0",
      `10:rejected:${ErrorCode.INVALID_TXN_STATE}`,
      `11:rejected:${ErrorCode.TRANSACTION_ABORTABLE}`,
    ]);

    // Once the next transaction holds the offsets partition, a late request of the producer passes verification:
    // under transaction version 1 the epoch does not change between transactions (what KIP-890 part 2 fixes).
    expect(tc.request<AddOffsetsToTxnResponse>(addOffsets(producer)).errorCode).toBe(0);
    const late = commit(producer, 12);
    gc.send("producer", late);
    tc.pump();
    expect(errorOf(gc, late)).toBe(ErrorCode.NONE);
  });

  it("answers the transaction coordinator's refusals as Kafka's partition writer maps them", () => {
    const { gc, tc, producer } = wired();
    // Another epoch of the producer: PRODUCER_FENCED from the coordinator, INVALID_PRODUCER_EPOCH to the client.
    const fenced = commit({ ...producer, producerEpoch: producer.producerEpoch + 1 }, 5);
    gc.send("producer", fenced);
    tc.pump();
    expect(errorOf(gc, fenced)).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
    // Another producer id under the transactional id.
    const unknown = commit({ producerId: producer.producerId + 7, producerEpoch: 0 }, 5);
    gc.send("producer", unknown);
    tc.pump();
    expect(errorOf(gc, unknown)).toBe(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    // The transaction is ending (PrepareCommit, its data partition's marker unanswered): CONCURRENT_TRANSACTIONS, which clients retry.
    expect(tc.request<AddPartitionsToTxnResponse>(addPartitions(producer, { out: [0] })).results[0]?.results[0]?.partitionErrorCode).toBe(
      0,
    );
    tc.markerAnswer = () => null;
    expect(tc.request<EndTxnResponse>(endTxn(producer, true)).errorCode).toBe(0);
    const ending = commit(producer, 5);
    gc.send("producer", ending);
    tc.pump();
    expect(errorOf(gc, ending)).toBe(ErrorCode.CONCURRENT_TRANSACTIONS);
    expect(gc.ctx.observationsOf("gc.txn-offset").every((o) => o.outcome === "rejected")).toBe(true);
  });

  it("a reset connection or an unanswered verification is COORDINATOR_LOAD_IN_PROGRESS (NETWORK_EXCEPTION, translated for older clients)", () => {
    const gc = new CoordinatorUnderTest(verifyingConfig());
    expect(new SimulatedMember("m1").heartbeat(gc).memberEpoch).toBe(1);
    const producer = { producerId: 0, producerEpoch: 0 };
    const reset = commit(producer, 5);
    gc.send("producer", reset);
    gc.send(TXN_COORDINATOR, { type: "SimDisconnect", reason: "reset", connection: ADD_PARTITIONS_TO_TXN_CONNECTION });
    expect(errorOf(gc, reset)).toBe(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
    // A reset of another connection to the same node changes nothing.
    const timedOut = commit(producer, 6);
    gc.send("producer", timedOut);
    gc.send(TXN_COORDINATOR, { type: "SimDisconnect", reason: "reset", connection: "" });
    gc.advanceMs(29_999);
    expect(errorOf(gc, timedOut)).toBeUndefined();
    // request.timeout.ms (30 s) later the request fails.
    gc.advanceMs(1);
    expect(errorOf(gc, timedOut)).toBe(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
    expect(verifications(gc)).toHaveLength(2);
    expect(gc.ctx.observationsOf("gc.txn-offset").map((o) => o.outcome)).toEqual(["rejected", "rejected"]);
  });

  it("a marker written between the verification and the write fails the write (the verification guard)", () => {
    const gc = new CoordinatorUnderTest(verifyingConfig());
    expect(new SimulatedMember("m1").heartbeat(gc).memberEpoch).toBe(1);
    const producer = { producerId: 0, producerEpoch: 0 };
    const request = commit(producer, 5);
    gc.send("producer", request);
    // An ABORT marker of the producer reaches the partition before the coordinator's answer does.
    gc.send(TXN_COORDINATOR, writeTxnMarkers([offsetsMarker(producer, false, [G_PARTITION])]));
    answerLatest(gc, ErrorCode.NONE);
    expect(errorOf(gc, request)).toBe(ErrorCode.INVALID_TXN_STATE);
    expect(fetchOffset(gc)).toEqual([-1, 0]);
    // Without the marker in between, the same answer lets the write through.
    const again = commit(producer, 6);
    gc.send("producer", again);
    answerLatest(gc, ErrorCode.NONE);
    expect(errorOf(gc, again)).toBe(ErrorCode.NONE);
  });

  it("a second request of the same producer while the first waits replaces it; other producers wait for the request in flight", () => {
    const gc = new CoordinatorUnderTest(verifyingConfig());
    expect(new SimulatedMember("m1").heartbeat(gc).memberEpoch).toBe(1);
    const p0 = { producerId: 0, producerEpoch: 0 };
    const inFlight = commit(p0, 1);
    gc.send("producer", inFlight);
    // Three more while the first is in flight: they wait, and the same transactional id's later request wins.
    const waiting = commit(p0, 2);
    gc.send("producer", waiting);
    const retried = commit(p0, 3);
    gc.send("producer", retried);
    expect(errorOf(gc, waiting)).toBe(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
    const other = {
      ...txnOffsetCommit({ producer: { producerId: 9, producerEpoch: 0 }, memberId: "m1", generationId: 1 }),
      transactionalId: "txn-b",
    };
    gc.send("producer", other);
    expect(verifications(gc)).toHaveLength(1);
    answerLatest(gc, ErrorCode.NONE);
    expect(errorOf(gc, inFlight)).toBe(ErrorCode.NONE);
    // The waiting ones went out together when the first was answered.
    expect(
      verifications(gc)
        .at(-1)
        ?.transactions.map((t) => t.transactionalId),
    ).toEqual([TRANSACTIONAL_ID, "txn-b"]);
    answerLatest(gc, ErrorCode.NONE);
    expect(errorOf(gc, retried)).toBe(ErrorCode.NONE);
    expect(errorOf(gc, other)).toBe(ErrorCode.NONE);
  });

  it("a request none of whose partitions exists is answered at once, without a verification (KafkaApis answers it itself)", () => {
    const gc = new CoordinatorUnderTest(verifyingConfig());
    const request = {
      ...commit({ producerId: 0, producerEpoch: 0 }, 5),
      topics: [
        { name: "nope", partitions: [{ partitionIndex: 0, committedOffset: 5, committedLeaderEpoch: -1, committedMetadata: null }] },
      ],
    };
    gc.send("producer", request);
    expect(errorOf(gc, request)).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    expect(verifications(gc)).toEqual([]);
  });

  it("the log's ongoing transactions come back with a restart: a commit into one needs no verification", () => {
    const { gc, tc, producer } = wired();
    const first = commit(producer, 42);
    gc.send("producer", first);
    tc.pump();
    expect(errorOf(gc, first)).toBe(ErrorCode.NONE);
    gc.restart();
    const after = commit(producer, 43);
    gc.send("producer", after);
    expect(errorOf(gc, after)).toBe(ErrorCode.NONE);
    expect(verifications(gc)).toEqual([]);
  });

  it("transaction.partition.verification.enable=false writes at once, as Kafka before 3.6 did", () => {
    const { gc, tc, producer } = wired({ "transaction.partition.verification.enable": false });
    const first = commit(producer, 42);
    gc.send("producer", first);
    expect(errorOf(gc, first)).toBe(ErrorCode.NONE);
    expect(tc.request<EndTxnResponse>(endTxn(producer, true)).errorCode).toBe(0);
    // The stale request is taken: a transaction of its own, which the next marker of the producer resolves.
    const stale = commit(producer, 10);
    gc.send("producer", stale);
    expect(errorOf(gc, stale)).toBe(ErrorCode.NONE);
    expect(verifications(gc)).toEqual([]);
  });
});

describe("the transaction coordinator's AddPartitionsToTxn v4 (from brokers)", () => {
  function brokerRequest(transactions: AddPartitionsToTxnBrokerRequest["transactions"]): AddPartitionsToTxnBrokerRequest {
    return { type: "AddPartitionsToTxnBrokerRequest", correlationId: 90_001, apiVersion: 4, clientId: "broker-0", transactions };
  }

  /** The request as broker-0 sends it, and the coordinator's answer. */
  function ask(
    tc: TxnCoordinatorUnderTest,
    transactions: AddPartitionsToTxnBrokerRequest["transactions"],
  ): AddPartitionsToTxnBrokerResponse {
    const request = brokerRequest(transactions);
    tc.actor.receive("broker-0", request, tc.ctx);
    const response = tc.responseTo<AddPartitionsToTxnBrokerResponse>(request.correlationId, "broker-0");
    if (response === undefined) throw new Error("no answer");
    return response;
  }

  function results(response: AddPartitionsToTxnBrokerResponse): string[] {
    return response.resultsByTransaction.flatMap((transaction) =>
      transaction.topicResults.flatMap((topic) =>
        topic.resultsByPartition.map((p) => `${transaction.transactionalId}:${topic.name}-${p.partitionIndex}:${p.partitionErrorCode}`),
      ),
    );
  }

  it("answers each transaction of the batch: in it, not in it, unknown partitions, another coordinator's id", () => {
    const tc = new TxnCoordinatorUnderTest(txnConfig());
    const init = tc.request<InitProducerIdResponse>(initProducerId());
    const producer = { producerId: init.producerId, producerEpoch: init.producerEpoch };
    const base = { transactionalId: TRANSACTIONAL_ID, ...producer };
    // verifyOnly: false adds (the transaction starts); verifyOnly: true only looks.
    const added = ask(tc, [{ ...base, verifyOnly: false, topics: [{ name: "out", partitions: [0] }] }]);
    expect(results(added)).toEqual([`${TRANSACTIONAL_ID}:out-0:0`]);
    expect(tc.transitions().at(-1)).toBe("Empty->Ongoing@0");
    const verified = ask(tc, [
      { ...base, verifyOnly: true, topics: [{ name: "out", partitions: [0, 1] }] },
      { transactionalId: "txn-unknown", producerId: 77, producerEpoch: 0, verifyOnly: true, topics: [{ name: "out", partitions: [2] }] },
      {
        ...base,
        transactionalId: "txn-nope",
        verifyOnly: true,
        topics: [
          { name: "out", partitions: [3] },
          { name: "gone", partitions: [0] },
        ],
      },
    ]);
    expect(verified.errorCode).toBe(0);
    expect(results(verified)).toEqual([
      `${TRANSACTIONAL_ID}:out-0:0`,
      `${TRANSACTIONAL_ID}:out-1:${ErrorCode.TRANSACTION_ABORTABLE}`,
      `txn-unknown:out-2:${ErrorCode.INVALID_PRODUCER_ID_MAPPING}`,
      `txn-nope:out-3:${ErrorCode.OPERATION_NOT_ATTEMPTED}`,
      `txn-nope:gone-0:${ErrorCode.UNKNOWN_TOPIC_OR_PARTITION}`,
    ]);
    // Only the verifyOnly: false transaction moved the state.
    expect(tc.transitions().at(-1)).toBe("Empty->Ongoing@0");

    const other = new TxnCoordinatorUnderTest(txnConfig({ txnCoordinators: ["txn-coordinator-1", TXN_COORDINATOR] }));
    const owned = ask(other, [{ ...base, verifyOnly: true, topics: [{ name: "out", partitions: [0] }] }]);
    const ownerIsOther = partitionFor(TRANSACTIONAL_ID, 50) % 2 === 0;
    expect(results(owned)).toEqual([
      `${TRANSACTIONAL_ID}:out-0:${ownerIsOther ? ErrorCode.NOT_COORDINATOR : ErrorCode.INVALID_PRODUCER_ID_MAPPING}`,
    ]);
  });
});
