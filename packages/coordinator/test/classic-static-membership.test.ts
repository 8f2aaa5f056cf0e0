import { decodeAssignment, ErrorCode, type JoinGroupResponse, type SyncGroupResponse } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { RecordType } from "../src/index.js";
import {
  answer,
  classicConfig,
  classicGroup,
  commitErrors,
  commitRequest,
  heartbeatError,
  heartbeatRequest,
  joinRequest,
  joinStatic,
  observed,
  removals,
  send,
  stableGroup,
  syncRequest,
} from "./classic-test-kit.js";
import { CoordinatorUnderTest } from "./coordinator-test-kit.js";

const NO_DELAY = { "group.initial.rebalance.delay.ms": 0 };

function staticGroup(gc: CoordinatorUnderTest): { a: string; b: string } {
  const { ids } = stableGroup(
    gc,
    [
      { client: "a", instanceId: "A" },
      { client: "b", instanceId: "B" },
    ],
    { a: { T1: [0, 1] }, b: { T1: [2, 3] } },
  );
  return { a: ids.a ?? "", b: ids.b ?? "" };
}

describe("static membership (KIP-345)", () => {
  it("a follower restarting in STABLE takes over its assignment without a rebalance; the old id is fenced", () => {
    const gc = new CoordinatorUnderTest(classicConfig(NO_DELAY));
    const { a, b } = staticGroup(gc);
    const groupsBefore = observed(gc, "gc.group").length;
    const recordsBefore = gc.storage.length;

    const restart = joinStatic(gc, "b2", "B");
    const response = answer<JoinGroupResponse>(gc, restart);
    const newB = response.memberId;
    expect(newB).toMatch(/^B-/);
    expect(newB).not.toBe(b);
    expect(response).toMatchObject({ errorCode: 0, generationId: 1, leader: a, skipAssignment: false, members: [], protocolName: "range" });
    expect(classicGroup(gc)).toMatchObject({ state: "STABLE", generationId: 1 });
    expect(classicGroup(gc).members.map((m) => m.memberId)).toEqual([a, newB]);
    // No generation change, no state change: no gc.group; the GroupMetadata record is rewritten with the new id.
    expect(observed(gc, "gc.group")).toHaveLength(groupsBefore);
    expect(gc.storage.length).toBe(recordsBefore + 1);
    const record = gc.storage.records.at(-1) as { type: number; value: { generation: number; members: { memberId: string }[] } };
    expect(record.type).toBe(RecordType.GroupMetadata);
    expect(record.value.members.map((m) => m.memberId)).toEqual([a, newB]);
    expect(removals(gc)).toEqual([`${b}:static-replaced`]);
    expect(observed(gc, "gc.member").at(-1)).toMatchObject({ memberId: newB, instanceId: "B", memberEpoch: 1, assigned: { T1: [2, 3] } });

    // The new id syncs and gets the old assignment back.
    const sync = syncRequest(newB, 1, {}, { groupInstanceId: "B" });
    gc.send("b2", sync);
    expect(decodeAssignment(answer<SyncGroupResponse>(gc, sync).assignment).assignedPartitions).toEqual([
      { topic: "T1", partitions: [2, 3] },
    ]);
    // The old id is fenced everywhere.
    expect(heartbeatError(gc, "b", heartbeatRequest(b, 1, { groupInstanceId: "B" }))).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect(commitErrors(gc, "b", commitRequest(b, 1, { groupInstanceId: "B" }))).toEqual([ErrorCode.FENCED_INSTANCE_ID]);
    expect(send<JoinGroupResponse>(gc, "b", joinRequest({ clientId: "b", memberId: b, instanceId: "B" }))).toMatchObject({
      errorCode: ErrorCode.FENCED_INSTANCE_ID,
    });
    expect(heartbeatError(gc, "b2", heartbeatRequest(newB, 1, { groupInstanceId: "B" }))).toBe(ErrorCode.NONE);
  });

  it("a restarting leader gets SkipAssignment=true with the member list (v9); before v9 it is told the old leader", () => {
    const gc = new CoordinatorUnderTest(classicConfig(NO_DELAY));
    const { a, b } = staticGroup(gc);
    const restart = joinStatic(gc, "a2", "A");
    const response = answer<JoinGroupResponse>(gc, restart);
    expect(response).toMatchObject({ generationId: 1, leader: response.memberId, skipAssignment: true });
    expect(response.members.map((m) => m.memberId)).toEqual([b, response.memberId]);
    expect(classicGroup(gc)).toMatchObject({ state: "STABLE", leader: response.memberId });

    const older = joinStatic(gc, "a3", "A", { apiVersion: 8 });
    const legacy = answer<JoinGroupResponse>(gc, older);
    expect(legacy).toMatchObject({ generationId: 1, leader: response.memberId, skipAssignment: false, members: [] });
    expect(classicGroup(gc).leader).toBe(legacy.memberId);
    expect(removals(gc)).toEqual([`${a}:static-replaced`, `${response.memberId}:static-replaced`]);
  });

  it("a restart that changes the selected protocol rebalances", () => {
    const gc = new CoordinatorUnderTest(classicConfig(NO_DELAY));
    const { ids } = stableGroup(gc, [{ client: "a", instanceId: "A", protocols: ["range", "roundrobin"] }], { a: { T1: [0] } });
    const restart = joinStatic(gc, "a2", "A", { protocols: ["roundrobin"] });
    gc.advance(0);
    expect(answer<JoinGroupResponse>(gc, restart)).toMatchObject({ generationId: 2, protocolName: "roundrobin" });
    expect(removals(gc)).toEqual([`${ids.a}:static-replaced`]);
  });

  it("in COMPLETING_REBALANCE a restart forces a rebalance and fences the old id's parked SyncGroup", () => {
    const gc = new CoordinatorUnderTest(classicConfig(NO_DELAY));
    const joinA = joinStatic(gc, "a", "A", { sessionTimeoutMs: 120_000 });
    const joinB = joinStatic(gc, "b", "B", { sessionTimeoutMs: 120_000 });
    gc.advance(0);
    const a = answer<JoinGroupResponse>(gc, joinA).memberId;
    const b = answer<JoinGroupResponse>(gc, joinB).memberId;
    const parked = syncRequest(b, 1, {}, { groupInstanceId: "B" });
    gc.send("b", parked);
    const restart = joinStatic(gc, "b2", "B", { sessionTimeoutMs: 120_000 });
    expect(answer<SyncGroupResponse>(gc, parked).errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect(classicGroup(gc)).toMatchObject({ state: "PREPARING_REBALANCE", generationId: 1 });
    // A rejoins; the phase completes at generation 2 with the new id.
    gc.send("a", joinRequest({ clientId: "a", memberId: a, instanceId: "A", sessionTimeoutMs: 120_000 }));
    const response = answer<JoinGroupResponse>(gc, restart);
    expect(response).toMatchObject({ generationId: 2, leader: a });
    expect(classicGroup(gc).members.map((m) => m.instanceId)).toEqual(["A", "B"]);
  });

  it("a static member is not removed by the join deadline, only by its session or an admin LeaveGroup", () => {
    const gc = new CoordinatorUnderTest(classicConfig(NO_DELAY));
    const { a, b } = staticGroup(gc);
    const admin = {
      type: "LeaveGroupRequest" as const,
      correlationId: 99,
      apiVersion: 5,
      clientId: "admin",
      groupId: "g",
      members: [{ memberId: "", groupInstanceId: "B", reason: "admin" }],
    };
    gc.send("admin", admin);
    expect(gc.responseTo(99)).toMatchObject({ errorCode: 0, members: [{ memberId: "", groupInstanceId: "B", errorCode: 0 }] });
    expect(removals(gc)).toEqual([`${b}:leave`]);
    expect(classicGroup(gc)).toMatchObject({ state: "PREPARING_REBALANCE", members: [{ memberId: a }] });
  });
});
