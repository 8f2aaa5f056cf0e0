import {
  ErrorCode,
  type OffsetFetchResponse,
  partitionFor,
  type TxnOffsetCommitResponse,
  type WriteTxnMarkersResponse,
} from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { classicConfig, commitRequest, stableGroup } from "./classic-test-kit.js";
import { CoordinatorUnderTest, coordinatorConfig, heartbeatRequest, SimulatedMember } from "./coordinator-test-kit.js";
import { offsetFetch, offsetsMarker, type ProducerIdAndEpoch, txnOffsetCommit, writeTxnMarkers } from "./transaction-test-kit.js";

const P1: ProducerIdAndEpoch = { producerId: 1000, producerEpoch: 0 };
const P2: ProducerIdAndEpoch = { producerId: 2000, producerEpoch: 3 };
/** The `__consumer_offsets` partition of group "g" (50 partitions). */
const G_PARTITION = partitionFor("g", 50);
const NO_DELAY = { "group.initial.rebalance.delay.ms": 0 };

function commitErrors(gc: CoordinatorUnderTest, request: ReturnType<typeof txnOffsetCommit>): number[] {
  gc.send("producer", request);
  const response = gc.responseTo<TxnOffsetCommitResponse>(request.correlationId);
  if (response === undefined) throw new Error("no TxnOffsetCommit response");
  return response.topics.flatMap((topic) => topic.partitions.map((partition) => partition.errorCode));
}

function fetched(gc: CoordinatorUnderTest, requireStable: boolean, partitions: readonly number[] = [0]): [number, number][] {
  const request = offsetFetch(requireStable, partitions);
  gc.send("client", request);
  const response = gc.responseTo<OffsetFetchResponse>(request.correlationId);
  if (response === undefined) throw new Error("no OffsetFetch response");
  return (response.groups[0]?.topics[0]?.partitions ?? []).map((p) => [p.committedOffset, p.errorCode]);
}

function markerErrors(gc: CoordinatorUnderTest, request: ReturnType<typeof writeTxnMarkers>): number[] {
  gc.send("txn-coordinator-0", request);
  const response = gc.responseTo<WriteTxnMarkersResponse>(request.correlationId);
  if (response === undefined) throw new Error("no WriteTxnMarkers response");
  return response.markers.flatMap((marker) => marker.topics.flatMap((topic) => topic.partitions.map((p) => p.errorCode)));
}

describe("TxnOffsetCommit: the KIP-447 zombie check", () => {
  it("a consumer group's member must commit at exactly its member epoch (ILLEGAL_GENERATION otherwise)", () => {
    const gc = new CoordinatorUnderTest();
    const m1 = new SimulatedMember("m1");
    expect(m1.heartbeat(gc).memberEpoch).toBe(1);
    expect(commitErrors(gc, txnOffsetCommit({ producer: P1, memberId: "m1", generationId: 1 }))).toEqual([0]);
    // A zombie with an old epoch, a newer epoch it cannot have, an unknown member.
    expect(commitErrors(gc, txnOffsetCommit({ producer: P1, memberId: "m1", generationId: 0 }))).toEqual([ErrorCode.ILLEGAL_GENERATION]);
    expect(commitErrors(gc, txnOffsetCommit({ producer: P1, memberId: "m1", generationId: 2 }))).toEqual([ErrorCode.ILLEGAL_GENERATION]);
    expect(commitErrors(gc, txnOffsetCommit({ producer: P1, memberId: "ghost", generationId: 1 }))).toEqual([ErrorCode.UNKNOWN_MEMBER_ID]);
    // A producer without group metadata (pre-KIP-447) is not checked; an admin-style -1 with a member id is.
    expect(commitErrors(gc, txnOffsetCommit({ producer: P2 }))).toEqual([0]);
    expect(commitErrors(gc, txnOffsetCommit({ producer: P2, memberId: "m1" }))).toEqual([ErrorCode.ILLEGAL_GENERATION]);
    // Once fenced (it left), the member cannot commit into a transaction at all.
    gc.heartbeat({ ...m1.request(), memberEpoch: -1 });
    expect(commitErrors(gc, txnOffsetCommit({ producer: P1, memberId: "m1", generationId: 1 }))).toEqual([ErrorCode.UNKNOWN_MEMBER_ID]);

    const outcomes = gc.ctx.observationsOf("gc.txn-offset").map((o) => `${o.memberId}@${o.epoch}:${o.outcome}:${o.errorCode}`);
    expect(outcomes).toEqual([
      "m1@1:pending:0",
      `m1@0:rejected:${ErrorCode.ILLEGAL_GENERATION}`,
      `m1@2:rejected:${ErrorCode.ILLEGAL_GENERATION}`,
      `ghost@1:rejected:${ErrorCode.UNKNOWN_MEMBER_ID}`,
      "@-1:pending:0",
      `m1@-1:rejected:${ErrorCode.ILLEGAL_GENERATION}`,
      `m1@1:rejected:${ErrorCode.UNKNOWN_MEMBER_ID}`,
    ]);
    // Nothing of it is a committed offset yet.
    expect(gc.ctx.observationsOf("gc.offset-commit")).toEqual([]);
  });

  it("a classic group checks the generation, the member and its instance id", () => {
    const gc = new CoordinatorUnderTest(classicConfig(NO_DELAY));
    const { ids, generation } = stableGroup(gc, [{ client: "a", instanceId: "A" }, { client: "b" }], { a: { T1: [0] }, b: { T1: [1] } });
    const a = ids.a ?? "";
    const b = ids.b ?? "";
    expect(commitErrors(gc, txnOffsetCommit({ producer: P1, memberId: a, generationId: generation, groupInstanceId: "A" }))).toEqual([0]);
    expect(commitErrors(gc, txnOffsetCommit({ producer: P2, memberId: b, generationId: generation }))).toEqual([0]);
    expect(commitErrors(gc, txnOffsetCommit({ producer: P1, memberId: a, generationId: generation - 1, groupInstanceId: "A" }))).toEqual([
      ErrorCode.ILLEGAL_GENERATION,
    ]);
    expect(commitErrors(gc, txnOffsetCommit({ producer: P1, memberId: "zombie", generationId: generation, groupInstanceId: "A" }))).toEqual(
      [ErrorCode.FENCED_INSTANCE_ID],
    );
    expect(commitErrors(gc, txnOffsetCommit({ producer: P1, memberId: "zombie", generationId: generation }))).toEqual([
      ErrorCode.UNKNOWN_MEMBER_ID,
    ]);
    // Without member or generation, a transactional commit is accepted even though the group has members.
    expect(commitErrors(gc, txnOffsetCommit({ producer: { producerId: 3000, producerEpoch: 0 } }))).toEqual([0]);
  });

  it("refuses a missing group with a generation (ILLEGAL_GENERATION), creates a simple group without", () => {
    const gc = new CoordinatorUnderTest();
    expect(commitErrors(gc, txnOffsetCommit({ producer: P1, memberId: "m", generationId: 4 }))).toEqual([ErrorCode.ILLEGAL_GENERATION]);
    expect(() => gc.group()).toThrow(/no group g/);
    expect(commitErrors(gc, txnOffsetCommit({ producer: P1 }))).toEqual([0]);
    expect(gc.group()).toMatchObject({ protocol: "classic", state: "EMPTY", offsets: {}, pendingOffsets: { "1000": { T1: { "0": 10 } } } });
  });

  it("answers NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS and UNKNOWN_TOPIC_OR_PARTITION", () => {
    const gc = new CoordinatorUnderTest(coordinatorConfig({ coordinators: ["coordinator-0", "coordinator-1"], loadMs: 50 }));
    const other = ["a", "b", "c", "d", "e", "f"].find((g) => partitionFor(g, 50) % 2 === 1) ?? "";
    expect(commitErrors(gc, txnOffsetCommit({ producer: P1, groupId: other }))).toEqual([ErrorCode.NOT_COORDINATOR]);
    const own = ["a", "b", "c", "d", "e", "f"].find((g) => partitionFor(g, 50) % 2 === 0) ?? "";
    expect(commitErrors(gc, txnOffsetCommit({ producer: P1, groupId: own }))).toEqual([ErrorCode.COORDINATOR_LOAD_IN_PROGRESS]);
    gc.advanceMs(50);
    const request = txnOffsetCommit({ producer: P1, groupId: own, offsets: { 0: 5, 999: 6 } });
    expect(commitErrors(gc, request)).toEqual([0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]);
  });
});

describe("pending transactional offsets", () => {
  it("stay invisible until the COMMIT marker; RequireStable gets UNSTABLE_OFFSET_COMMIT meanwhile", () => {
    const gc = new CoordinatorUnderTest();
    expect(commitErrors(gc, txnOffsetCommit({ producer: P1, offsets: { 0: 42, 1: 7 } }))).toEqual([0, 0]);
    expect(fetched(gc, false, [0, 1, 2])).toEqual([
      [-1, 0],
      [-1, 0],
      [-1, 0],
    ]);
    expect(fetched(gc, true, [0, 1, 2])).toEqual([
      [-1, ErrorCode.UNSTABLE_OFFSET_COMMIT],
      [-1, ErrorCode.UNSTABLE_OFFSET_COMMIT],
      [-1, 0],
    ]);
    expect(markerErrors(gc, writeTxnMarkers([offsetsMarker(P1, true, [G_PARTITION])]))).toEqual([0]);
    expect(fetched(gc, true, [0, 1, 2])).toEqual([
      [42, 0],
      [7, 0],
      [-1, 0],
    ]);
    expect(gc.group()).toMatchObject({ offsets: { T1: { "0": 42, "1": 7 } }, pendingOffsets: {} });
    // One observation per materialised partition (a producer's offsets may come from different members' TxnOffsetCommits).
    expect(gc.ctx.observationsOf("gc.offset-commit")).toEqual([
      {
        type: "gc.offset-commit",
        groupId: "g",
        memberId: "",
        epoch: -1,
        transactional: true,
        topics: [{ topic: "T1", partitions: [0], offsets: [42], errorCodes: [0] }],
      },
      {
        type: "gc.offset-commit",
        groupId: "g",
        memberId: "",
        epoch: -1,
        transactional: true,
        topics: [{ topic: "T1", partitions: [1], offsets: [7], errorCodes: [0] }],
      },
    ]);
    expect(gc.ctx.observationsOf("gc.txn-marker")).toEqual([
      {
        type: "gc.txn-marker",
        producerId: 1000,
        producerEpoch: 0,
        coordinatorEpoch: 0,
        committed: true,
        partition: G_PARTITION,
        errorCode: 0,
      },
    ]);
    // The marker is in the log as a control record.
    expect(gc.storage.records.at(-1)).toEqual({
      type: "EndTransactionMarker",
      partition: G_PARTITION,
      producerId: 1000,
      producerEpoch: 0,
      coordinatorEpoch: 0,
      committed: true,
    });
  });

  it("are dropped by the ABORT marker; other producers' offsets stay pending", () => {
    const gc = new CoordinatorUnderTest();
    expect(commitErrors(gc, txnOffsetCommit({ producer: P1, offsets: { 0: 42 } }))).toEqual([0]);
    expect(commitErrors(gc, txnOffsetCommit({ producer: P2, offsets: { 0: 50, 1: 51 } }))).toEqual([0, 0]);
    expect(markerErrors(gc, writeTxnMarkers([offsetsMarker(P1, false, [G_PARTITION])]))).toEqual([0]);
    expect(fetched(gc, true, [0, 1])).toEqual([
      [-1, ErrorCode.UNSTABLE_OFFSET_COMMIT],
      [-1, ErrorCode.UNSTABLE_OFFSET_COMMIT],
    ]);
    expect(gc.group()).toMatchObject({ offsets: {}, pendingOffsets: { "2000": { T1: { "0": 50, "1": 51 } } } });
    expect(gc.ctx.observationsOf("gc.txn-offset").map((o) => `${o.producerId}:${o.partition}:${o.outcome}`)).toEqual([
      "1000:0:pending",
      "2000:0:pending",
      "2000:1:pending",
      "1000:0:aborted",
    ]);
    expect(markerErrors(gc, writeTxnMarkers([offsetsMarker(P2, true, [G_PARTITION])]))).toEqual([0]);
    expect(fetched(gc, true, [0, 1])).toEqual([
      [50, 0],
      [51, 0],
    ]);
  });

  it("a plain commit written after the transactional one wins (superseded)", () => {
    const gc = new CoordinatorUnderTest();
    expect(commitErrors(gc, txnOffsetCommit({ producer: P1, offsets: { 0: 10, 1: 11 } }))).toEqual([0, 0]);
    gc.send(
      "admin",
      commitRequest("", -1, {
        apiVersion: 9,
        topics: [
          { name: "T1", partitions: [{ partitionIndex: 0, committedOffset: 20, committedLeaderEpoch: -1, committedMetadata: null }] },
        ],
      }),
    );
    expect(markerErrors(gc, writeTxnMarkers([offsetsMarker(P1, true, [G_PARTITION])]))).toEqual([0]);
    expect(gc.group().offsets).toEqual({ T1: { "0": 20, "1": 11 } });
    expect(gc.ctx.observationsOf("gc.txn-offset").map((o) => `${o.partition}:${o.outcome}`)).toEqual([
      "0:pending",
      "1:pending",
      "0:superseded",
    ]);
    // After a restart the same choice is made from the log.
    gc.restart();
    expect(gc.group().offsets).toEqual({ T1: { "0": 20, "1": 11 } });
  });

  it("survive a restart (replay) and are resolved by a marker after it", () => {
    const gc = new CoordinatorUnderTest(coordinatorConfig({ loadMs: 20 }));
    gc.advanceMs(20);
    expect(commitErrors(gc, txnOffsetCommit({ producer: P1, offsets: { 0: 42 } }))).toEqual([0]);
    expect(commitErrors(gc, txnOffsetCommit({ producer: P2, offsets: { 1: 43 } }))).toEqual([0]);
    expect(markerErrors(gc, writeTxnMarkers([offsetsMarker(P2, true, [G_PARTITION])]))).toEqual([0]);
    gc.restart();
    // Loading: markers are refused as the partition's leader would refuse them.
    expect(markerErrors(gc, writeTxnMarkers([offsetsMarker(P1, true, [G_PARTITION])]))).toEqual([ErrorCode.NOT_LEADER_OR_FOLLOWER]);
    gc.advanceMs(20);
    expect(gc.group()).toMatchObject({ offsets: { T1: { "1": 43 } }, pendingOffsets: { "1000": { T1: { "0": 42 } } } });
    expect(fetched(gc, true, [0, 1])).toEqual([
      [-1, ErrorCode.UNSTABLE_OFFSET_COMMIT],
      [43, 0],
    ]);
    expect(markerErrors(gc, writeTxnMarkers([offsetsMarker(P1, true, [G_PARTITION], 1)]))).toEqual([0]);
    expect(fetched(gc, true, [0, 1])).toEqual([
      [42, 0],
      [43, 0],
    ]);
    // The materialisation after the restart still names the committer the record kept.
    expect(gc.ctx.committedPartitions()).toMatchObject([{ memberId: "", epoch: -1, offset: 42, transactional: true }]);
  });

  it("survive the rollback of a failed operation on their group", () => {
    const gc = new CoordinatorUnderTest(classicConfig({ ...NO_DELAY, "group.consumer.migration.policy": "disabled" }));
    const { ids, generation } = stableGroup(gc, [{ client: "a" }], { a: { T1: [0, 1] } });
    const a = ids.a ?? "";
    expect(commitErrors(gc, txnOffsetCommit({ producer: P1, memberId: a, generationId: generation, offsets: { 0: 5 } }))).toEqual([0]);
    expect(markerErrors(gc, writeTxnMarkers([offsetsMarker(P1, true, [G_PARTITION])]))).toEqual([0]);
    expect(commitErrors(gc, txnOffsetCommit({ producer: P2, memberId: a, generationId: generation, offsets: { 1: 6 } }))).toEqual([0]);
    // A consumer-protocol join to the classic group: the upgrade is refused after the group was touched, which is rolled back.
    const refused = gc.heartbeat(
      heartbeatRequest({ memberId: "m9", memberEpoch: 0, rebalanceTimeoutMs: 1000, subscribedTopicNames: ["T1"], topicPartitions: [] }),
    );
    expect(refused.errorCode).not.toBe(0);
    expect(gc.group()).toMatchObject({ protocol: "classic", offsets: { T1: { "0": 5 } }, pendingOffsets: { "2000": { T1: { "1": 6 } } } });
  });
});

describe("WriteTxnMarkers on the group coordinator", () => {
  it("refuses partitions it does not host, other topics, and fenced producers or coordinators", () => {
    const gc = new CoordinatorUnderTest(coordinatorConfig({ coordinators: ["coordinator-0", "coordinator-1"] }));
    const owned = G_PARTITION % 2 === 0 ? G_PARTITION : G_PARTITION + 1;
    const foreign = owned + 1;
    const request = writeTxnMarkers([
      {
        ...offsetsMarker(P1, true, [owned, foreign, 50]),
      },
      {
        producerId: 5,
        producerEpoch: 0,
        transactionResult: true,
        topics: [{ name: "out", partitionIndexes: [0] }],
        coordinatorEpoch: 0,
        transactionVersion: 0,
      },
    ]);
    expect(markerErrors(gc, request)).toEqual([
      0,
      ErrorCode.NOT_LEADER_OR_FOLLOWER,
      ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
      ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
    ]);

    // The log now knows producer 1000 at epoch 0 with coordinator epoch 0.
    const gc1 = new CoordinatorUnderTest();
    expect(commitErrors(gc1, txnOffsetCommit({ producer: { producerId: 7, producerEpoch: 2 } }))).toEqual([0]);
    // A marker from an older producer epoch, or from an older transaction coordinator, is refused.
    expect(markerErrors(gc1, writeTxnMarkers([offsetsMarker({ producerId: 7, producerEpoch: 1 }, true, [G_PARTITION], 3)]))).toEqual([
      ErrorCode.INVALID_PRODUCER_EPOCH,
    ]);
    expect(markerErrors(gc1, writeTxnMarkers([offsetsMarker({ producerId: 7, producerEpoch: 3 }, false, [G_PARTITION], 3)]))).toEqual([0]);
    expect(markerErrors(gc1, writeTxnMarkers([offsetsMarker({ producerId: 7, producerEpoch: 3 }, false, [G_PARTITION], 2)]))).toEqual([
      ErrorCode.TRANSACTION_COORDINATOR_FENCED,
    ]);
    // The zombie producer (epoch 2, fenced by the epoch-3 abort) cannot add offsets any more.
    expect(commitErrors(gc1, txnOffsetCommit({ producer: { producerId: 7, producerEpoch: 2 } }))).toEqual([
      ErrorCode.INVALID_PRODUCER_EPOCH,
    ]);
    expect(gc1.group()).toMatchObject({ offsets: {}, pendingOffsets: {} });
  });
});
