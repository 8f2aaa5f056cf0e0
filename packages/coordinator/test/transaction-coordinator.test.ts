import {
  type AddOffsetsToTxnResponse,
  type AddPartitionsToTxnResponse,
  CoordinatorKeyType,
  type EndTxnResponse,
  ErrorCode,
  type FindCoordinatorResponse,
  type InitProducerIdResponse,
  type JsonValue,
  type OffsetFetchResponse,
  partitionFor,
  type TxnOffsetCommitResponse,
} from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { createTransactionCoordinator, TRANSACTION_COORDINATOR_KIND } from "../src/index.js";
import { CoordinatorUnderTest, coordinatorConfig, FakeDurableLog, SimulatedMember } from "./coordinator-test-kit.js";
import {
  addOffsets,
  addPartitions,
  endTxn,
  initProducerId,
  offsetFetch,
  type ProducerIdAndEpoch,
  TRANSACTIONAL_ID,
  TxnCoordinatorUnderTest,
  txnConfig,
  txnOffsetCommit,
} from "./transaction-test-kit.js";

/** The `__consumer_offsets` partition of group "g" (50 partitions). */
const G_PARTITION = partitionFor("g", 50);

function init(tc: TxnCoordinatorUnderTest, fields: Parameters<typeof initProducerId>[0] = {}): InitProducerIdResponse {
  return tc.request<InitProducerIdResponse>(initProducerId(fields));
}

function producerOf(response: InitProducerIdResponse): ProducerIdAndEpoch {
  expect(response.errorCode).toBe(0);
  return { producerId: response.producerId, producerEpoch: response.producerEpoch };
}

function addErrors(tc: TxnCoordinatorUnderTest, request: ReturnType<typeof addPartitions>): number[] {
  const response = tc.request<AddPartitionsToTxnResponse>(request);
  expect(response.errorCode).toBe(0);
  return response.results.flatMap((topic) => topic.results.map((result) => result.partitionErrorCode));
}

function end(tc: TxnCoordinatorUnderTest, producer: ProducerIdAndEpoch, committed: boolean): number {
  return tc.request<EndTxnResponse>(endTxn(producer, committed)).errorCode;
}

/** The txn.marker observations as "topic-partition:committed:errorCode". */
function markers(tc: TxnCoordinatorUnderTest): string[] {
  return tc.observations("txn.marker").map((o) => `${o.topic}-${o.partition}:${o.committed}:${o.errorCode}`);
}

function fetchOffset(gc: CoordinatorUnderTest, requireStable: boolean): [number, number] {
  const request = offsetFetch(requireStable);
  gc.send("client", request);
  const partition = gc.responseTo<OffsetFetchResponse>(request.correlationId)?.groups[0]?.topics[0]?.partitions[0];
  return [partition?.committedOffset ?? Number.NaN, partition?.errorCode ?? Number.NaN];
}

/** A group coordinator and a transaction coordinator wired together, with a consumer-group member m1 at epoch 1. */
function consumeProcessProduce(): { gc: CoordinatorUnderTest; tc: TxnCoordinatorUnderTest; producer: ProducerIdAndEpoch } {
  const gc = new CoordinatorUnderTest(coordinatorConfig());
  expect(new SimulatedMember("m1").heartbeat(gc).memberEpoch).toBe(1);
  const tc = new TxnCoordinatorUnderTest(txnConfig(), gc);
  const producer = producerOf(init(tc));
  expect(addErrors(tc, addPartitions(producer, { out: [0, 1] }))).toEqual([0, 0]);
  expect(tc.request<AddOffsetsToTxnResponse>(addOffsets(producer)).errorCode).toBe(0);
  const commit = txnOffsetCommit({ producer, memberId: "m1", generationId: 1, offsets: { 0: 42 } });
  gc.send("producer", commit);
  expect(gc.responseTo<TxnOffsetCommitResponse>(commit.correlationId)?.topics[0]?.partitions[0]?.errorCode).toBe(0);
  return { gc, tc, producer };
}

describe("the transaction state machine", () => {
  it("commits: PrepareCommit, markers to the data leaders and to the group coordinator, CompleteCommit", () => {
    const { gc, tc, producer } = consumeProcessProduce();
    expect(producer).toEqual({ producerId: 0, producerEpoch: 0 });
    expect(fetchOffset(gc, true)).toEqual([-1, ErrorCode.UNSTABLE_OFFSET_COMMIT]);
    expect(end(tc, producer, true)).toBe(0);

    expect(tc.transitions()).toEqual([
      "Empty->Empty@0",
      "Empty->Ongoing@0",
      "Ongoing->Ongoing@0",
      "Ongoing->PrepareCommit@0",
      "PrepareCommit->CompleteCommit@0",
    ]);
    expect(tc.observations("txn.state")[3]).toEqual({
      type: "txn.state",
      transactionalId: TRANSACTIONAL_ID,
      producerId: 0,
      producerEpoch: 0,
      from: "Ongoing",
      to: "PrepareCommit",
      partitions: { __consumer_offsets: [G_PARTITION], out: [0, 1] },
    });
    // Leaders came from a Metadata request; each leader and the group coordinator got its marker.
    expect(tc.brokerRequests.map(({ to, message }) => `${to}:${message.type}`)).toEqual([
      "broker-0:MetadataRequest",
      "broker-0:WriteTxnMarkersRequest",
      "broker-1:WriteTxnMarkersRequest",
    ]);
    expect(tc.markerRequests()[0]?.request.markers).toEqual([
      {
        producerId: 0,
        producerEpoch: 0,
        transactionResult: true,
        topics: [{ name: "out", partitionIndexes: [0] }],
        coordinatorEpoch: 0,
        transactionVersion: 0,
      },
    ]);
    expect(markers(tc).sort()).toEqual([`__consumer_offsets-${G_PARTITION}:true:0`, "out-0:true:0", "out-1:true:0"]);
    // The group coordinator materialised the offset: visible, stable, reported once as a transactional commit.
    expect(fetchOffset(gc, true)).toEqual([42, 0]);
    expect(gc.ctx.committedPartitions()).toEqual([
      { groupId: "g", memberId: "m1", epoch: 1, topic: "T1", partition: 0, offset: 42, errorCode: 0, transactional: true },
    ]);
    expect(tc.transaction()).toMatchObject({ state: "CompleteCommit", pendingState: null, partitions: [] });
    // A retried EndTxn of the completed commit is fine; an abort of it is not.
    expect(end(tc, producer, true)).toBe(0);
    expect(end(tc, producer, false)).toBe(ErrorCode.INVALID_TXN_STATE);
  });

  it("aborts: PrepareAbort, ABORT markers everywhere, the pending offsets dropped", () => {
    const { gc, tc, producer } = consumeProcessProduce();
    expect(end(tc, producer, false)).toBe(0);
    expect(tc.transitions().slice(-2)).toEqual(["Ongoing->PrepareAbort@0", "PrepareAbort->CompleteAbort@0"]);
    expect(markers(tc).sort()).toEqual([`__consumer_offsets-${G_PARTITION}:false:0`, "out-0:false:0", "out-1:false:0"]);
    expect(fetchOffset(gc, true)).toEqual([-1, 0]);
    expect(gc.ctx.observationsOf("gc.offset-commit")).toEqual([]);
    expect(gc.ctx.observationsOf("gc.txn-offset").map((o) => o.outcome)).toEqual(["pending", "aborted"]);
    // The next transaction starts from CompleteAbort.
    expect(addErrors(tc, addPartitions(producer, { out: [3] }))).toEqual([0]);
    expect(tc.transitions().at(-1)).toBe("CompleteAbort->Ongoing@0");
  });

  it("answers EndTxn and AddPartitionsToTxn by state, producer id and epoch", () => {
    const tc = new TxnCoordinatorUnderTest();
    tc.markerAnswer = () => null; // the brokers never answer: the markers stay pending
    expect(end(tc, { producerId: 0, producerEpoch: 0 }, true)).toBe(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    const producer = producerOf(init(tc));
    expect(end(tc, producer, true)).toBe(ErrorCode.INVALID_TXN_STATE);
    expect(end(tc, { ...producer, producerId: 99 }, true)).toBe(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    expect(addErrors(tc, addPartitions({ ...producer, producerId: 99 }, { out: [0] }))).toEqual([ErrorCode.INVALID_PRODUCER_ID_MAPPING]);
    // Unknown topics fail alone; the other partitions are not attempted.
    expect(addErrors(tc, addPartitions(producer, { out: [0, 9], nope: [0] }))).toEqual([
      ErrorCode.OPERATION_NOT_ATTEMPTED,
      ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
      ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
    ]);
    expect(addErrors(tc, addPartitions(producer, { out: [2] }))).toEqual([0]);
    // Adding what is already in the transaction writes nothing.
    const records = tc.storage.length;
    expect(addErrors(tc, addPartitions(producer, { out: [2] }))).toEqual([0]);
    expect(tc.storage.length).toBe(records);
    expect(end(tc, producer, true)).toBe(0);
    expect(tc.transaction()).toMatchObject({ state: "PrepareCommit", pendingState: "CompleteCommit" });
    expect(end(tc, producer, true)).toBe(ErrorCode.CONCURRENT_TRANSACTIONS);
    expect(end(tc, producer, false)).toBe(ErrorCode.CONCURRENT_TRANSACTIONS);
    expect(addErrors(tc, addPartitions(producer, { out: [1] }))).toEqual([ErrorCode.CONCURRENT_TRANSACTIONS]);
    expect(init(tc).errorCode).toBe(ErrorCode.CONCURRENT_TRANSACTIONS);
  });

  it("answers AddOffsetsToTxn like AddPartitionsToTxn for the group's __consumer_offsets partition", () => {
    const tc = new TxnCoordinatorUnderTest();
    tc.markerAnswer = () => null; // the brokers never answer: the markers stay pending
    const addOffsetsError = (p: ProducerIdAndEpoch, groupId = "g") => tc.request<AddOffsetsToTxnResponse>(addOffsets(p, groupId)).errorCode;
    expect(addOffsetsError({ producerId: 0, producerEpoch: 0 })).toBe(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    const producer = producerOf(init(tc));
    expect(addOffsetsError({ ...producer, producerId: 99 })).toBe(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    expect(addOffsetsError({ ...producer, producerEpoch: producer.producerEpoch + 1 })).toBe(ErrorCode.PRODUCER_FENCED);
    // It starts the transaction on its own; adding the same group again writes nothing.
    expect(addOffsetsError(producer)).toBe(0);
    expect(tc.transaction()).toMatchObject({ state: "Ongoing", partitions: [`__consumer_offsets-${G_PARTITION}`] });
    const records = tc.storage.length;
    expect(addOffsetsError(producer)).toBe(0);
    expect(tc.storage.length).toBe(records);
    expect(end(tc, producer, true)).toBe(0);
    expect(addOffsetsError(producer)).toBe(ErrorCode.CONCURRENT_TRANSACTIONS);
  });
});

describe("producer fencing", () => {
  it("a second InitProducerId bumps the epoch: the old producer gets PRODUCER_FENCED", () => {
    const gc = new CoordinatorUnderTest(coordinatorConfig());
    const tc = new TxnCoordinatorUnderTest(txnConfig(), gc);
    const zombie = producerOf(init(tc));
    const fresh = producerOf(init(tc));
    expect(fresh).toEqual({ producerId: zombie.producerId, producerEpoch: 1 });
    expect(addErrors(tc, addPartitions(zombie, { out: [0] }))).toEqual([ErrorCode.PRODUCER_FENCED]);
    expect(tc.request<AddOffsetsToTxnResponse>(addOffsets(zombie)).errorCode).toBe(ErrorCode.PRODUCER_FENCED);
    expect(end(tc, zombie, true)).toBe(ErrorCode.PRODUCER_FENCED);
    // The new producer commits offsets; once its marker has gone through, the zombie's TxnOffsetCommit is INVALID_PRODUCER_EPOCH.
    expect(tc.request<AddOffsetsToTxnResponse>(addOffsets(fresh)).errorCode).toBe(0);
    gc.send("producer", txnOffsetCommit({ producer: fresh, offsets: { 0: 5 } }));
    expect(end(tc, fresh, true)).toBe(0);
    const late = txnOffsetCommit({ producer: zombie, offsets: { 0: 1 } });
    gc.send("producer", late);
    expect(gc.responseTo<TxnOffsetCommitResponse>(late.correlationId)?.topics[0]?.partitions[0]?.errorCode).toBe(
      ErrorCode.INVALID_PRODUCER_EPOCH,
    );
    expect(fetchOffset(gc, true)).toEqual([5, 0]);
    expect(tc.transitions()).toEqual([
      "Empty->Empty@0",
      "Empty->Empty@1",
      "Empty->Ongoing@1",
      "Ongoing->PrepareCommit@1",
      "PrepareCommit->CompleteCommit@1",
    ]);
  });

  it("continues a producer's own epoch (KIP-360) and fences an unknown one", () => {
    const tc = new TxnCoordinatorUnderTest();
    const first = producerOf(init(tc));
    const bumped = producerOf(init(tc, { producerId: first.producerId, producerEpoch: 0 }));
    expect(bumped.producerEpoch).toBe(1);
    expect(tc.transaction()).toMatchObject({ producerEpoch: 1, lastProducerEpoch: 0 });
    // A retry of that call (its answer lost) gets the same epoch again.
    expect(producerOf(init(tc, { producerId: first.producerId, producerEpoch: 0 }))).toEqual(bumped);
    expect(init(tc, { producerId: first.producerId, producerEpoch: 7 }).errorCode).toBe(ErrorCode.PRODUCER_FENCED);
    expect(init(tc, { producerId: 4242, producerEpoch: 1 }).errorCode).toBe(ErrorCode.PRODUCER_FENCED);
    expect(init(tc, { producerId: first.producerId, producerEpoch: -1 }).errorCode).toBe(ErrorCode.INVALID_REQUEST);
  });

  it("an InitProducerId during a transaction aborts it at a bumped epoch; CONCURRENT_TRANSACTIONS until the markers are written", () => {
    const tc = new TxnCoordinatorUnderTest();
    const zombie = producerOf(init(tc));
    expect(addErrors(tc, addPartitions(zombie, { out: [0] }))).toEqual([0]);
    tc.markerAnswer = () => null;
    expect(init(tc).errorCode).toBe(ErrorCode.CONCURRENT_TRANSACTIONS);
    expect(tc.transitions().slice(-2)).toEqual(["Ongoing->PrepareEpochFence@1", "PrepareEpochFence->PrepareAbort@1"]);
    expect(tc.markerRequests().at(-1)?.request.markers[0]).toMatchObject({ producerEpoch: 1, transactionResult: false });
    expect(init(tc).errorCode).toBe(ErrorCode.CONCURRENT_TRANSACTIONS);
    expect(end(tc, zombie, true)).toBe(ErrorCode.PRODUCER_FENCED);
    // The broker answers at last (after request.timeout.ms the marker is sent again).
    tc.markerAnswer = () => ErrorCode.NONE;
    tc.advanceMs(30_100);
    expect(tc.transitions().at(-1)).toBe("PrepareAbort->CompleteAbort@1");
    expect(markers(tc)).toEqual([`out-0:false:${ErrorCode.REQUEST_TIMED_OUT}`, "out-0:false:0"]);
    expect(producerOf(init(tc)).producerEpoch).toBe(2);
  });
});

describe("transaction timeouts", () => {
  it("abort an Ongoing transaction past transaction.timeout.ms with the epoch bumped", () => {
    const tc = new TxnCoordinatorUnderTest(txnConfig({ broker: { "transaction.abort.timed.out.transaction.cleanup.interval.ms": 1000 } }));
    expect(init(tc, { transactionTimeoutMs: 900_001 }).errorCode).toBe(ErrorCode.INVALID_TRANSACTION_TIMEOUT);
    expect(init(tc, { transactionTimeoutMs: 0 }).errorCode).toBe(ErrorCode.INVALID_TRANSACTION_TIMEOUT);
    const producer = producerOf(init(tc, { transactionTimeoutMs: 5000 }));
    tc.advanceMs(500);
    expect(addErrors(tc, addPartitions(producer, { out: [2] }))).toEqual([0]);
    tc.advanceMs(5000);
    expect(tc.transaction().state).toBe("Ongoing");
    tc.advanceMs(1000);
    expect(tc.transitions().slice(-3)).toEqual([
      "Ongoing->PrepareEpochFence@1",
      "PrepareEpochFence->PrepareAbort@1",
      "PrepareAbort->CompleteAbort@1",
    ]);
    expect(markers(tc)).toEqual(["out-2:false:0"]);
    // The producer finds out on its next call.
    expect(end(tc, producer, true)).toBe(ErrorCode.PRODUCER_FENCED);
    expect(addErrors(tc, addPartitions(producer, { out: [2] }))).toEqual([ErrorCode.PRODUCER_FENCED]);
    expect(producerOf(init(tc)).producerEpoch).toBe(2);
  });
});

describe("markers", () => {
  it("follow leadership: NOT_LEADER_OR_FOLLOWER and resets are retried with fresh metadata", () => {
    const tc = new TxnCoordinatorUnderTest();
    const producer = producerOf(init(tc));
    expect(addErrors(tc, addPartitions(producer, { out: [0] }))).toEqual([0]);
    expect(end(tc, producer, true)).toBe(0);
    expect(tc.leaders.size).toBe(0);
    // Partition 0 moves to broker-1; broker-0 is asked first (the cached leader) and refuses.
    tc.leaders.set(0, "broker-1");
    expect(addErrors(tc, addPartitions(producer, { out: [0] }))).toEqual([0]);
    expect(end(tc, producer, true)).toBe(0);
    expect(tc.transaction().state).toBe("PrepareCommit");
    tc.advanceMs(100);
    expect(tc.transaction().state).toBe("CompleteCommit");
    // broker-1 is down: the reset fails the request, which goes again once it is back.
    tc.downBrokers.add("broker-1");
    expect(addErrors(tc, addPartitions(producer, { out: [0] }))).toEqual([0]);
    expect(end(tc, producer, false)).toBe(0);
    tc.advanceMs(250);
    expect(tc.transaction().state).toBe("PrepareAbort");
    tc.downBrokers.delete("broker-1");
    tc.advanceMs(250);
    expect(tc.transaction().state).toBe("CompleteAbort");
    const codes = markers(tc);
    expect(codes.slice(0, 3)).toEqual(["out-0:true:0", `out-0:true:${ErrorCode.NOT_LEADER_OR_FOLLOWER}`, "out-0:true:0"]);
    expect(codes.at(-1)).toBe("out-0:false:0");
    expect(codes.slice(3, -1).every((code) => code === `out-0:false:${ErrorCode.NETWORK_EXCEPTION}`)).toBe(true);
    expect(tc.brokerRequests.filter(({ message }) => message.type === "MetadataRequest").length).toBeGreaterThanOrEqual(2);
  });

  it("go to the group coordinator hosting the group's __consumer_offsets partition", () => {
    const groupCoordinators = ["coordinator-0", "coordinator-1", "coordinator-2"];
    const tc = new TxnCoordinatorUnderTest(txnConfig({ groupCoordinators }));
    const producer = producerOf(init(tc));
    expect(tc.request<AddOffsetsToTxnResponse>(addOffsets(producer, "g")).errorCode).toBe(0);
    expect(tc.request<AddOffsetsToTxnResponse>(addOffsets(producer, "other-group")).errorCode).toBe(0);
    expect(end(tc, producer, true)).toBe(0);
    const sent = tc.ctx.sent.filter(({ message }) => message.type === "WriteTxnMarkersRequest");
    const expected = [G_PARTITION, partitionFor("other-group", 50)].map((p) => [groupCoordinators[p % 3], p]);
    expect(
      sent.flatMap(({ to, message }) =>
        message.type === "WriteTxnMarkersRequest"
          ? message.markers.flatMap((m) => m.topics.flatMap((t) => t.partitionIndexes.map((p) => [to, p])))
          : [],
      ),
    ).toEqual(expect.arrayContaining(expected));
    expect(sent).toHaveLength(new Set(expected.map(([to]) => to)).size);
    // Nobody answers (no group coordinator here): the transaction waits in PrepareCommit.
    expect(tc.transaction()).toMatchObject({ state: "PrepareCommit", pendingState: "CompleteCommit" });
  });

  it("a coordinator that crashed in PrepareCommit loads, then sends the markers again with its new epoch", () => {
    const gc = new CoordinatorUnderTest(coordinatorConfig());
    const tc = new TxnCoordinatorUnderTest(txnConfig({ loadMs: 50 }), gc);
    tc.advanceMs(50);
    const producer = producerOf(init(tc));
    expect(addErrors(tc, addPartitions(producer, { out: [0, 1] }))).toEqual([0, 0]);
    expect(tc.request<AddOffsetsToTxnResponse>(addOffsets(producer)).errorCode).toBe(0);
    gc.send("producer", txnOffsetCommit({ producer, offsets: { 0: 77 } }));
    // The data brokers do not answer, and the group coordinator's answer is lost with the crash.
    tc.markerAnswer = () => null;
    const groupCoordinator = tc.groupCoordinator;
    Object.assign(tc, { groupCoordinator: null });
    expect(end(tc, producer, true)).toBe(0);
    expect(tc.transaction()).toMatchObject({ state: "PrepareCommit", pendingState: "CompleteCommit" });

    tc.restart();
    Object.assign(tc, { groupCoordinator });
    const sentBefore = tc.markerRequests().length;
    expect(tc.snapshot()).toMatchObject({ loading: true, coordinatorEpoch: 1 });
    expect(init(tc).errorCode).toBe(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
    expect(end(tc, producer, true)).toBe(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
    tc.markerAnswer = () => ErrorCode.NONE;
    tc.advanceMs(50);
    expect(tc.observations("txn.loaded")).toEqual([
      { type: "txn.loaded", records: expect.any(Number), transactions: 1, coordinatorEpoch: 1 },
    ]);
    expect(tc.transitions()).toEqual(["PrepareCommit->CompleteCommit@0"]);
    const resent = tc.markerRequests().slice(sentBefore);
    expect(resent.map(({ to }) => to).sort()).toEqual(["broker-0", "broker-1"]);
    expect(resent.every(({ request }) => request.markers.every((m) => m.coordinatorEpoch === 1))).toBe(true);
    expect(gc.ctx.observationsOf("gc.txn-marker")).toMatchObject([{ coordinatorEpoch: 1, committed: true, errorCode: 0 }]);
    expect(markers(tc).sort()).toEqual([`__consumer_offsets-${G_PARTITION}:true:0`, "out-0:true:0", "out-1:true:0"]);
    expect(fetchOffset(gc, true)).toEqual([77, 0]);
    // The producer's retried EndTxn succeeds; its next init bumps the epoch.
    expect(end(tc, producer, true)).toBe(0);
    expect(producerOf(init(tc)).producerEpoch).toBe(1);
  });

  it("a coordinator that crashed in PrepareAbort loads, then sends the ABORT markers again: the pending offsets are dropped", () => {
    const gc = new CoordinatorUnderTest(coordinatorConfig());
    const tc = new TxnCoordinatorUnderTest(txnConfig({ loadMs: 50 }), gc);
    tc.advanceMs(50);
    const producer = producerOf(init(tc));
    expect(addErrors(tc, addPartitions(producer, { out: [0] }))).toEqual([0]);
    expect(tc.request<AddOffsetsToTxnResponse>(addOffsets(producer)).errorCode).toBe(0);
    gc.send("producer", txnOffsetCommit({ producer, offsets: { 0: 66 } }));
    expect(fetchOffset(gc, true)).toEqual([-1, ErrorCode.UNSTABLE_OFFSET_COMMIT]);
    tc.markerAnswer = () => null;
    const groupCoordinator = tc.groupCoordinator;
    Object.assign(tc, { groupCoordinator: null });
    expect(end(tc, producer, false)).toBe(0);
    expect(tc.transaction()).toMatchObject({ state: "PrepareAbort", pendingState: "CompleteAbort" });

    tc.restart();
    Object.assign(tc, { groupCoordinator });
    tc.markerAnswer = () => ErrorCode.NONE;
    tc.advanceMs(50);
    expect(tc.transitions()).toEqual(["PrepareAbort->CompleteAbort@0"]);
    expect(markers(tc).sort()).toEqual([`__consumer_offsets-${G_PARTITION}:false:0`, "out-0:false:0"]);
    expect(gc.ctx.observationsOf("gc.txn-marker")).toMatchObject([{ coordinatorEpoch: 1, committed: false, errorCode: 0 }]);
    expect(fetchOffset(gc, true)).toEqual([-1, 0]);
    // The retried EndTxn(abort) is answered NONE; a commit of the aborted transaction is INVALID_TXN_STATE.
    expect(end(tc, producer, false)).toBe(0);
    expect(end(tc, producer, true)).toBe(ErrorCode.INVALID_TXN_STATE);
  });

  it("an Ongoing transaction found at load still times out", () => {
    const config = txnConfig({ broker: { "transaction.abort.timed.out.transaction.cleanup.interval.ms": 1000 } });
    const tc = new TxnCoordinatorUnderTest(config);
    const producer = producerOf(init(tc, { transactionTimeoutMs: 3000 }));
    expect(addErrors(tc, addPartitions(producer, { out: [1] }))).toEqual([0]);
    tc.restart();
    tc.advanceMs(4000);
    expect(tc.transitions()).toEqual([
      "Ongoing->PrepareEpochFence@1",
      "PrepareEpochFence->PrepareAbort@1",
      "PrepareAbort->CompleteAbort@1",
    ]);
  });
});

describe("placement and producer ids", () => {
  const pair = ["txn-coordinator-0", "txn-coordinator-1"];
  const ownedBy = (index: number): string =>
    ["t0", "t1", "t2", "t3", "t4", "t5", "t6"].find((id) => partitionFor(id, 50) % 2 === index) ?? "";

  it("answers FindCoordinator for the transactional ids it owns, NOT_COORDINATOR for the others", () => {
    const tc = new TxnCoordinatorUnderTest(txnConfig({ txnCoordinators: pair }));
    const find = {
      type: "FindCoordinatorRequest",
      correlationId: 5,
      apiVersion: 4,
      clientId: "p",
      keyType: CoordinatorKeyType.TRANSACTION,
    } as const;
    const mine = ownedBy(0);
    const theirs = ownedBy(1);
    const response = tc.request<FindCoordinatorResponse>({ ...find, coordinatorKeys: [mine, theirs] });
    expect(response.coordinators.map((c) => [c.key, c.host, c.nodeId, c.errorCode])).toEqual([
      [mine, "txn-coordinator-0", 0, 0],
      [theirs, "", -1, ErrorCode.NOT_COORDINATOR],
    ]);
    const group = tc.request<FindCoordinatorResponse>({
      ...find,
      correlationId: 6,
      keyType: CoordinatorKeyType.GROUP,
      coordinatorKeys: ["g"],
    });
    expect(group.coordinators[0]?.errorCode).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    expect(init(tc, { transactionalId: theirs }).errorCode).toBe(ErrorCode.NOT_COORDINATOR);
    expect(init(tc, { transactionalId: mine }).errorCode).toBe(0);
  });

  it("hands out producer ids unique across coordinators and restarts; idempotent producers get fresh ids at epoch 0", () => {
    const log0 = new FakeDurableLog();
    const tc0 = new TxnCoordinatorUnderTest(txnConfig({ txnCoordinators: pair }), null, log0, "txn-coordinator-0");
    const tc1 = new TxnCoordinatorUnderTest(txnConfig({ txnCoordinators: pair }), null, new FakeDurableLog(), "txn-coordinator-1");
    const ids = [
      producerOf(init(tc0, { transactionalId: ownedBy(0) })),
      producerOf(init(tc0, { transactionalId: null })),
      producerOf(init(tc1, { transactionalId: ownedBy(1) })),
      producerOf(init(tc1, { transactionalId: null })),
    ];
    expect(ids).toEqual([
      { producerId: 0, producerEpoch: 0 },
      { producerId: 1, producerEpoch: 0 },
      { producerId: 1000, producerEpoch: 0 },
      { producerId: 1001, producerEpoch: 0 },
    ]);
    tc0.restart();
    expect(producerOf(init(tc0, { transactionalId: null })).producerId).toBe(2000);
    // The transactional id keeps its producer id across the restart.
    expect(producerOf(init(tc0, { transactionalId: ownedBy(0) }))).toEqual({ producerId: 0, producerEpoch: 1 });
  });

  it("expires idle transactional ids (transactional.id.expiration.ms)", () => {
    const tc = new TxnCoordinatorUnderTest(
      txnConfig({
        broker: { "transactional.id.expiration.ms": 10_000, "transaction.remove.expired.transaction.cleanup.interval.ms": 4000 },
      }),
    );
    const producer = producerOf(init(tc));
    tc.advanceMs(8000);
    expect(tc.snapshot().transactions).toHaveLength(1);
    tc.advanceMs(4000);
    expect(tc.snapshot().transactions).toHaveLength(0);
    expect(tc.transitions().at(-1)).toBe("Empty->Dead@0");
    tc.restart();
    expect(tc.snapshot().transactions).toHaveLength(0);
    expect(addErrors(tc, addPartitions(producer, { out: [0] }))).toEqual([ErrorCode.INVALID_PRODUCER_ID_MAPPING]);
  });
});

describe("configuration", () => {
  const base = { txnCoordinators: ["t"], brokers: ["b"], groupCoordinators: ["c"], topics: [] };
  const bad: [string, JsonValue, string][] = [
    ["not an object", [], "config must be an object"],
    ["unknown field", { ...base, extra: 1 }, "unknown field 'extra'"],
    ["bad broker setting", { ...base, broker: { "transaction.state.log.num.partitions": 0 } }, "transaction.state.log.num.partitions"],
    ["not listed", { ...base, txnCoordinators: ["other"] }, "must list this actor's id 't'"],
    ["no brokers", { ...base, brokers: [] }, "field 'brokers'"],
    ["no group coordinators", { ...base, groupCoordinators: [] }, "field 'groupCoordinators'"],
    ["bad topics", { ...base, topics: [{ name: "x", partitions: 0 }] }, "field 'topics[0]'.partitions"],
  ];
  it.each(bad)("rejects %s with one line naming the field", (_name, config, message) => {
    expect(() => createTransactionCoordinator("t", config)).toThrow(message);
  });

  it("is the kind scenarios name", () => {
    expect(TRANSACTION_COORDINATOR_KIND).toBe("transaction-coordinator");
  });
});
