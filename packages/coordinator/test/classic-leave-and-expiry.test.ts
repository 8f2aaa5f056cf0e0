import { ErrorCode, type JoinGroupResponse } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import {
  answer,
  classicConfig,
  classicGroup,
  heartbeatError,
  heartbeatRequest,
  joinDynamic,
  joinRequest,
  leave,
  leaveRequest,
  observed,
  removals,
  send,
  stableGroup,
  timerMs,
} from "./classic-test-kit.js";
import { CoordinatorUnderTest } from "./coordinator-test-kit.js";

const NO_DELAY = { "group.initial.rebalance.delay.ms": 0 };

describe("LeaveGroup", () => {
  it("answers per member, removes valid leavers and rebalances the rest", () => {
    const gc = new CoordinatorUnderTest(classicConfig(NO_DELAY));
    const { ids } = stableGroup(
      gc,
      [
        { client: "a", sessionTimeoutMs: 120_000 },
        { client: "b", sessionTimeoutMs: 120_000 },
        { client: "s", instanceId: "S", sessionTimeoutMs: 120_000 },
      ],
      { a: { T1: [0] }, b: { T1: [1] }, s: { T1: [2] } },
    );
    const a = ids.a ?? "";
    const b = ids.b ?? "";
    const s = ids.s ?? "";
    const response = leave(
      gc,
      leaveRequest([{ memberId: b }, { memberId: "ghost" }, { memberId: a, instanceId: "S" }, { memberId: "", instanceId: "nobody" }]),
    );
    expect(response.errorCode).toBe(0);
    expect(response.members.map((m) => [m.memberId, m.groupInstanceId, m.errorCode])).toEqual([
      [b, null, 0],
      ["ghost", null, ErrorCode.UNKNOWN_MEMBER_ID],
      [a, "S", ErrorCode.FENCED_INSTANCE_ID],
      ["", "nobody", ErrorCode.UNKNOWN_MEMBER_ID],
    ]);
    expect(removals(gc)).toEqual([`${b}:leave`]);
    expect(classicGroup(gc)).toMatchObject({ state: "PREPARING_REBALANCE", generationId: 1 });
    expect(classicGroup(gc).members.map((m) => m.memberId)).toEqual([a, s]);
    expect(timerMs(gc, `heartbeat-g-${b}`)).toBeUndefined();

    // The remaining members rejoin; the phase completes when the last one is in.
    const joinA = joinRequest({ clientId: "a", memberId: a, sessionTimeoutMs: 120_000 });
    gc.send("a", joinA);
    expect(gc.responseTo(joinA.correlationId)).toBeUndefined();
    const joinS = joinRequest({ clientId: "s", memberId: s, instanceId: "S", sessionTimeoutMs: 120_000 });
    gc.send("s", joinS);
    expect(answer<JoinGroupResponse>(gc, joinA)).toMatchObject({ generationId: 2, leader: a });

    // A parked member that leaves gets UNKNOWN_MEMBER_ID for its JoinGroup; the last leaver empties the group.
    expect(leave(gc, leaveRequest([{ memberId: a }, { memberId: s, instanceId: "S" }])).members.map((m) => m.errorCode)).toEqual([0, 0]);
    expect(classicGroup(gc)).toMatchObject({ state: "EMPTY", generationId: 3, members: [], protocolName: null });
    expect(gc.storage.records.at(-1)).toMatchObject({ type: 2, value: { generation: 3, members: [], protocol: null } });
    expect(leave(gc, leaveRequest([{ memberId: a }], "missing")).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it("a pending (KIP-394) member vanishes and lets the join phase complete", () => {
    const gc = new CoordinatorUnderTest(classicConfig(NO_DELAY));
    const { ids } = stableGroup(gc, [{ client: "a", sessionTimeoutMs: 120_000 }], { a: { T1: [0] } });
    const a = ids.a ?? "";
    // A rejoins (leader: rebalance); another member got its id but has not joined yet.
    const pending = send<JoinGroupResponse>(gc, "n", joinRequest({ clientId: "n" }))?.memberId ?? "";
    const joinA = joinRequest({ clientId: "a", memberId: a, sessionTimeoutMs: 120_000 });
    gc.send("a", joinA);
    expect(gc.responseTo(joinA.correlationId)).toBeUndefined(); // waiting for the pending member
    expect(leave(gc, leaveRequest([{ memberId: pending }])).members[0]?.errorCode).toBe(0);
    expect(answer<JoinGroupResponse>(gc, joinA)).toMatchObject({ generationId: 2 });
    expect(removals(gc)).toEqual([]);
  });
});

describe("session expiry", () => {
  it("removes a silent member from STABLE and starts a rebalance", () => {
    const gc = new CoordinatorUnderTest(classicConfig(NO_DELAY));
    const { ids } = stableGroup(
      gc,
      [
        { client: "a", sessionTimeoutMs: 30_000 },
        { client: "b", sessionTimeoutMs: 10_000 },
      ],
      { a: { T1: [0] }, b: { T1: [1] } },
    );
    gc.advanceMs(9999);
    expect(heartbeatError(gc, "a", heartbeatRequest(ids.a ?? "", 1))).toBe(ErrorCode.NONE);
    gc.advanceMs(1);
    expect(removals(gc)).toEqual([`${ids.b}:session-timeout`]);
    expect(observed(gc, "gc.member-removed").at(-1)).toMatchObject({ memberEpoch: 1, instanceId: null });
    expect(classicGroup(gc)).toMatchObject({ state: "PREPARING_REBALANCE", members: [{ memberId: ids.a }] });
    expect(heartbeatError(gc, "a", heartbeatRequest(ids.a ?? "", 1))).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
  });

  it("ignores the expiry of an existing member parked in its JoinGroup", () => {
    const gc = new CoordinatorUnderTest(classicConfig(NO_DELAY));
    const long = { sessionTimeoutMs: 6000, rebalanceTimeoutMs: 30_000 };
    const { ids } = stableGroup(
      gc,
      [
        { client: "a", ...long },
        { client: "s", instanceId: "S", sessionTimeoutMs: 60_000, rebalanceTimeoutMs: 30_000 },
      ],
      { a: { T1: [0] } },
    );
    const joinA = joinRequest({ clientId: "a", memberId: ids.a ?? "", ...long });
    gc.send("a", joinA); // parked: S has not rejoined
    gc.advanceMs(20_000);
    expect(removals(gc)).toEqual([]);
    expect(gc.responseTo(joinA.correlationId)).toBeUndefined();
    gc.advanceMs(10_000); // the join deadline: S (static) stays, A continues at generation 2
    expect(answer<JoinGroupResponse>(gc, joinA)).toMatchObject({ generationId: 2 });
  });

  it("a dynamic member that asked for an id but never joins leaves no trace", () => {
    const gc = new CoordinatorUnderTest(classicConfig(NO_DELAY));
    const { memberId } = joinDynamic(gc, "a", { sessionTimeoutMs: 6000 });
    gc.advance(0);
    expect(classicGroup(gc)).toMatchObject({ state: "COMPLETING_REBALANCE", members: [{ memberId }] });
    // It never syncs nor heartbeats: its session expires in COMPLETING and the group empties.
    gc.advanceMs(6000);
    expect(removals(gc)).toEqual([`${memberId}:session-timeout`]);
    expect(classicGroup(gc)).toMatchObject({ state: "EMPTY", generationId: 2 });
  });
});
