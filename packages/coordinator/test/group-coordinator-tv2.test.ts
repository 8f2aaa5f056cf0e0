import {
  ADD_PARTITIONS_TO_TXN_CONNECTION,
  type AddPartitionsToTxnBrokerRequest,
  addPartitionsToTxnBrokerResponse,
  type EndTxnResponse,
  ErrorCode,
  type InitProducerIdResponse,
  type JsonValue,
  type OffsetFetchResponse,
  partitionFor,
  type TxnOffsetCommitResponse,
  type WriteTxnMarkersResponse,
} from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { CoordinatorUnderTest, coordinatorConfig } from "./coordinator-test-kit.js";
import {
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
 * The group coordinator under transaction version 2: TxnOffsetCommit v5
 * adds the group's `__consumer_offsets` partition to the producer's
 * transaction (KIP-890 part 2), and markers of version 2 get Kafka 4.2's
 * strict epoch check (KIP-1228) with its KAFKA-19999 exception.
 */

/** The `__consumer_offsets` partitions of groups "g" and "h" (50 partitions). */
const G_PARTITION = partitionFor("g", 50);
const H_PARTITION = partitionFor("h", 50);
const VERIFICATION_OFF = { "transaction.partition.verification.enable": false };

/** A group coordinator that knows txn-coordinator-0. */
function gcConfig(broker: Record<string, JsonValue> = {}): JsonValue {
  return { ...(coordinatorConfig({ broker }) as Record<string, JsonValue>), txnCoordinators: [TXN_COORDINATOR] };
}

/** The group coordinator and a transaction coordinator at transaction.version 2 wired together, and a producer at epoch 0. */
function wired(broker: Record<string, JsonValue> = {}): {
  gc: CoordinatorUnderTest;
  tc: TxnCoordinatorUnderTest;
  producer: ProducerIdAndEpoch;
} {
  const gc = new CoordinatorUnderTest(gcConfig(broker));
  const tc = new TxnCoordinatorUnderTest({ ...(txnConfig() as Record<string, JsonValue>), transactionVersion: 2 }, gc);
  const init = tc.request<InitProducerIdResponse>(initProducerId());
  return { gc, tc, producer: { producerId: init.producerId, producerEpoch: init.producerEpoch } };
}

/** A producer-only TxnOffsetCommit (no group metadata) of T1-0 for `groupId`. */
function commit(producer: ProducerIdAndEpoch, offset: number, apiVersion: number, groupId = "g"): ReturnType<typeof txnOffsetCommit> {
  return { ...txnOffsetCommit({ producer, groupId, offsets: { 0: offset } }), apiVersion };
}

function errorOf(gc: CoordinatorUnderTest, request: { correlationId: number }): number | undefined {
  return gc.responseTo<TxnOffsetCommitResponse>(request.correlationId)?.topics[0]?.partitions[0]?.errorCode;
}

function addRequests(gc: CoordinatorUnderTest): AddPartitionsToTxnBrokerRequest[] {
  return gc.ctx.sent.flatMap(({ to, message }) =>
    to === TXN_COORDINATOR && message.type === "AddPartitionsToTxnBrokerRequest" ? [message] : [],
  );
}

function fetchOffset(gc: CoordinatorUnderTest, groupId = "g"): [number, number] {
  const request = offsetFetch(true, [0], groupId);
  gc.send("client", request);
  const partition = gc.responseTo<OffsetFetchResponse>(request.correlationId)?.groups[0]?.topics[0]?.partitions[0];
  return [partition?.committedOffset ?? Number.NaN, partition?.errorCode ?? Number.NaN];
}

function endV5(tc: TxnCoordinatorUnderTest, producer: ProducerIdAndEpoch, committed: boolean): EndTxnResponse {
  return tc.request<EndTxnResponse>({ ...endTxn(producer, committed), apiVersion: 5 });
}

/** The answer of a transaction coordinator to the latest add, every partition with `errorCode`. */
function answerLatest(gc: CoordinatorUnderTest, errorCode: number): void {
  const request = addRequests(gc).at(-1);
  if (request === undefined) throw new Error("no add sent");
  gc.send(
    TXN_COORDINATOR,
    addPartitionsToTxnBrokerResponse(request, () => () => errorCode),
  );
}

/** The errors of a WriteTxnMarkers to the group coordinator, one per partition. */
function markerErrors(gc: CoordinatorUnderTest, request: ReturnType<typeof writeTxnMarkers>): number[] {
  gc.send(TXN_COORDINATOR, request);
  const response = gc.responseTo<WriteTxnMarkersResponse>(request.correlationId);
  if (response === undefined) throw new Error("no WriteTxnMarkers response");
  return response.markers.flatMap((marker) => marker.topics.flatMap((topic) => topic.partitions.map((p) => p.errorCode)));
}

describe("TxnOffsetCommit v5 adds the offsets partition to the transaction (KIP-890 part 2)", () => {
  it("even with transaction.partition.verification.enable=false; the commit then goes through at the bumped epoch", () => {
    const { gc, tc, producer } = wired(VERIFICATION_OFF);
    const first = commit(producer, 42, 5);
    gc.send("producer", first);
    expect(errorOf(gc, first)).toBeUndefined();
    expect(addRequests(gc)).toEqual([
      expect.objectContaining({
        apiVersion: 5,
        transactions: [
          {
            transactionalId: TRANSACTIONAL_ID,
            producerId: 0,
            producerEpoch: 0,
            verifyOnly: false,
            topics: [{ name: "__consumer_offsets", partitions: [G_PARTITION] }],
          },
        ],
      }),
    ]);
    tc.pump();
    expect(errorOf(gc, first)).toBe(ErrorCode.NONE);
    expect(tc.transitions().at(-1)).toBe("Empty->Ongoing@0");
    expect(tc.transaction()).toMatchObject({ partitions: [`__consumer_offsets-${G_PARTITION}`], clientTransactionVersion: 2 });
    // The transaction is ongoing on the partition at this epoch: no second add.
    const second = commit(producer, 43, 5);
    gc.send("producer", second);
    expect(errorOf(gc, second)).toBe(ErrorCode.NONE);
    expect(addRequests(gc)).toHaveLength(1);

    expect(endV5(tc, producer, true)).toMatchObject({ errorCode: 0, producerId: 0, producerEpoch: 1 });
    expect(gc.ctx.observationsOf("gc.txn-marker")).toMatchObject([{ producerEpoch: 1, committed: true, errorCode: 0 }]);
    expect(fetchOffset(gc)).toEqual([43, 0]);

    // A late request at the old epoch is refused at once, without asking (KAFKA-18042's early check).
    const stale = commit(producer, 10, 5);
    gc.send("producer", stale);
    expect(errorOf(gc, stale)).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
    expect(addRequests(gc)).toHaveLength(1);
    // At the bumped epoch the next transaction starts with the add.
    const next = commit({ producerId: 0, producerEpoch: 1 }, 50, 5);
    gc.send("producer", next);
    tc.pump();
    expect(errorOf(gc, next)).toBe(ErrorCode.NONE);
    expect(addRequests(gc)).toHaveLength(2);
    expect(tc.transitions().at(-1)).toBe("CompleteCommit->Ongoing@1");
  });

  it("below v5 with verification off nothing is asked, as before (the offsets partition is not added)", () => {
    const { gc, tc, producer } = wired(VERIFICATION_OFF);
    const request = commit(producer, 42, 4);
    gc.send("producer", request);
    expect(errorOf(gc, request)).toBe(ErrorCode.NONE);
    tc.pump();
    expect(addRequests(gc)).toEqual([]);
    expect(tc.transaction()).toMatchObject({ state: "Empty", partitions: [] });
  });

  it("with verification on, a v4 verification's guard is checked by the write: a marker in between fails it", () => {
    const gc = new CoordinatorUnderTest(gcConfig());
    const producer = { producerId: 0, producerEpoch: 0 };
    const request = commit(producer, 5, 4);
    gc.send("producer", request);
    expect(addRequests(gc).map((r) => [r.apiVersion, r.transactions[0]?.verifyOnly])).toEqual([[4, true]]);
    gc.send(TXN_COORDINATOR, writeTxnMarkers([offsetsMarker(producer, false, [G_PARTITION], 0, 0)]));
    answerLatest(gc, ErrorCode.NONE);
    expect(errorOf(gc, request)).toBe(ErrorCode.INVALID_TXN_STATE);
    // Without the marker in between the verification lets the write through.
    const again = commit(producer, 6, 4);
    gc.send("producer", again);
    answerLatest(gc, ErrorCode.NONE);
    expect(errorOf(gc, again)).toBe(ErrorCode.NONE);
  });

  it("a v5 add outlives the marker that ends the previous transaction at the add's epoch (isV2NextTransactionStarted)", () => {
    const gc = new CoordinatorUnderTest(gcConfig());
    const previous = { producerId: 0, producerEpoch: 0 };
    const first = commit(previous, 5, 5);
    gc.send("producer", first);
    answerLatest(gc, ErrorCode.NONE);
    expect(errorOf(gc, first)).toBe(ErrorCode.NONE);
    // The next transaction, at the bumped epoch 1, adds the partition while the previous one's COMMIT (at 1) is on its way.
    const next = { producerId: 0, producerEpoch: 1 };
    const request = commit(next, 9, 5);
    gc.send("producer", request);
    expect(addRequests(gc).map((r) => [r.transactions[0]?.producerEpoch, r.transactions[0]?.verifyOnly])).toEqual([
      [0, false],
      [1, false],
    ]);
    expect(markerErrors(gc, writeTxnMarkers([offsetsMarker(next, true, [G_PARTITION], 0, 2)]))).toEqual([ErrorCode.NONE]);
    answerLatest(gc, ErrorCode.NONE);
    expect(errorOf(gc, request)).toBe(ErrorCode.NONE);
    // Its offset is pending in the new transaction (a stable fetch is refused), then committed by that one's marker.
    expect(fetchOffset(gc)).toEqual([-1, ErrorCode.UNSTABLE_OFFSET_COMMIT]);
    expect(markerErrors(gc, writeTxnMarkers([offsetsMarker({ producerId: 0, producerEpoch: 2 }, true, [G_PARTITION], 0, 2)]))).toEqual([
      ErrorCode.NONE,
    ]);
    expect(fetchOffset(gc)).toEqual([9, ErrorCode.NONE]);
  });

  it.each<[string, number, number]>([
    ["CONCURRENT_TRANSACTIONS passes (no retry here)", ErrorCode.CONCURRENT_TRANSACTIONS, ErrorCode.CONCURRENT_TRANSACTIONS],
    ["PRODUCER_FENCED becomes INVALID_PRODUCER_EPOCH", ErrorCode.PRODUCER_FENCED, ErrorCode.INVALID_PRODUCER_EPOCH],
    ["TRANSACTION_ABORTABLE passes", ErrorCode.TRANSACTION_ABORTABLE, ErrorCode.TRANSACTION_ABORTABLE],
    ["INVALID_PRODUCER_ID_MAPPING passes", ErrorCode.INVALID_PRODUCER_ID_MAPPING, ErrorCode.INVALID_PRODUCER_ID_MAPPING],
    ["NOT_ENOUGH_REPLICAS becomes COORDINATOR_NOT_AVAILABLE", ErrorCode.NOT_ENOUGH_REPLICAS, ErrorCode.COORDINATOR_NOT_AVAILABLE],
  ])("maps the coordinator's answer as Kafka 4.2's group coordinator: %s", (_name, answer, expected) => {
    const gc = new CoordinatorUnderTest(gcConfig(VERIFICATION_OFF));
    const request = commit({ producerId: 0, producerEpoch: 0 }, 5, 5);
    gc.send("producer", request);
    answerLatest(gc, answer);
    expect(errorOf(gc, request)).toBe(expected);
    gc.advanceMs(1000);
    expect(addRequests(gc)).toHaveLength(1);
    expect(gc.ctx.observationsOf("gc.txn-offset").map((o) => `${o.outcome}:${o.errorCode}`)).toEqual([`rejected:${expected}`]);
  });

  it("a reset connection is COORDINATOR_LOAD_IN_PROGRESS", () => {
    const gc = new CoordinatorUnderTest(gcConfig(VERIFICATION_OFF));
    const request = commit({ producerId: 0, producerEpoch: 0 }, 5, 5);
    gc.send("producer", request);
    gc.send(TXN_COORDINATOR, { type: "SimDisconnect", reason: "reset", connection: ADD_PARTITIONS_TO_TXN_CONNECTION });
    expect(errorOf(gc, request)).toBe(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
  });
});

describe("markers of transaction version 2 on __consumer_offsets (KIP-1228, KAFKA-19999)", () => {
  /** A group coordinator without transaction coordinators (writes go unverified) where producer 0 has offsets pending at epoch 0. */
  function pendingAtEpoch0(): { gc: CoordinatorUnderTest; producer: ProducerIdAndEpoch } {
    const gc = new CoordinatorUnderTest(coordinatorConfig());
    const producer = { producerId: 0, producerEpoch: 0 };
    const request = commit(producer, 7, 5);
    gc.send("producer", request);
    expect(errorOf(gc, request)).toBe(ErrorCode.NONE);
    return { gc, producer };
  }

  it("must be newer than the producer's epoch on the partition; version 0 markers keep the old check", () => {
    const { gc, producer } = pendingAtEpoch0();
    // At the producer's epoch with its transaction open: refused under version 2, accepted under version 0.
    expect(markerErrors(gc, writeTxnMarkers([offsetsMarker(producer, true, [G_PARTITION], 0, 2)]))).toEqual([
      ErrorCode.INVALID_PRODUCER_EPOCH,
    ]);
    expect(fetchOffset(gc)).toEqual([-1, ErrorCode.UNSTABLE_OFFSET_COMMIT]);
    expect(markerErrors(gc, writeTxnMarkers([offsetsMarker(producer, true, [G_PARTITION], 0, 0)]))).toEqual([ErrorCode.NONE]);
    expect(fetchOffset(gc)).toEqual([7, 0]);
  });

  it("the bumped marker is written; a repeat of it with no transaction open is written again (KAFKA-19999); an older one is refused", () => {
    const { gc, producer } = pendingAtEpoch0();
    const bumped = { producerId: 0, producerEpoch: 1 };
    expect(markerErrors(gc, writeTxnMarkers([offsetsMarker(bumped, true, [G_PARTITION], 0, 2)]))).toEqual([ErrorCode.NONE]);
    expect(fetchOffset(gc)).toEqual([7, 0]);
    const records = gc.storage.length;
    expect(markerErrors(gc, writeTxnMarkers([offsetsMarker(bumped, true, [G_PARTITION], 0, 2)]))).toEqual([ErrorCode.NONE]);
    expect(gc.storage.length).toBe(records + 1);
    expect(markerErrors(gc, writeTxnMarkers([offsetsMarker(producer, true, [G_PARTITION], 0, 2)]))).toEqual([
      ErrorCode.INVALID_PRODUCER_EPOCH,
    ]);
    expect(markerErrors(gc, writeTxnMarkers([offsetsMarker(producer, true, [G_PARTITION], 0, 0)]))).toEqual([
      ErrorCode.INVALID_PRODUCER_EPOCH,
    ]);
    // A new transaction at epoch 1: a version 2 marker at epoch 1 is a stale repeat now, refused; at 2 it ends it.
    const next = commit(bumped, 8, 5);
    gc.send("producer", next);
    expect(errorOf(gc, next)).toBe(ErrorCode.NONE);
    expect(markerErrors(gc, writeTxnMarkers([offsetsMarker(bumped, true, [G_PARTITION], 0, 2)]))).toEqual([
      ErrorCode.INVALID_PRODUCER_EPOCH,
    ]);
    expect(fetchOffset(gc)).toEqual([-1, ErrorCode.UNSTABLE_OFFSET_COMMIT]);
    expect(markerErrors(gc, writeTxnMarkers([offsetsMarker({ producerId: 0, producerEpoch: 2 }, true, [G_PARTITION], 0, 2)]))).toEqual([
      ErrorCode.NONE,
    ]);
    expect(fetchOffset(gc)).toEqual([8, 0]);
    expect(gc.ctx.observationsOf("gc.txn-marker").map((o) => `${o.producerEpoch}:${o.errorCode}`)).toEqual([
      "1:0",
      "1:0",
      `0:${ErrorCode.INVALID_PRODUCER_EPOCH}`,
      `0:${ErrorCode.INVALID_PRODUCER_EPOCH}`,
      `1:${ErrorCode.INVALID_PRODUCER_EPOCH}`,
      "2:0",
    ]);
  });

  it("still refuses an older transaction coordinator epoch", () => {
    const { gc } = pendingAtEpoch0();
    expect(markerErrors(gc, writeTxnMarkers([offsetsMarker({ producerId: 0, producerEpoch: 1 }, true, [G_PARTITION], 3, 2)]))).toEqual([
      ErrorCode.NONE,
    ]);
    expect(markerErrors(gc, writeTxnMarkers([offsetsMarker({ producerId: 0, producerEpoch: 2 }, true, [G_PARTITION], 2, 2)]))).toEqual([
      ErrorCode.TRANSACTION_COORDINATOR_FENCED,
    ]);
  });

  it("each partition is checked against its own epoch: one transaction's markers for two groups' partitions are both written", () => {
    const { gc, tc, producer } = wired(VERIFICATION_OFF);
    expect(G_PARTITION).not.toBe(H_PARTITION);
    for (const [groupId, offset] of [
      ["g", 11],
      ["h", 22],
    ] as const) {
      const request = commit(producer, offset, 5, groupId);
      gc.send("producer", request);
      tc.pump();
      expect(errorOf(gc, request)).toBe(ErrorCode.NONE);
    }
    expect(endV5(tc, producer, true)).toMatchObject({ errorCode: 0, producerEpoch: 1 });
    expect(
      gc.ctx
        .observationsOf("gc.txn-marker")
        .map((o) => `${o.partition}@${o.producerEpoch}:${o.errorCode}`)
        .sort(),
    ).toEqual([`${G_PARTITION}@1:0`, `${H_PARTITION}@1:0`].sort());
    expect(fetchOffset(gc, "g")).toEqual([11, 0]);
    expect(fetchOffset(gc, "h")).toEqual([22, 0]);
    expect(tc.transaction().state).toBe("CompleteCommit");
  });

  it("the partition's epochs come back with a restart", () => {
    const { gc, producer } = pendingAtEpoch0();
    expect(markerErrors(gc, writeTxnMarkers([offsetsMarker({ producerId: 0, producerEpoch: 1 }, true, [G_PARTITION], 0, 2)]))).toEqual([
      ErrorCode.NONE,
    ]);
    gc.restart();
    expect(markerErrors(gc, writeTxnMarkers([offsetsMarker(producer, false, [G_PARTITION], 0, 2)]))).toEqual([
      ErrorCode.INVALID_PRODUCER_EPOCH,
    ]);
    expect(markerErrors(gc, writeTxnMarkers([offsetsMarker({ producerId: 0, producerEpoch: 1 }, true, [G_PARTITION], 0, 2)]))).toEqual([
      ErrorCode.NONE,
    ]);
  });
});
