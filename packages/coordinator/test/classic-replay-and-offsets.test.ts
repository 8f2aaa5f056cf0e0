import { decodeAssignment, ErrorCode, type JoinGroupResponse, type SyncGroupResponse } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import {
  answer,
  assignment,
  classicConfig,
  classicGroup,
  commitErrors,
  commitRequest,
  heartbeatError,
  heartbeatRequest,
  joinRequest,
  joinStatic,
  leave,
  leaveRequest,
  observed,
  stableGroup,
  syncRequest,
  timerMs,
} from "./classic-test-kit.js";
import { CoordinatorUnderTest, coordinatorConfig, T1, T2 } from "./coordinator-test-kit.js";

const NO_DELAY = { "group.initial.rebalance.delay.ms": 0 };

describe("GroupMetadata records and replay", () => {
  it("a restarted coordinator resumes a STABLE classic group at the same generation", () => {
    const gc = new CoordinatorUnderTest(classicConfig(NO_DELAY));
    const { ids, leader } = stableGroup(
      gc,
      [
        { client: "a", sessionTimeoutMs: 20_000 },
        { client: "b", instanceId: "B", protocols: ["range", "roundrobin"] },
      ],
      { a: { T1: [0, 1] }, b: { T1: [2], T2: [0] } },
    );
    const a = ids.a ?? "";
    const b = ids.b ?? "";
    gc.restart();
    expect(classicGroup(gc)).toMatchObject({
      state: "STABLE",
      generationId: 1,
      protocolType: "consumer",
      protocolName: "range",
      leader,
      pendingSyncMembers: [],
    });
    expect(classicGroup(gc).members.map((m) => [m.memberId, m.instanceId, m.protocols, m.sessionTimeoutMs, m.assigned])).toEqual([
      [a, null, ["range"], 20_000, { T1: [0, 1] }],
      [b, "B", ["range"], 10_000, { T1: [2], T2: [0] }],
    ]);
    // Timers re-armed with full durations; the load is reported with the group and its members.
    expect(timerMs(gc, `heartbeat-g-${a}`)).toBe(20_000);
    expect(timerMs(gc, `heartbeat-g-${b}`)).toBe(10_000);
    expect(gc.ctx.observed.map((o) => o.type)).toEqual(["gc.loaded", "gc.group", "gc.member", "gc.member"]);
    expect(observed(gc, "gc.group")[0]).toMatchObject({
      protocol: "classic",
      groupEpoch: 1,
      assignmentEpoch: 1,
      state: "STABLE",
      members: 2,
    });
    // Members carry on at generation 1.
    expect(heartbeatError(gc, "a", heartbeatRequest(a, 1))).toBe(ErrorCode.NONE);
    const sync = syncRequest(b, 1, {}, { groupInstanceId: "B" });
    gc.send("b", sync);
    expect(decodeAssignment(answer<SyncGroupResponse>(gc, sync).assignment).assignedPartitions).toEqual([
      { topic: "T1", partitions: [2] },
      { topic: "T2", partitions: [0] },
    ]);
    // A follower's unchanged rejoin keeps the generation (its subscription is the stored one).
    const rejoin = joinRequest({ clientId: "b", memberId: b, instanceId: "B", protocols: ["range"] });
    gc.send("b", rejoin);
    expect(answer<JoinGroupResponse>(gc, rejoin)).toMatchObject({ generationId: 1, leader });
  });

  it("a group that was rebalancing comes back at its last stored generation; an emptied group comes back EMPTY", () => {
    const gc = new CoordinatorUnderTest(classicConfig(NO_DELAY));
    const { ids } = stableGroup(gc, [{ client: "a", instanceId: "A" }], { a: { T1: [0] } });
    const a = ids.a ?? "";
    gc.send("a", joinRequest({ clientId: "a", memberId: a, instanceId: "A", topics: ["T1", "T2"] }));
    expect(classicGroup(gc)).toMatchObject({ state: "COMPLETING_REBALANCE", generationId: 2 });
    gc.restart();
    expect(classicGroup(gc)).toMatchObject({ state: "STABLE", generationId: 1 });
    expect(heartbeatError(gc, "a", heartbeatRequest(a, 2, { groupInstanceId: "A" }))).toBe(ErrorCode.ILLEGAL_GENERATION);

    leave(gc, leaveRequest([{ memberId: a, instanceId: "A" }]));
    expect(classicGroup(gc)).toMatchObject({ state: "EMPTY", generationId: 2 });
    gc.restart();
    expect(classicGroup(gc)).toMatchObject({ state: "EMPTY", generationId: 2, members: [], protocolType: "consumer" });
  });

  it("answers after the batch is flushed, and a crash before the flush loses the join phase", () => {
    const gc = new CoordinatorUnderTest(
      coordinatorConfig({ broker: { ...NO_DELAY, "group.coordinator.append.linger.ms": 10 }, topics: [T1, T2] }),
    );
    const join = joinStatic(gc, "a", "A");
    expect(gc.responseTo(join.correlationId)).toBeUndefined(); // the new group's record is in the open batch
    gc.advance(0);
    expect(gc.responseTo(join.correlationId)).toBeUndefined();
    gc.advanceMs(10);
    const memberId = answer<JoinGroupResponse>(gc, join).memberId;
    const sync = syncRequest(memberId, 1, { [memberId]: assignment({ T1: [0] }) }, { groupInstanceId: "A" });
    gc.send("a", sync);
    expect(gc.responseTo(sync.correlationId)).toBeUndefined();
    gc.restart(); // the open batch (the GroupMetadata of generation 1) is lost with the answer
    expect(classicGroup(gc)).toMatchObject({ state: "EMPTY", generationId: 0 });
  });
});

describe("OffsetCommit for classic groups", () => {
  it("checks the member and the exact generation; rejects commits while COMPLETING", () => {
    const gc = new CoordinatorUnderTest(classicConfig(NO_DELAY));
    // An empty group (a group created by a JoinGroup) takes commits outside group management.
    gc.send("c", joinRequest({ clientId: "c" }));
    expect(commitErrors(gc, "admin", commitRequest("", -1))).toEqual([0]);

    const joinA = joinStatic(gc, "a", "A", { sessionTimeoutMs: 120_000 });
    const joinB = joinStatic(gc, "b", "B", { sessionTimeoutMs: 120_000 });
    gc.advance(0);
    const a = answer<JoinGroupResponse>(gc, joinA).memberId;
    const b = answer<JoinGroupResponse>(gc, joinB).memberId;
    // COMPLETING_REBALANCE: the committer knows the generation but has no assignment yet.
    expect(commitErrors(gc, "a", commitRequest(a, 1, { groupInstanceId: "A" }))).toEqual([ErrorCode.REBALANCE_IN_PROGRESS]);
    gc.send("b", syncRequest(b, 1, {}, { groupInstanceId: "B" }));
    gc.send("a", syncRequest(a, 1, { [a]: assignment({ T1: [0] }), [b]: assignment({ T1: [1] }) }, { groupInstanceId: "A" }));
    expect(commitErrors(gc, "a", commitRequest(a, 1, { groupInstanceId: "A" }))).toEqual([0]);
    expect(commitErrors(gc, "a", commitRequest(a, 0, { groupInstanceId: "A" }))).toEqual([ErrorCode.ILLEGAL_GENERATION]);
    expect(commitErrors(gc, "x", commitRequest("ghost", 1))).toEqual([ErrorCode.UNKNOWN_MEMBER_ID]);
    expect(commitErrors(gc, "b", commitRequest(b, 1, { groupInstanceId: "A" }))).toEqual([ErrorCode.FENCED_INSTANCE_ID]);
    // No member, no generation, a non-empty group: refused.
    expect(commitErrors(gc, "admin", commitRequest("", -1))).toEqual([ErrorCode.UNKNOWN_MEMBER_ID]);
    // PREPARING: the current generation may still commit (eager clients commit before rejoining).
    gc.send("b", joinRequest({ clientId: "b", memberId: b, instanceId: "B", topics: ["T2"], sessionTimeoutMs: 120_000 }));
    expect(classicGroup(gc).state).toBe("PREPARING_REBALANCE");
    expect(commitErrors(gc, "a", commitRequest(a, 1, { groupInstanceId: "A" }))).toEqual([0]);
    expect(gc.ctx.committedPartitions().map((o) => [o.memberId, o.epoch, o.errorCode])).toEqual([
      ["", -1, 0],
      [a, 1, ErrorCode.REBALANCE_IN_PROGRESS],
      [a, 1, 0],
      [a, 0, ErrorCode.ILLEGAL_GENERATION],
      ["ghost", 1, ErrorCode.UNKNOWN_MEMBER_ID],
      [b, 1, ErrorCode.FENCED_INSTANCE_ID],
      ["", -1, ErrorCode.UNKNOWN_MEMBER_ID],
      [a, 1, 0],
    ]);
    expect(classicGroup(gc).offsets).toEqual({ T1: { "0": 10 } });
  });
});
