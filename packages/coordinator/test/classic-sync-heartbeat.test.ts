import { decodeAssignment, ErrorCode, type JoinGroupResponse, type SyncGroupResponse } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { RecordType } from "../src/index.js";
import {
  answer,
  assignment,
  classicConfig,
  classicGroup,
  heartbeatError,
  heartbeatRequest,
  joinRequest,
  joinStatic,
  observed,
  removals,
  stableGroup,
  syncAnswer,
  syncRequest,
  timerMs,
} from "./classic-test-kit.js";
import { CoordinatorUnderTest, coordinatorConfig, T1, T2 } from "./coordinator-test-kit.js";

const NO_DELAY = { "group.initial.rebalance.delay.ms": 0 };

/** Two static members A and B joined at generation 1, COMPLETING_REBALANCE. */
function completingGroup(gc: CoordinatorUnderTest): { a: string; b: string } {
  const a = joinStatic(gc, "a", "A");
  const b = joinStatic(gc, "b", "B");
  gc.advance(0);
  return { a: answer<JoinGroupResponse>(gc, a).memberId, b: answer<JoinGroupResponse>(gc, b).memberId };
}

describe("SyncGroup", () => {
  it("parks followers until the leader's assignment; members it left out get an empty assignment", () => {
    const gc = new CoordinatorUnderTest(classicConfig(NO_DELAY));
    const { a, b } = completingGroup(gc);
    expect(classicGroup(gc).pendingSyncMembers).toEqual([a, b]);
    const follower = syncRequest(b, 1, {}, { groupInstanceId: "B" });
    gc.send("b", follower);
    expect(syncAnswer(gc, follower)).toBeUndefined();
    expect(classicGroup(gc)).toMatchObject({ state: "COMPLETING_REBALANCE", pendingSyncMembers: [a] });

    const leaderSync = syncRequest(a, 1, { [a]: assignment({ T1: [0, 1, 2] }) }, { groupInstanceId: "A" });
    gc.send("a", leaderSync);
    expect(answer<SyncGroupResponse>(gc, leaderSync)).toMatchObject({ errorCode: 0, protocolType: "consumer", protocolName: "range" });
    expect(decodeAssignment(answer<SyncGroupResponse>(gc, leaderSync).assignment).assignedPartitions).toEqual([
      { topic: "T1", partitions: [0, 1, 2] },
    ]);
    expect(answer<SyncGroupResponse>(gc, follower)).toMatchObject({ errorCode: 0 });
    expect(answer<SyncGroupResponse>(gc, follower).assignment).toHaveLength(0);
    expect(classicGroup(gc)).toMatchObject({ state: "STABLE", generationId: 1, pendingSyncMembers: [] });
    expect(timerMs(gc, "sync-g")).toBeUndefined();

    // The GroupMetadata record holds both members, the filled-in empty assignment included.
    const record = gc.storage.records.at(-1) as {
      type: number;
      value: { generation: number; leader: string; members: { memberId: string }[] };
    };
    expect(record).toMatchObject({ type: RecordType.GroupMetadata, value: { generation: 1, leader: a, protocol: "range" } });
    expect(record.value.members.map((m) => m.memberId)).toEqual([a, b]);

    // Observations: one gc.target (3 partitions moved to A), a gc.member per member.
    expect(observed(gc, "gc.target")).toEqual([
      { type: "gc.target", groupId: "g", assignmentEpoch: 1, assignor: "range", members: 2, moved: 3 },
    ]);
    expect(observed(gc, "gc.member").map((o) => [o.memberId, o.memberEpoch, o.state, o.assigned])).toEqual([
      [a, 1, "STABLE", { T1: [0, 1, 2] }],
      [b, 1, "STABLE", {}],
    ]);

    // STABLE: a SyncGroup gets the stored assignment back.
    const again = syncRequest(a, 1, {}, { groupInstanceId: "A" });
    gc.send("a", again);
    expect(decodeAssignment(answer<SyncGroupResponse>(gc, again).assignment).assignedPartitions).toEqual([
      { topic: "T1", partitions: [0, 1, 2] },
    ]);
  });

  it("answers each check: unknown group/member, fenced instance, generation, protocol, rebalance in progress", () => {
    const gc = new CoordinatorUnderTest(classicConfig(NO_DELAY));
    const sync = (fields: Parameters<typeof syncRequest>[3], memberId: string, generation = 1) => {
      const request = syncRequest(memberId, generation, {}, fields);
      gc.send("x", request);
      return answer<SyncGroupResponse>(gc, request).errorCode;
    };
    expect(sync({ groupId: "none" }, "x")).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    const { a, b } = completingGroup(gc);
    expect(sync({}, "ghost")).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(sync({ groupInstanceId: "A" }, b)).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect(sync({ groupInstanceId: "A" }, a, 0)).toBe(ErrorCode.ILLEGAL_GENERATION);
    expect(sync({ groupInstanceId: "A", protocolName: "roundrobin" }, a)).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    expect(sync({ groupInstanceId: "A", protocolType: "connect" }, a)).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    // A metadata change by B starts a new rebalance: SyncGroup in PREPARING is REBALANCE_IN_PROGRESS.
    gc.send("b", joinRequest({ clientId: "b", memberId: b, instanceId: "B", topics: ["T2"] }));
    expect(sync({ groupInstanceId: "A" }, a)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
  });

  it("a rebalance interrupting COMPLETING answers the parked SyncGroups with REBALANCE_IN_PROGRESS", () => {
    const gc = new CoordinatorUnderTest(classicConfig(NO_DELAY));
    const { a, b } = completingGroup(gc);
    const parked = syncRequest(b, 1, {}, { groupInstanceId: "B" });
    gc.send("b", parked);
    gc.send("a", joinRequest({ clientId: "a", memberId: a, instanceId: "A", topics: ["T1", "T2"] }));
    expect(answer<SyncGroupResponse>(gc, parked)).toMatchObject({ errorCode: ErrorCode.REBALANCE_IN_PROGRESS, protocolName: null });
    expect(classicGroup(gc).state).toBe("PREPARING_REBALANCE");
  });

  it("the sync deadline removes members that never synced and starts a new rebalance", () => {
    const gc = new CoordinatorUnderTest(classicConfig(NO_DELAY));
    const { a, b } = completingGroup(gc);
    const leaderSync = syncRequest(a, 1, { [a]: assignment({ T1: [0] }), [b]: assignment({ T1: [1] }) }, { groupInstanceId: "A" });
    gc.send("a", leaderSync);
    expect(classicGroup(gc)).toMatchObject({ state: "STABLE", pendingSyncMembers: [b] });
    expect(timerMs(gc, "sync-g")).toBe(60_000);
    // Both keep heartbeating; B never syncs.
    for (let t = 0; t < 60_000; t += 5000) {
      gc.advanceMs(5000);
      gc.send("a", heartbeatRequest(a, 1, { groupInstanceId: "A" }));
      gc.send("b", heartbeatRequest(b, 1, { groupInstanceId: "B" }));
    }
    expect(removals(gc)).toEqual([`${b}:sync-timeout`]);
    expect(classicGroup(gc)).toMatchObject({ state: "PREPARING_REBALANCE", generationId: 1, members: [{ memberId: a }] });
  });
});

describe("Heartbeat", () => {
  it("answers per state: PREPARING REBALANCE_IN_PROGRESS (session extended), COMPLETING and STABLE NONE, EMPTY UNKNOWN_MEMBER_ID", () => {
    const gc = new CoordinatorUnderTest(classicConfig(NO_DELAY));
    expect(heartbeatError(gc, "x", heartbeatRequest("x", 1, { groupId: "none" }))).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    const { a, b } = completingGroup(gc);
    const beat = (memberId: string, generation: number, instanceId: string | null) =>
      heartbeatError(gc, memberId, heartbeatRequest(memberId, generation, { groupInstanceId: instanceId }));
    // COMPLETING: NONE (members heartbeat right after their JoinGroup answer).
    expect(beat(a, 1, "A")).toBe(ErrorCode.NONE);
    expect(beat(a, 0, "A")).toBe(ErrorCode.ILLEGAL_GENERATION);
    expect(beat("ghost", 1, null)).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(beat(b, 1, "A")).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect(beat(a, 1, "Z")).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    gc.send("a", syncRequest(a, 1, { [a]: assignment({ T1: [0] }) }, { groupInstanceId: "A" }));
    gc.send("b", syncRequest(b, 1, {}, { groupInstanceId: "B" }));
    expect(beat(b, 1, "B")).toBe(ErrorCode.NONE); // STABLE
    // PREPARING: B changes its subscription.
    gc.send("b", joinRequest({ clientId: "b", memberId: b, instanceId: "B", topics: ["T2"] }));
    gc.advanceMs(9000);
    expect(beat(a, 1, "A")).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    expect(timerMs(gc, `heartbeat-g-${a}`)).toBe(10_000);
    // EMPTY: both leave; a heartbeat of a former member is UNKNOWN_MEMBER_ID.
    gc.send("a", {
      type: "LeaveGroupRequest",
      correlationId: 7,
      apiVersion: 5,
      clientId: "a",
      groupId: "g",
      members: [
        { memberId: a, groupInstanceId: "A", reason: null },
        { memberId: b, groupInstanceId: "B", reason: null },
      ],
    });
    expect(classicGroup(gc)).toMatchObject({ state: "EMPTY", generationId: 2, members: [] });
    expect(beat(a, 2, null)).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it("answers NONE while the coordinator loads; INVALID_GROUP_ID for a blank group", () => {
    const gc = new CoordinatorUnderTest(coordinatorConfig({ loadMs: 50, topics: [T1, T2] }));
    expect(heartbeatError(gc, "x", heartbeatRequest("x", 3))).toBe(ErrorCode.NONE);
    gc.advanceMs(50);
    expect(heartbeatError(gc, "x", heartbeatRequest("x", 3))).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(heartbeatError(gc, "x", heartbeatRequest("x", 3, { groupId: "" }))).toBe(ErrorCode.INVALID_GROUP_ID);
  });

  it("the classic APIs are UNSUPPORTED_VERSION when group.coordinator.rebalance.protocols leaves out classic", () => {
    const gc = new CoordinatorUnderTest(classicConfig({ "group.coordinator.rebalance.protocols": ["consumer"] }));
    const join = joinRequest();
    gc.send("c", join);
    expect(answer<JoinGroupResponse>(gc, join).errorCode).toBe(ErrorCode.UNSUPPORTED_VERSION);
    expect(heartbeatError(gc, "x", heartbeatRequest("x", 1))).toBe(ErrorCode.UNSUPPORTED_VERSION);
  });
});

describe("generations", () => {
  it("each rebalance moves the generation on and reports what moved", () => {
    const gc = new CoordinatorUnderTest(classicConfig(NO_DELAY));
    const long = { sessionTimeoutMs: 120_000 };
    const { ids } = stableGroup(
      gc,
      [
        { client: "a", instanceId: "A", ...long },
        { client: "b", instanceId: "B", ...long },
      ],
      { a: { T1: [0, 1] }, b: { T1: [2, 3] } },
    );
    const a = ids.a ?? "";
    const b = ids.b ?? "";
    // The leader rejoins (a rebalance); B rejoins too; the leader moves partition 1 to B.
    const joinA = joinRequest({ clientId: "a", memberId: a, instanceId: "A", ...long });
    const joinB = joinRequest({ clientId: "b", memberId: b, instanceId: "B", ...long });
    gc.send("a", joinA);
    gc.send("b", joinB);
    expect(answer<JoinGroupResponse>(gc, joinA)).toMatchObject({ generationId: 2, leader: a });
    gc.send("b", syncRequest(b, 2, {}, { groupInstanceId: "B" }));
    gc.send("a", syncRequest(a, 2, { [a]: assignment({ T1: [0] }), [b]: assignment({ T1: [1, 2, 3] }) }, { groupInstanceId: "A" }));
    expect(observed(gc, "gc.target").map((o) => [o.assignmentEpoch, o.moved])).toEqual([
      [1, 4],
      [2, 1],
    ]);
    expect(observed(gc, "gc.member").at(-1)).toMatchObject({
      memberId: b,
      memberEpoch: 2,
      previousMemberEpoch: 1,
      assigned: { T1: [1, 2, 3] },
    });
    expect(observed(gc, "gc.group").at(-1)).toMatchObject({
      protocol: "classic",
      groupEpoch: 2,
      assignmentEpoch: 2,
      state: "STABLE",
      members: 2,
    });
  });
});
