import {
  type AddPartitionsToTxnBrokerRequest,
  type AddPartitionsToTxnBrokerResponse,
  type AddPartitionsToTxnResponse,
  type EndTxnResponse,
  ErrorCode,
  type InitProducerIdResponse,
  type JsonValue,
} from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { createTransactionCoordinator, type TransactionLogRecord } from "../src/index.js";
import {
  addPartitions,
  endTxn,
  initProducerId,
  type ProducerIdAndEpoch,
  TRANSACTIONAL_ID,
  TxnCoordinatorUnderTest,
  txnConfig,
} from "./transaction-test-kit.js";

/**
 * The transaction coordinator under transaction version 2 (KIP-890 part 2,
 * as Kafka 4.2 has it): EndTxn v5 bumps the epoch, a broker's
 * AddPartitionsToTxn (verifyOnly false) adds, the coordinator's own aborts
 * follow the cluster's transaction.version.
 */

/** The transaction coordinator's config with the cluster's transaction.version. */
function configAt(transactionVersion: number, broker: Record<string, JsonValue> = {}): JsonValue {
  return { ...(txnConfig({ broker }) as Record<string, JsonValue>), transactionVersion };
}

function init(tc: TxnCoordinatorUnderTest, fields: Parameters<typeof initProducerId>[0] = {}): InitProducerIdResponse {
  return tc.request<InitProducerIdResponse>(initProducerId(fields));
}

function producerOf(response: InitProducerIdResponse): ProducerIdAndEpoch {
  expect(response.errorCode).toBe(0);
  return { producerId: response.producerId, producerEpoch: response.producerEpoch };
}

/** EndTxn v5 (a client of transaction version 2): its answer as [errorCode, producerId, producerEpoch]. */
function endV5(tc: TxnCoordinatorUnderTest, producer: ProducerIdAndEpoch, committed: boolean): [number, number, number] {
  const response = tc.request<EndTxnResponse>({ ...endTxn(producer, committed), apiVersion: 5 });
  return [response.errorCode, response.producerId, response.producerEpoch];
}

let brokerCorrelation = 95_000;

/** A leader's AddPartitionsToTxn (broker form) for the producer's transaction: the error of its one transaction. */
function brokerAdd(
  tc: TxnCoordinatorUnderTest,
  producer: ProducerIdAndEpoch,
  partitions: number[],
  fields: { apiVersion?: number; verifyOnly?: boolean } = {},
): number {
  const request: AddPartitionsToTxnBrokerRequest = {
    type: "AddPartitionsToTxnBrokerRequest",
    correlationId: ++brokerCorrelation,
    apiVersion: fields.apiVersion ?? 5,
    clientId: "broker-0",
    transactions: [
      {
        transactionalId: TRANSACTIONAL_ID,
        producerId: producer.producerId,
        producerEpoch: producer.producerEpoch,
        verifyOnly: fields.verifyOnly ?? false,
        topics: [{ name: "out", partitions }],
      },
    ],
  };
  tc.actor.receive("broker-0", request, tc.ctx);
  const response = tc.responseTo<AddPartitionsToTxnBrokerResponse>(request.correlationId, "broker-0");
  tc.pump();
  const errors = response?.resultsByTransaction[0]?.topicResults.flatMap((t) => t.resultsByPartition.map((p) => p.partitionErrorCode));
  const first = errors?.[0];
  if (first === undefined || errors?.some((e) => e !== first)) throw new Error(`unexpected answer ${JSON.stringify(errors)}`);
  return first;
}

/** Every marker the coordinator sent as "apiVersion:producerId@epoch:committed:tv:partitions". */
function sentMarkers(tc: TxnCoordinatorUnderTest): string[] {
  return tc
    .markerRequests()
    .flatMap(({ request }) =>
      request.markers.map(
        (m) =>
          `v${request.apiVersion}:${m.producerId}@${m.producerEpoch}:${m.transactionResult}:tv${m.transactionVersion}:${m.topics
            .flatMap((t) => t.partitionIndexes.map((p) => `${t.name}-${p}`))
            .join(",")}`,
      ),
    );
}

function transactionLogValues(tc: TxnCoordinatorUnderTest): NonNullable<TransactionLogRecord["value"]>[] {
  return tc.storage.records.flatMap((record) => {
    const r = record as { type?: string; value?: TransactionLogRecord["value"] };
    return r.type === "TransactionLog" && r.value !== undefined && r.value !== null ? [r.value] : [];
  });
}

/** A producer at epoch 0 whose transaction holds out-0 and out-1 (added by a leader, transaction version 2). */
function ongoingV2(tc: TxnCoordinatorUnderTest): ProducerIdAndEpoch {
  const producer = producerOf(init(tc));
  expect(brokerAdd(tc, producer, [0, 1])).toBe(ErrorCode.NONE);
  return producer;
}

describe("EndTxn v5 (transaction version 2)", () => {
  it("a commit bumps the epoch: markers at epoch + 1 with transaction version 2, the answer carries epoch + 1", () => {
    const tc = new TxnCoordinatorUnderTest(configAt(2));
    const producer = ongoingV2(tc);
    expect(producer).toEqual({ producerId: 0, producerEpoch: 0 });
    expect(endV5(tc, producer, true)).toEqual([ErrorCode.NONE, 0, 1]);
    expect(tc.transitions()).toEqual(["Empty->Empty@0", "Empty->Ongoing@0", "Ongoing->PrepareCommit@1", "PrepareCommit->CompleteCommit@1"]);
    expect(sentMarkers(tc)).toEqual(["v2:0@1:true:tv2:out-0", "v2:0@1:true:tv2:out-1"]);
    expect(tc.transaction()).toMatchObject({
      state: "CompleteCommit",
      producerId: 0,
      producerEpoch: 1,
      lastProducerEpoch: 0,
      nextProducerId: -1,
      clientTransactionVersion: 2,
    });
    // The transaction version is written with the records (value version 1 at transaction.version 2).
    expect(transactionLogValues(tc).map((v) => `${v.transactionStatus}@${v.producerEpoch}:${v.clientTransactionVersion}`)).toEqual([
      "Empty@0:undefined",
      "Ongoing@0:2",
      "PrepareCommit@1:2",
      "CompleteCommit@1:2",
    ]);
  });

  it("a retried EndTxn at the old epoch after the completion is NONE with the current epoch, and writes nothing", () => {
    const tc = new TxnCoordinatorUnderTest(configAt(2));
    const producer = ongoingV2(tc);
    expect(endV5(tc, producer, true)).toEqual([ErrorCode.NONE, 0, 1]);
    const records = tc.storage.length;
    expect(endV5(tc, producer, true)).toEqual([ErrorCode.NONE, 0, 1]);
    expect(tc.storage.length).toBe(records);
    // Its opposite, at the old epoch: INVALID_TXN_STATE; at the current epoch nothing is open: INVALID_TXN_STATE too.
    expect(endV5(tc, producer, false)).toEqual([ErrorCode.INVALID_TXN_STATE, -1, -1]);
    expect(endV5(tc, { producerId: 0, producerEpoch: 1 }, true)).toEqual([ErrorCode.INVALID_TXN_STATE, -1, -1]);
    // Two epochs back is fenced.
    expect(endV5(tc, { producerId: 0, producerEpoch: 5 }, true)).toEqual([ErrorCode.PRODUCER_FENCED, -1, -1]);
    expect(tc.transitions().at(-1)).toBe("PrepareCommit->CompleteCommit@1");
  });

  it("a commit retried after the transaction was aborted is INVALID_TXN_STATE; the abort's own retry is NONE", () => {
    const tc = new TxnCoordinatorUnderTest(configAt(2));
    const producer = ongoingV2(tc);
    expect(endV5(tc, producer, false)).toEqual([ErrorCode.NONE, 0, 1]);
    expect(sentMarkers(tc)).toEqual(["v2:0@1:false:tv2:out-0", "v2:0@1:false:tv2:out-1"]);
    expect(endV5(tc, producer, true)).toEqual([ErrorCode.INVALID_TXN_STATE, -1, -1]);
    expect(endV5(tc, producer, false)).toEqual([ErrorCode.NONE, 0, 1]);
    expect(tc.transaction()).toMatchObject({ state: "CompleteAbort", producerEpoch: 1, lastProducerEpoch: 0 });
  });

  it("an abort at the current epoch with no transaction open bumps the epoch alone: no markers, CompleteAbort at once", () => {
    const tc = new TxnCoordinatorUnderTest(configAt(2));
    const producer = producerOf(init(tc));
    // Empty: a commit is INVALID_TXN_STATE, a retry's epoch is fenced, an abort bumps.
    expect(endV5(tc, producer, true)).toEqual([ErrorCode.INVALID_TXN_STATE, -1, -1]);
    tc.advanceMs(5000);
    expect(endV5(tc, producer, false)).toEqual([ErrorCode.NONE, 0, 1]);
    expect(tc.transitions().slice(-2)).toEqual(["Empty->PrepareAbort@1", "PrepareAbort->CompleteAbort@1"]);
    expect(tc.markerRequests()).toEqual([]);
    // The abort's start is its own time (no transaction was open).
    expect(tc.transaction()).toMatchObject({ state: "CompleteAbort", lastProducerEpoch: 0, txnStartTimestamp: 5000, partitions: [] });
    // CompleteAbort at the current epoch: another bump; from CompleteCommit likewise.
    expect(endV5(tc, { producerId: 0, producerEpoch: 1 }, false)).toEqual([ErrorCode.NONE, 0, 2]);
    expect(brokerAdd(tc, { producerId: 0, producerEpoch: 2 }, [3])).toBe(ErrorCode.NONE);
    expect(endV5(tc, { producerId: 0, producerEpoch: 2 }, true)).toEqual([ErrorCode.NONE, 0, 3]);
    expect(endV5(tc, { producerId: 0, producerEpoch: 3 }, false)).toEqual([ErrorCode.NONE, 0, 4]);
    expect(tc.transitions().slice(-2)).toEqual(["CompleteCommit->PrepareAbort@4", "PrepareAbort->CompleteAbort@4"]);

    // Empty after an InitProducerId at epoch 5: the previous epoch (a "retry") is fenced for an abort and a commit.
    const fresh = producerOf(init(tc));
    expect(fresh).toEqual({ producerId: 0, producerEpoch: 5 });
    expect(endV5(tc, { producerId: 0, producerEpoch: 4 }, false)).toEqual([ErrorCode.PRODUCER_FENCED, -1, -1]);
    expect(endV5(tc, { producerId: 0, producerEpoch: 4 }, true)).toEqual([ErrorCode.PRODUCER_FENCED, -1, -1]);
  });

  it("while the markers are written every EndTxn is CONCURRENT_TRANSACTIONS; another producer id or epoch is refused", () => {
    const tc = new TxnCoordinatorUnderTest(configAt(2));
    tc.markerAnswer = () => null;
    const producer = ongoingV2(tc);
    expect(endV5(tc, { ...producer, producerEpoch: 1 }, true)).toEqual([ErrorCode.PRODUCER_FENCED, -1, -1]);
    expect(endV5(tc, { ...producer, producerId: 42 }, true)).toEqual([ErrorCode.INVALID_PRODUCER_ID_MAPPING, -1, -1]);
    expect(endV5(tc, producer, true)).toEqual([ErrorCode.NONE, 0, 1]);
    expect(tc.transaction()).toMatchObject({ state: "PrepareCommit", pendingState: "CompleteCommit", producerEpoch: 1 });
    // A pending transition is looked at first, whatever the request.
    expect(endV5(tc, producer, true)).toEqual([ErrorCode.CONCURRENT_TRANSACTIONS, -1, -1]);
    expect(endV5(tc, { ...producer, producerEpoch: 1 }, false)).toEqual([ErrorCode.CONCURRENT_TRANSACTIONS, -1, -1]);
    expect(endV5(tc, { ...producer, producerId: 42 }, true)).toEqual([ErrorCode.CONCURRENT_TRANSACTIONS, -1, -1]);
  });
});

describe("a broker's AddPartitionsToTxn that adds (transaction version 2)", () => {
  it("moves CompleteCommit to Ongoing at the same epoch and refuses another epoch with PRODUCER_FENCED", () => {
    const tc = new TxnCoordinatorUnderTest(configAt(2));
    const producer = ongoingV2(tc);
    expect(endV5(tc, producer, true)).toEqual([ErrorCode.NONE, 0, 1]);
    const bumped = { producerId: 0, producerEpoch: 1 };
    expect(brokerAdd(tc, producer, [2])).toBe(ErrorCode.PRODUCER_FENCED);
    expect(brokerAdd(tc, { producerId: 0, producerEpoch: 2 }, [2])).toBe(ErrorCode.PRODUCER_FENCED);
    expect(brokerAdd(tc, { producerId: 7, producerEpoch: 1 }, [2])).toBe(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    tc.advanceMs(3000);
    expect(brokerAdd(tc, bumped, [2])).toBe(ErrorCode.NONE);
    expect(tc.transitions().at(-1)).toBe("CompleteCommit->Ongoing@1");
    expect(tc.transaction()).toMatchObject({
      state: "Ongoing",
      producerEpoch: 1,
      lastProducerEpoch: 0,
      partitions: ["out-2"],
      txnStartTimestamp: 3000,
      clientTransactionVersion: 2,
    });
    // Already in the transaction: nothing written.
    const records = tc.storage.length;
    expect(brokerAdd(tc, bumped, [2])).toBe(ErrorCode.NONE);
    expect(tc.storage.length).toBe(records);
  });

  it("looks at a pending transition first, where a client's AddPartitionsToTxn keeps the order before version 2", () => {
    const tc = new TxnCoordinatorUnderTest(configAt(2));
    tc.markerAnswer = () => null;
    const producer = ongoingV2(tc);
    expect(endV5(tc, producer, true)).toEqual([ErrorCode.NONE, 0, 1]);
    expect(brokerAdd(tc, { producerId: 9, producerEpoch: 1 }, [2])).toBe(ErrorCode.CONCURRENT_TRANSACTIONS);
    expect(brokerAdd(tc, { producerId: 0, producerEpoch: 1 }, [2])).toBe(ErrorCode.CONCURRENT_TRANSACTIONS);
    const clientAdd = tc.request<AddPartitionsToTxnResponse>(addPartitions({ producerId: 9, producerEpoch: 1 }, { out: [2] }));
    expect(clientAdd.results[0]?.results[0]?.partitionErrorCode).toBe(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
  });

  it("a verify-only transaction of the same request does not add, and a client's add stays transaction version 0", () => {
    const tc = new TxnCoordinatorUnderTest(configAt(2));
    const producer = producerOf(init(tc));
    expect(brokerAdd(tc, producer, [0], { verifyOnly: true })).toBe(ErrorCode.TRANSACTION_ABORTABLE);
    expect(tc.transaction().state).toBe("Empty");
    const response = tc.request<AddPartitionsToTxnResponse>(addPartitions(producer, { out: [0] }));
    expect(response.results[0]?.results[0]?.partitionErrorCode).toBe(0);
    expect(tc.transaction()).toMatchObject({ state: "Ongoing", clientTransactionVersion: 0 });
  });
});

describe("the coordinator's own aborts follow the cluster's transaction.version", () => {
  const cleanup = { "transaction.abort.timed.out.transaction.cleanup.interval.ms": 1000 };

  it("at 2 a timed-out transaction is aborted with a single bump: markers and PrepareAbort at epoch + 1, the last epoch kept", () => {
    const tc = new TxnCoordinatorUnderTest(configAt(2, cleanup));
    const producer = producerOf(init(tc, { transactionTimeoutMs: 3000 }));
    expect(brokerAdd(tc, producer, [2])).toBe(ErrorCode.NONE);
    tc.advanceMs(4000);
    expect(tc.transitions().slice(-3)).toEqual([
      "Ongoing->PrepareEpochFence@1",
      "PrepareEpochFence->PrepareAbort@1",
      "PrepareAbort->CompleteAbort@1",
    ]);
    expect(sentMarkers(tc)).toEqual(["v2:0@1:false:tv2:out-2"]);
    expect(tc.transaction()).toMatchObject({ state: "CompleteAbort", producerEpoch: 1, lastProducerEpoch: 0, clientTransactionVersion: 2 });
    // The client still at epoch 0 ends it with an abort and learns epoch 1; a commit is INVALID_TXN_STATE.
    expect(endV5(tc, producer, true)).toEqual([ErrorCode.INVALID_TXN_STATE, -1, -1]);
    expect(endV5(tc, producer, false)).toEqual([ErrorCode.NONE, 0, 1]);
  });

  it("at 0 the same transaction is aborted as before version 2: epoch + 1, the last epoch forgotten, markers of version 0", () => {
    const tc = new TxnCoordinatorUnderTest(configAt(0, cleanup));
    const producer = producerOf(init(tc, { transactionTimeoutMs: 3000 }));
    expect(brokerAdd(tc, producer, [2])).toBe(ErrorCode.NONE);
    tc.advanceMs(4000);
    expect(tc.transitions().slice(-3)).toEqual([
      "Ongoing->PrepareEpochFence@1",
      "PrepareEpochFence->PrepareAbort@1",
      "PrepareAbort->CompleteAbort@1",
    ]);
    expect(sentMarkers(tc)).toEqual(["v1:0@1:false:tv0:out-2"]);
    expect(tc.transaction()).toMatchObject({
      state: "CompleteAbort",
      producerEpoch: 1,
      lastProducerEpoch: -1,
      clientTransactionVersion: 0,
    });
  });

  it("at 2 an InitProducerId that fences an ongoing transaction aborts it once bumped; the retry bumps again", () => {
    const tc = new TxnCoordinatorUnderTest(configAt(2));
    tc.markerAnswer = () => null;
    const zombie = ongoingV2(tc);
    expect(init(tc).errorCode).toBe(ErrorCode.CONCURRENT_TRANSACTIONS);
    expect(tc.transitions().slice(-2)).toEqual(["Ongoing->PrepareEpochFence@1", "PrepareEpochFence->PrepareAbort@1"]);
    expect(sentMarkers(tc)).toEqual(["v2:0@1:false:tv2:out-0", "v2:0@1:false:tv2:out-1"]);
    expect(tc.transaction()).toMatchObject({
      state: "PrepareAbort",
      pendingState: "CompleteAbort",
      producerEpoch: 1,
      lastProducerEpoch: 0,
    });
    expect(endV5(tc, zombie, true)).toEqual([ErrorCode.CONCURRENT_TRANSACTIONS, -1, -1]);
    tc.markerAnswer = () => ErrorCode.NONE;
    tc.advanceMs(30_100);
    expect(tc.transaction().state).toBe("CompleteAbort");
    expect(producerOf(init(tc))).toEqual({ producerId: 0, producerEpoch: 2 });
  });
});

describe("the transaction log keeps the transaction version", () => {
  it("a coordinator that loads a PrepareCommit of version 2 sends its markers again at the bumped epoch, with version 2", () => {
    const tc = new TxnCoordinatorUnderTest(configAt(2));
    const producer = ongoingV2(tc);
    tc.markerAnswer = () => null;
    expect(endV5(tc, producer, true)).toEqual([ErrorCode.NONE, 0, 1]);
    tc.restart();
    expect(tc.transaction()).toMatchObject({ state: "PrepareCommit", producerEpoch: 1, clientTransactionVersion: 2 });
    const before = tc.markerRequests().length;
    tc.markerAnswer = () => ErrorCode.NONE;
    tc.pump();
    expect(
      tc
        .markerRequests()
        .slice(before)
        .flatMap(({ request }) => request.markers.map((m) => `v${request.apiVersion}:${m.producerEpoch}:tv${m.transactionVersion}`)),
    ).toEqual(["v2:1:tv2", "v2:1:tv2"]);
    expect(tc.transaction()).toMatchObject({ state: "CompleteCommit", producerEpoch: 1, clientTransactionVersion: 2 });
    // The client's retry after the failover is answered with the bumped epoch.
    expect(endV5(tc, producer, true)).toEqual([ErrorCode.NONE, 0, 1]);
  });

  it("at transaction.version 0 the records have no tagged fields: a load reads version 0", () => {
    const tc = new TxnCoordinatorUnderTest(configAt(0));
    const producer = ongoingV2(tc);
    tc.markerAnswer = () => null;
    expect(endV5(tc, producer, true)).toEqual([ErrorCode.NONE, 0, 1]);
    expect(tc.transaction().clientTransactionVersion).toBe(2);
    expect(transactionLogValues(tc).every((value) => !("clientTransactionVersion" in value))).toBe(true);
    tc.restart();
    expect(tc.transaction()).toMatchObject({ state: "PrepareCommit", producerEpoch: 1, clientTransactionVersion: 0 });
    tc.pump();
    expect(sentMarkers(tc).at(-1)).toBe("v1:0@1:true:tv0:out-1");
  });
});

describe("epoch exhaustion under transaction version 2", () => {
  /** A coordinator whose log holds the transactional id at producer id 0, epoch 32766, CompleteCommit (version 2). */
  function exhausted(): TxnCoordinatorUnderTest {
    const tc = new TxnCoordinatorUnderTest(configAt(2));
    producerOf(init(tc));
    const record: TransactionLogRecord = {
      type: "TransactionLog",
      key: { transactionalId: TRANSACTIONAL_ID },
      value: {
        producerId: 0,
        previousProducerId: 0,
        producerEpoch: 32766,
        lastProducerEpoch: 32765,
        transactionTimeoutMs: 60_000,
        transactionStatus: "CompleteCommit",
        transactionPartitions: [],
        transactionLastUpdateTimestampMs: 0,
        transactionStartTimestampMs: 0,
        clientTransactionVersion: 2,
      },
    };
    tc.storage.append(record);
    tc.restart();
    return tc;
  }

  it("the EndTxn that bumps past 32766 hands out a new producer id: PrepareCommit at (old, 32767), CompleteCommit at (new, 0)", () => {
    const tc = exhausted();
    const producer = { producerId: 0, producerEpoch: 32766 };
    expect(brokerAdd(tc, producer, [0])).toBe(ErrorCode.NONE);
    tc.markerAnswer = () => null;
    // The restart moved the coordinator to its next block of producer ids (1000).
    expect(endV5(tc, producer, true)).toEqual([ErrorCode.NONE, 1000, 0]);
    expect(tc.transaction()).toMatchObject({
      state: "PrepareCommit",
      producerId: 0,
      producerEpoch: 32767,
      lastProducerEpoch: 32766,
      nextProducerId: 1000,
    });
    expect(sentMarkers(tc)).toEqual(["v2:0@32767:true:tv2:out-0"]);
    // In the window the client already holds the new id, which is only pending: CONCURRENT_TRANSACTIONS.
    expect(brokerAdd(tc, { producerId: 1000, producerEpoch: 0 }, [1])).toBe(ErrorCode.CONCURRENT_TRANSACTIONS);
    expect(endV5(tc, { producerId: 1000, producerEpoch: 0 }, false)).toEqual([ErrorCode.CONCURRENT_TRANSACTIONS, -1, -1]);
    tc.markerAnswer = () => ErrorCode.NONE;
    tc.advanceMs(30_100);
    expect(tc.transaction()).toMatchObject({
      state: "CompleteCommit",
      producerId: 1000,
      lastProducerId: 0,
      producerEpoch: 0,
      lastProducerEpoch: 32766,
      nextProducerId: -1,
    });
    expect(tc.transitions().slice(-2)).toEqual(["Ongoing->PrepareCommit@32767", "PrepareCommit->CompleteCommit@0"]);
    // A retry with the old id and epoch gets the new ones; the new id goes on from epoch 0.
    expect(endV5(tc, producer, true)).toEqual([ErrorCode.NONE, 1000, 0]);
    expect(endV5(tc, producer, false)).toEqual([ErrorCode.INVALID_TXN_STATE, -1, -1]);
    expect(brokerAdd(tc, { producerId: 1000, producerEpoch: 0 }, [1])).toBe(ErrorCode.NONE);
    expect(endV5(tc, { producerId: 1000, producerEpoch: 0 }, true)).toEqual([ErrorCode.NONE, 1000, 1]);
  });

  it("an InitProducerId retried with the old id and epoch after the switch gets the new id (KIP-360's retry)", () => {
    const tc = exhausted();
    const producer = { producerId: 0, producerEpoch: 32766 };
    expect(endV5(tc, producer, false)).toEqual([ErrorCode.NONE, 1000, 0]);
    expect(tc.transitions().slice(-2)).toEqual(["CompleteCommit->PrepareAbort@32767", "PrepareAbort->CompleteAbort@0"]);
    expect(producerOf(init(tc, producer))).toEqual({ producerId: 1000, producerEpoch: 0 });
  });

  it("a client that went on at 32767 after a fence cannot end its transaction: UNKNOWN_SERVER_ERROR, as Kafka's overflowing bump", () => {
    const tc = new TxnCoordinatorUnderTest(configAt(2, { "transaction.abort.timed.out.transaction.cleanup.interval.ms": 1000 }));
    producerOf(init(tc));
    const record: TransactionLogRecord = {
      type: "TransactionLog",
      key: { transactionalId: TRANSACTIONAL_ID },
      value: {
        producerId: 0,
        previousProducerId: 0,
        producerEpoch: 32766,
        lastProducerEpoch: 32765,
        transactionTimeoutMs: 3000,
        transactionStatus: "Ongoing",
        transactionPartitions: [{ topic: "out", partitionIds: [0] }],
        transactionLastUpdateTimestampMs: 0,
        transactionStartTimestampMs: 0,
        clientTransactionVersion: 2,
      },
    };
    tc.storage.append(record);
    tc.restart();
    // The timeout fences at 32767 without a new producer id (Kafka 4.2's fence path).
    tc.advanceMs(4000);
    expect(tc.transaction()).toMatchObject({ state: "CompleteAbort", producerId: 0, producerEpoch: 32767, lastProducerEpoch: 32766 });
    expect(endV5(tc, { producerId: 0, producerEpoch: 32766 }, false)).toEqual([ErrorCode.NONE, 0, 32767]);
    const atMax = { producerId: 0, producerEpoch: 32767 };
    expect(brokerAdd(tc, atMax, [1])).toBe(ErrorCode.NONE);
    expect(endV5(tc, atMax, true)).toEqual([ErrorCode.UNKNOWN_SERVER_ERROR, -1, -1]);
    expect(tc.transaction()).toMatchObject({ state: "Ongoing", pendingState: null, producerEpoch: 32767 });
  });
});

describe("before transaction version 2 nothing changes", () => {
  it("EndTxn below v5 answers -1/-1, keeps the epoch, and its markers are WriteTxnMarkers v1 of version 0", () => {
    const tc = new TxnCoordinatorUnderTest(configAt(2));
    const producer = producerOf(init(tc));
    const added = tc.request<AddPartitionsToTxnResponse>(addPartitions(producer, { out: [0] }));
    expect(added.results[0]?.results[0]?.partitionErrorCode).toBe(0);
    const response = tc.request<EndTxnResponse>({ ...endTxn(producer, true), apiVersion: 4 });
    expect(response).toMatchObject({ errorCode: 0, producerId: -1, producerEpoch: -1 });
    expect(sentMarkers(tc)).toEqual(["v1:0@0:true:tv0:out-0"]);
    expect(tc.transaction()).toMatchObject({
      state: "CompleteCommit",
      producerEpoch: 0,
      lastProducerEpoch: -1,
      clientTransactionVersion: 0,
    });
    expect(transactionLogValues(tc).every((value) => !("clientTransactionVersion" in value))).toBe(true);
    // An abort of the committed transaction and an empty one are refused, as before.
    expect(tc.request<EndTxnResponse>({ ...endTxn(producer, false), apiVersion: 4 }).errorCode).toBe(ErrorCode.INVALID_TXN_STATE);
    expect(tc.request<EndTxnResponse>({ ...endTxn(producer, true), apiVersion: 4 }).errorCode).toBe(ErrorCode.NONE);
  });
});

describe("the transactionVersion config field", () => {
  const base = { txnCoordinators: ["t"], brokers: ["b"], groupCoordinators: ["c"], topics: [] };
  it.each([3, -1, 1.5, "2", null])("rejects %j with one line naming the field", (value) => {
    expect(() => createTransactionCoordinator("t", { ...base, transactionVersion: value })).toThrow(
      `transaction-coordinator t: config field 'transactionVersion' must be 0, 1 or 2 (transaction.version), got ${JSON.stringify(value)}`,
    );
  });

  it("accepts 0, 1 and 2, and defaults to 0", () => {
    for (const transactionVersion of [0, 1, 2])
      expect(() => createTransactionCoordinator("t", { ...base, transactionVersion })).not.toThrow();
    const tc = new TxnCoordinatorUnderTest(txnConfig({ broker: { "transaction.abort.timed.out.transaction.cleanup.interval.ms": 1000 } }));
    const producer = producerOf(init(tc, { transactionTimeoutMs: 2000 }));
    expect(brokerAdd(tc, producer, [0])).toBe(ErrorCode.NONE);
    tc.advanceMs(3000);
    expect(tc.transaction()).toMatchObject({ state: "CompleteAbort", producerEpoch: 1, lastProducerEpoch: -1 });
  });
});
