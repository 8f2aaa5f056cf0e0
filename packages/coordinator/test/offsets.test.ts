import {
  ErrorCode,
  type OffsetCommitRequest,
  type OffsetCommitResponse,
  type OffsetFetchRequest,
  type OffsetFetchResponse,
} from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import type { StoredRecord } from "../src/records/coordinator-record.js";
import { fromStoredForm, toStoredForm } from "../src/records/stored-form.js";
import { CoordinatorUnderTest, coordinatorConfig, SimulatedMember } from "./coordinator-test-kit.js";

let correlation = 10_000;

function commit(
  fields: Partial<OffsetCommitRequest> & { partitions?: { partition: number; offset: number; metadata?: string | null }[] },
): OffsetCommitRequest {
  const { partitions = [{ partition: 0, offset: 10 }], ...rest } = fields;
  return {
    type: "OffsetCommitRequest",
    correlationId: ++correlation,
    apiVersion: 9,
    clientId: "client",
    groupId: "g",
    generationIdOrMemberEpoch: -1,
    memberId: "",
    groupInstanceId: null,
    topics: [
      {
        name: "T1",
        partitions: partitions.map((p) => ({
          partitionIndex: p.partition,
          committedOffset: p.offset,
          committedLeaderEpoch: -1,
          committedMetadata: p.metadata === undefined ? null : p.metadata,
        })),
      },
    ],
    ...rest,
  };
}

function fetch(groups: OffsetFetchRequest["groups"], requireStable = false): OffsetFetchRequest {
  return { type: "OffsetFetchRequest", correlationId: ++correlation, apiVersion: 9, clientId: "client", requireStable, groups };
}

function commitErrors(gc: CoordinatorUnderTest, request: OffsetCommitRequest): number[] {
  gc.send(request.memberId || "admin", request);
  const response = gc.responseTo<OffsetCommitResponse>(request.correlationId);
  if (response === undefined) throw new Error("no OffsetCommit response");
  return response.topics.flatMap((topic) => topic.partitions.map((partition) => partition.errorCode));
}

function fetchResponse(gc: CoordinatorUnderTest, request: OffsetFetchRequest): OffsetFetchResponse {
  gc.send("client", request);
  const response = gc.responseTo<OffsetFetchResponse>(request.correlationId);
  if (response === undefined) throw new Error("no OffsetFetch response");
  return response;
}

describe("OffsetCommit", () => {
  it("creates a simple group for a commit outside group management; GROUP_ID_NOT_FOUND with a generation", () => {
    const gc = new CoordinatorUnderTest();
    expect(commitErrors(gc, commit({ groupId: "g2", generationIdOrMemberEpoch: 3, memberId: "x" }))).toEqual([
      ErrorCode.GROUP_ID_NOT_FOUND,
    ]);
    expect(commitErrors(gc, commit({ groupId: "g2", generationIdOrMemberEpoch: 3, memberId: "x", apiVersion: 8 }))).toEqual([
      ErrorCode.ILLEGAL_GENERATION,
    ]);
    expect(commitErrors(gc, commit({ partitions: [{ partition: 3, offset: 77, metadata: "m" }] }))).toEqual([0]);
    expect(gc.group()).toMatchObject({ protocol: "classic", state: "EMPTY", offsets: { T1: { "3": 77 } } });
    expect(gc.storage.records.map(fromStoredForm)).toMatchObject([
      {
        type: 1,
        key: { group: "g", topic: "T1", partition: 3 },
        value: { offset: 77, leaderEpoch: -1, metadata: "m", expireTimestamp: -1 },
      },
    ]);
    // A consumer group may take the simple group's place; the offsets stay.
    const member = new SimulatedMember("m1");
    expect(member.heartbeat(gc).errorCode).toBe(0);
    expect(gc.group()).toMatchObject({ protocol: "consumer", offsets: { T1: { "3": 77 } } });
  });

  it("keeps a plain commit's record in storage as a row, and a restart reads it back as the record it was", () => {
    const gc = new CoordinatorUnderTest();
    expect(commitErrors(gc, commit({ partitions: [{ partition: 3, offset: 77, metadata: "m" }] }))).toEqual([0]);
    const [stored] = gc.storage.records;
    expect(stored).toEqual(["OffsetCommitRow", "g", "T1", 3, 77, -1, "m", expect.any(Number), -1]);
    const record = fromStoredForm(stored);
    expect(record).toEqual({
      type: 1,
      key: { group: "g", topic: "T1", partition: 3 },
      value: { offset: 77, leaderEpoch: -1, metadata: "m", commitTimestamp: (stored as unknown[])[7], expireTimestamp: -1 },
    });
    // Records of every other kind are kept as they are, and a value that is not a row reads back unchanged.
    const tombstone = { type: 1, key: { group: "g", topic: "T1", partition: 3 }, value: null };
    expect(toStoredForm(tombstone as StoredRecord)).toBe(tombstone);
    expect(fromStoredForm(["OffsetCommitRow", "g"])).toEqual(["OffsetCommitRow", "g"]);
    gc.restart();
    gc.advance(10_000_000);
    expect(gc.group()).toMatchObject({ protocol: "classic", state: "EMPTY", offsets: { T1: { "3": 77 } } });
  });

  it("checks the member and its exact epoch in a consumer group (STALE_MEMBER_EPOCH)", () => {
    const gc = new CoordinatorUnderTest();
    const m1 = new SimulatedMember("m1");
    m1.heartbeat(gc);
    expect(commitErrors(gc, commit({ memberId: "m1", generationIdOrMemberEpoch: 1 }))).toEqual([0]);
    expect(commitErrors(gc, commit({ memberId: "m1", generationIdOrMemberEpoch: 0 }))).toEqual([ErrorCode.STALE_MEMBER_EPOCH]);
    expect(commitErrors(gc, commit({ memberId: "m1", generationIdOrMemberEpoch: 2 }))).toEqual([ErrorCode.STALE_MEMBER_EPOCH]);
    expect(commitErrors(gc, commit({ memberId: "ghost", generationIdOrMemberEpoch: 1 }))).toEqual([ErrorCode.UNKNOWN_MEMBER_ID]);
    // Admin commits are refused while the group has members, accepted once it is empty.
    expect(commitErrors(gc, commit({}))).toEqual([ErrorCode.UNKNOWN_MEMBER_ID]);
    expect(commitErrors(gc, commit({ memberId: "m1", generationIdOrMemberEpoch: 1, apiVersion: 8 }))).toEqual([
      ErrorCode.UNSUPPORTED_VERSION,
    ]);
    gc.heartbeat({ ...m1.request(), memberEpoch: -1 });
    expect(commitErrors(gc, commit({ memberId: "m1", generationIdOrMemberEpoch: 1 }))).toEqual([ErrorCode.UNKNOWN_MEMBER_ID]);
    expect(commitErrors(gc, commit({}))).toEqual([0]);
    const observed = gc.ctx.committedPartitions();
    expect(observed.map((o) => [o.memberId, o.epoch, o.errorCode])).toEqual([
      ["m1", 1, 0],
      ["m1", 0, ErrorCode.STALE_MEMBER_EPOCH],
      ["m1", 2, ErrorCode.STALE_MEMBER_EPOCH],
      ["ghost", 1, ErrorCode.UNKNOWN_MEMBER_ID],
      ["", -1, ErrorCode.UNKNOWN_MEMBER_ID],
      ["m1", 1, ErrorCode.UNSUPPORTED_VERSION],
      ["m1", 1, ErrorCode.UNKNOWN_MEMBER_ID],
      ["", -1, 0],
    ]);
    // One observation per request, its partitions topic by topic.
    expect(gc.ctx.observationsOf("gc.offset-commit")[0]).toEqual({
      type: "gc.offset-commit",
      groupId: "g",
      memberId: "m1",
      epoch: 1,
      transactional: false,
      topics: [{ topic: "T1", partitions: [0], offsets: [10], errorCodes: [0] }],
    });
  });

  it("fails only the partitions with oversized metadata, and unknown topics", () => {
    const gc = new CoordinatorUnderTest(coordinatorConfig({ broker: { "offset.metadata.max.bytes": 5 } }));
    const request = commit({
      partitions: [
        { partition: 0, offset: 1, metadata: "12345" },
        { partition: 1, offset: 2, metadata: "123456" },
      ],
    });
    request.topics.push({
      name: "nope",
      partitions: [{ partitionIndex: 0, committedOffset: 5, committedLeaderEpoch: -1, committedMetadata: null }],
    });
    expect(commitErrors(gc, request)).toEqual([0, ErrorCode.OFFSET_METADATA_TOO_LARGE, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]);
    expect(gc.group().offsets).toEqual({ T1: { "0": 1 } });
  });

  it("answers NOT_COORDINATOR and COORDINATOR_LOAD_IN_PROGRESS for every partition", () => {
    const gc = new CoordinatorUnderTest(coordinatorConfig({ coordinators: ["coordinator-0", "coordinator-1"], loadMs: 50 }));
    expect(commitErrors(gc, commit({ groupId: "my-group" }))).toEqual([ErrorCode.COORDINATOR_LOAD_IN_PROGRESS]);
    expect(commitErrors(gc, commit({ groupId: "a" }))).toEqual([ErrorCode.NOT_COORDINATOR]);
    gc.advanceMs(50);
    expect(commitErrors(gc, commit({ groupId: "my-group" }))).toEqual([0]);
  });
});

describe("OffsetFetch", () => {
  it("returns committed offsets, -1 for the rest, and every offset for null topics", () => {
    const gc = new CoordinatorUnderTest();
    commitErrors(
      gc,
      commit({
        partitions: [
          { partition: 2, offset: 20, metadata: "two" },
          { partition: 0, offset: 5 },
        ],
      }),
    );
    const some = fetchResponse(
      gc,
      fetch([{ groupId: "g", memberId: null, memberEpoch: -1, topics: [{ name: "T1", partitionIndexes: [0, 1] }] }]),
    );
    expect(some.groups).toEqual([
      {
        groupId: "g",
        errorCode: 0,
        topics: [
          {
            name: "T1",
            partitions: [
              { partitionIndex: 0, committedOffset: 5, committedLeaderEpoch: -1, metadata: "", errorCode: 0 },
              { partitionIndex: 1, committedOffset: -1, committedLeaderEpoch: -1, metadata: "", errorCode: 0 },
            ],
          },
        ],
      },
    ]);
    const all = fetchResponse(gc, fetch([{ groupId: "g", memberId: null, memberEpoch: -1, topics: null }]));
    expect(all.groups[0]?.topics[0]?.partitions.map((p) => [p.partitionIndex, p.committedOffset, p.metadata])).toEqual([
      [0, 5, ""],
      [2, 20, "two"],
    ]);
    const missing = fetchResponse(gc, fetch([{ groupId: "other", memberId: null, memberEpoch: -1, topics: null }]));
    expect(missing.groups).toEqual([{ groupId: "other", errorCode: 0, topics: [] }]);
  });

  it("checks member id and epoch in a consumer group (v9), admin fetches pass", () => {
    const gc = new CoordinatorUnderTest(coordinatorConfig({ coordinators: ["coordinator-0", "coordinator-1"] }));
    const m1 = new SimulatedMember("m1", ["T1"], null, "my-group");
    m1.heartbeat(gc);
    const topics = [{ name: "T1", partitionIndexes: [0] }];
    const response = fetchResponse(
      gc,
      fetch([
        { groupId: "my-group", memberId: "m1", memberEpoch: 1, topics },
        { groupId: "my-group", memberId: "m1", memberEpoch: 0, topics },
        { groupId: "my-group", memberId: "ghost", memberEpoch: 1, topics },
        { groupId: "my-group", memberId: null, memberEpoch: -1, topics },
        { groupId: "a", memberId: null, memberEpoch: -1, topics },
      ]),
    );
    expect(response.groups.map((g) => g.errorCode)).toEqual([
      0,
      ErrorCode.STALE_MEMBER_EPOCH,
      ErrorCode.UNKNOWN_MEMBER_ID,
      0,
      ErrorCode.NOT_COORDINATOR,
    ]);
    expect(response.groups[1]?.topics).toEqual([]);
  });
});

describe("topics created while the cluster runs", () => {
  it("refuses commits for a topic it does not know until the controller's UpdateMetadata names it, across a restart", () => {
    const gc = new CoordinatorUnderTest();
    const orders = (partition: number) =>
      commit({
        topics: [
          {
            name: "orders",
            partitions: [{ partitionIndex: partition, committedOffset: 5, committedLeaderEpoch: -1, committedMetadata: null }],
          },
        ],
      });
    expect(commitErrors(gc, orders(0))).toEqual([ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]);
    const state = (partitionIndex: number) => ({
      partitionIndex,
      controllerEpoch: 1,
      leader: 0,
      leaderEpoch: 0,
      isr: [0],
      zkVersion: 0,
      replicas: [0],
      offlineReplicas: [],
    });
    gc.send("controller", {
      type: "UpdateMetadataRequest",
      correlationId: ++correlation,
      apiVersion: 8,
      clientId: "controller",
      controllerId: -1,
      isKRaftController: true,
      controllerEpoch: 1,
      brokerEpoch: -1,
      updateType: 1,
      topicStates: [{ topicName: "orders", topicId: "orders-id", partitionStates: [state(0), state(1)] }],
      liveBrokers: [],
    });
    expect(gc.responseTo(correlation)).toMatchObject({ type: "UpdateMetadataResponse", errorCode: 0 });
    expect(commitErrors(gc, orders(1))).toEqual([0]);
    gc.restart();
    expect(commitErrors(gc, orders(0))).toEqual([0]);
    expect((gc.snapshot() as unknown as { topics: unknown[] }).topics).toContainEqual({ name: "orders", id: "orders-id", partitions: 2 });
  });
});
