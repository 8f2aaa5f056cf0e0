import { ErrorCode } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { type CoordinatorRecord, currentAssignmentValue, IllegalStateError, newConsumerGroupMember, RecordType } from "../src/index.js";
import {
  CoordinatorUnderTest,
  converge,
  coordinatorConfig,
  epochViolations,
  FakeDurableLog,
  heartbeatRequest,
  joinRequest,
  SimulatedMember,
  T1,
} from "./coordinator-test-kit.js";

const typesOf = (records: readonly unknown[]) =>
  (records as CoordinatorRecord[]).map((record) => `${record.type}${"value" in record && record.value === null ? "-tombstone" : ""}`);

describe("records", () => {
  it("a first join writes MemberMetadata, PartitionMetadata, group epoch, target member, target epoch, current assignment", () => {
    const gc = new CoordinatorUnderTest();
    gc.heartbeat(joinRequest("m1"));
    expect(typesOf(gc.storage.records)).toEqual(["5", "4", "3", "7", "6", "8"]);
    const [member, partitions, epoch, target, targetEpoch, current] = gc.storage.records as CoordinatorRecord[];
    expect(member).toMatchObject({
      key: { groupId: "g", memberId: "m1" },
      value: { subscribedTopicNames: ["T1"], rebalanceTimeoutMs: 300000 },
    });
    expect(partitions).toMatchObject({ value: { topics: [{ topicId: T1.id, topicName: "T1", numPartitions: 90 }] } });
    expect(epoch).toMatchObject({ value: { epoch: 1 } });
    expect(target).toMatchObject({ key: { memberId: "m1" }, value: { topicPartitions: [{ topicId: T1.id }] } });
    expect(targetEpoch).toMatchObject({ value: { assignmentEpoch: 1 } });
    expect(current).toMatchObject({ value: { memberEpoch: 1, previousMemberEpoch: 0, state: 0, partitionsPendingRevocation: [] } });
  });

  it("a leave writes tombstones in replay order, the new subscription metadata, then the epoch bump", () => {
    const gc = new CoordinatorUnderTest();
    gc.heartbeat(joinRequest("m1"));
    const start = gc.storage.length;
    gc.heartbeat(heartbeatRequest({ memberId: "m1", memberEpoch: -1 }));
    const leave = gc.storage.records.slice(start) as CoordinatorRecord[];
    expect(typesOf(leave)).toEqual(["8-tombstone", "7-tombstone", "5-tombstone", "4", "3"]);
    expect(leave[3]).toMatchObject({ value: { topics: [] } });
    expect(leave[4]).toMatchObject({ value: { epoch: 2 } });
  });

  it("a static leave writes one current assignment at epoch -2", () => {
    const gc = new CoordinatorUnderTest();
    gc.heartbeat(joinRequest("a1", ["T1"], { instanceId: "a" }));
    const start = gc.storage.length;
    gc.heartbeat(heartbeatRequest({ memberId: "a1", memberEpoch: -2, instanceId: "a" }));
    expect(gc.storage.records.slice(start)).toMatchObject([
      { type: RecordType.ConsumerGroupCurrentMemberAssignment, value: { memberEpoch: -2, partitionsPendingRevocation: [] } },
    ]);
  });
});

describe("batched appends", () => {
  const lingering = () => coordinatorConfig({ broker: { "group.coordinator.append.linger.ms": 10 } });

  it("holds records, observations and responses until the linger flush", () => {
    const gc = new CoordinatorUnderTest(lingering());
    const join = joinRequest("m1");
    gc.send("m1", join);
    expect(gc.responseTo(join.correlationId)).toBeUndefined();
    expect(gc.storage.length).toBe(0);
    expect(gc.ctx.observationsOf("gc.member")).toEqual([]);
    // State applies at once: a second member joining in the same batch sees the group.
    const join2 = joinRequest("m2");
    gc.send("m2", join2);
    expect(gc.snapshot().pendingRecords).toBeGreaterThan(6);
    gc.advanceMs(9);
    expect(gc.storage.length).toBe(0);
    gc.advanceMs(1);
    expect(gc.storage.length).toBeGreaterThan(6);
    expect(gc.responseTo(join.correlationId)).toMatchObject({ errorCode: 0, memberEpoch: 1 });
    expect(gc.responseTo(join2.correlationId)).toMatchObject({ errorCode: 0, memberEpoch: 2 });
    expect(gc.ctx.observationsOf("gc.group").map((o) => o.groupEpoch)).toEqual([1, 2]);
  });

  it("answers errors at once, and an operation without records after the open batch", () => {
    const gc = new CoordinatorUnderTest(lingering());
    const m1 = new SimulatedMember("m1");
    gc.send("m1", m1.request());
    gc.advanceMs(10);
    const join2 = joinRequest("m2");
    gc.send("m2", join2);
    const fenced = heartbeatRequest({ memberId: "m1", memberEpoch: 7 });
    gc.send("m1", fenced);
    expect(gc.responseTo(fenced.correlationId)).toMatchObject({ errorCode: ErrorCode.FENCED_MEMBER_EPOCH });
    // A read while a batch is open waits for it.
    const fetch = {
      type: "OffsetFetchRequest" as const,
      correlationId: 777,
      apiVersion: 9,
      clientId: "admin",
      requireStable: false,
      groups: [{ groupId: "g", memberId: null, memberEpoch: -1, topics: null }],
    };
    gc.send("admin", fetch);
    expect(gc.responseTo(777)).toBeUndefined();
    gc.advanceMs(10);
    expect(gc.responseTo(777)).toMatchObject({ groups: [{ groupId: "g", errorCode: 0 }] });
    expect(gc.responseTo(join2.correlationId)).toMatchObject({ errorCode: 0 });
  });

  it("a crash before the flush loses the records and the response", () => {
    const gc = new CoordinatorUnderTest(lingering());
    const join = joinRequest("m1");
    gc.send("m1", join);
    gc.advanceMs(5);
    gc.restart();
    expect(gc.responseTo(join.correlationId)).toBeUndefined();
    expect(gc.storage.length).toBe(0);
    expect(gc.snapshot().groups).toEqual([]);
    // The member retries and is served as if nothing had happened.
    gc.send("m1", joinRequest("m1"));
    gc.advanceMs(10);
    expect(gc.group()).toMatchObject({ groupEpoch: 1, members: [{ memberId: "m1", memberEpoch: 1 }] });
  });
});

describe("load after a (re)start", () => {
  function busyGroup(gc: CoordinatorUnderTest) {
    const members = [new SimulatedMember("m1"), new SimulatedMember("m2"), new SimulatedMember("s1", ["T1"], "static-1")];
    converge(gc, members);
    // A fourth member joins: m1 and m2 are left UNREVOKED, s1 and m4 in between.
    const m4 = new SimulatedMember("m4");
    m4.heartbeat(gc);
    members[0]?.heartbeat(gc);
    gc.heartbeat(heartbeatRequest({ memberId: "m2", memberEpoch: members[1]?.epoch ?? 0, rebalanceTimeoutMs: 20000 }));
    gc.heartbeat(heartbeatRequest({ memberId: "s1", memberEpoch: -2, instanceId: "static-1" }));
    gc.send("m1", {
      type: "OffsetCommitRequest",
      correlationId: 4242,
      apiVersion: 9,
      clientId: "m1",
      groupId: "g",
      generationIdOrMemberEpoch: members[0]?.epoch ?? 0,
      memberId: "m1",
      groupInstanceId: null,
      topics: [{ name: "T1", partitions: [{ partitionIndex: 0, committedOffset: 42, committedLeaderEpoch: 3, committedMetadata: "x" }] }],
    });
    return { members, m4 };
  }

  it("rebuilds identical state, answers COORDINATOR_LOAD_IN_PROGRESS while loading, re-arms timers with full durations", () => {
    const gc = new CoordinatorUnderTest(coordinatorConfig({ loadMs: 500 }));
    gc.advanceMs(500);
    const { members } = busyGroup(gc);
    gc.advanceMs(7000); // timers run down
    const before = gc.snapshot();
    expect(before.groups[0]?.members.map((m) => m.state)).toEqual([
      "UNREVOKED_PARTITIONS",
      "UNREVOKED_PARTITIONS",
      "STABLE",
      "UNRELEASED_PARTITIONS",
    ]);
    expect(gc.ctx.timerRemaining("session-timeout-g-m4")).toBeLessThan(45_000_000);

    gc.restart();
    expect(gc.snapshot().loading).toBe(true);
    const early = members[0]?.request();
    if (early === undefined) throw new Error("no member");
    expect(gc.heartbeat(early, "m1").errorCode).toBe(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
    expect(gc.ctx.observationsOf("gc.loaded")).toEqual([]);
    gc.advanceMs(500);

    const after = gc.snapshot();
    expect(after.loading).toBe(false);
    expect(after.groups).toEqual(before.groups);
    expect(gc.ctx.observationsOf("gc.loaded")).toEqual([{ type: "gc.loaded", records: gc.storage.length, groups: 1 }]);
    expect(gc.ctx.observationsOf("gc.group")).toMatchObject([
      { groupId: "g", groupEpoch: 4, assignmentEpoch: 4, state: "RECONCILING", members: 4 },
    ]);
    expect(gc.ctx.observationsOf("gc.member").map((o) => [o.memberId, o.memberEpoch])).toEqual([
      ["m1", 3],
      ["m2", 3],
      ["s1", -2],
      ["m4", 4],
    ]);
    for (const memberId of ["m1", "m2", "s1", "m4"]) expect(gc.ctx.timerRemaining(`session-timeout-g-${memberId}`)).toBe(45_000_000);
    expect(gc.ctx.timerRemaining("rebalance-timeout-g-m1")).toBe(300_000_000);
    expect(gc.ctx.timerRemaining("rebalance-timeout-g-m2")).toBe(20_000_000);
    expect(gc.ctx.hasTimer("rebalance-timeout-g-m4")).toBe(false);

    // Members carry on at the same epochs.
    const m1 = members[0];
    if (m1 === undefined) throw new Error("no member");
    const resumed = gc.heartbeat(heartbeatRequest({ memberId: "m1", memberEpoch: m1.epoch }), "m1");
    expect(resumed).toMatchObject({ errorCode: 0, memberEpoch: 3 });
    expect(epochViolations(gc.ctx.observed)).toEqual([]);
  });

  it("loads for 100 ms + 1 ms per 1,000 records by default", () => {
    const storage = new FakeDurableLog();
    for (let i = 0; i < 5000; i++) {
      storage.append({
        type: RecordType.OffsetCommit,
        key: { group: "g", topic: "T1", partition: i % 90 },
        value: { offset: i, leaderEpoch: -1, metadata: "", commitTimestamp: 0, expireTimestamp: -1 },
      });
    }
    const gc = new CoordinatorUnderTest(coordinatorConfig({ loadMs: null }), storage);
    expect(gc.ctx.timerRemaining("coordinator-load")).toBe(105_000);
    gc.advanceMs(105);
    expect(gc.snapshot().loading).toBe(false);
    expect(gc.group()).toMatchObject({ protocol: "classic", offsets: { T1: { "0": 4950 } } });
  });

  it("replay enforces the tombstone invariants", () => {
    const storage = new FakeDurableLog();
    const member = { ...newConsumerGroupMember("m1"), memberEpoch: 1, previousMemberEpoch: 0 };
    storage.append({
      type: RecordType.ConsumerGroupCurrentMemberAssignment,
      key: { groupId: "g", memberId: "m1" },
      value: currentAssignmentValue(member),
    });
    storage.append({ type: RecordType.ConsumerGroupMemberMetadata, key: { groupId: "g", memberId: "m1" }, value: null });
    expect(() => new CoordinatorUnderTest(coordinatorConfig(), storage)).toThrow(IllegalStateError);
  });

  it("a failed heartbeat rolls back what it had already written (a member in an UNKNOWN state)", () => {
    const storage = new FakeDurableLog();
    const group = { groupId: "g" };
    storage.append({
      type: RecordType.ConsumerGroupMemberMetadata,
      key: { groupId: "g", memberId: "m1" },
      value: {
        instanceId: null,
        rackId: null,
        clientId: "old",
        clientHost: "m1",
        subscribedTopicNames: ["T1"],
        subscribedTopicRegex: "",
        rebalanceTimeoutMs: 300000,
        serverAssignor: null,
      },
    });
    storage.append({
      type: RecordType.ConsumerGroupPartitionMetadata,
      key: group,
      value: { topics: [{ topicId: T1.id, topicName: "T1", numPartitions: 90, partitionMetadata: [] }] },
    });
    storage.append({ type: RecordType.ConsumerGroupMetadata, key: group, value: { epoch: 1 } });
    storage.append({
      type: RecordType.ConsumerGroupTargetAssignmentMember,
      key: { groupId: "g", memberId: "m1" },
      value: { topicPartitions: [{ topicId: T1.id, partitions: [0, 1] }] },
    });
    storage.append({ type: RecordType.ConsumerGroupTargetAssignmentMetadata, key: group, value: { assignmentEpoch: 1 } });
    storage.append({
      type: RecordType.ConsumerGroupCurrentMemberAssignment,
      key: { groupId: "g", memberId: "m1" },
      value: {
        memberEpoch: 1,
        previousMemberEpoch: 0,
        state: 99,
        assignedPartitions: [{ topicId: T1.id, partitions: [0, 1] }],
        partitionsPendingRevocation: [],
      },
    });
    const gc = new CoordinatorUnderTest(coordinatorConfig(), storage);
    expect(gc.member("m1").state).toBe("UNKNOWN");
    const response = gc.heartbeat(
      heartbeatRequest({ memberId: "m1", memberEpoch: 1, clientId: "new", topicPartitions: [{ topicId: T1.id, partitions: [0, 1] }] }),
    );
    expect(response.errorCode).toBe(ErrorCode.FENCED_MEMBER_EPOCH);
    expect(gc.storage.length).toBe(6);
    expect(gc.member("m1")).toMatchObject({ state: "UNKNOWN", memberEpoch: 1, clientId: "old" });
    // Dropping everything and rejoining works.
    const rejoin = gc.heartbeat(heartbeatRequest({ memberId: "m1", memberEpoch: 1, topicPartitions: [] }));
    expect(rejoin).toMatchObject({ errorCode: 0, memberEpoch: 1 });
    expect(gc.member("m1").state).toBe("STABLE");
  });
});
