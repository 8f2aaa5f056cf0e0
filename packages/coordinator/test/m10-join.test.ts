import type { ConsumerGroupHeartbeatResponse } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import {
  CoordinatorUnderTest,
  converge,
  coordinatorConfig,
  countOf,
  doubleHeld,
  epochViolations,
  revokeBeforeReassignViolations,
  SimulatedMember,
  T1,
} from "./coordinator-test-kit.js";

describe("the M10 join story: nine members with ten partitions each, a tenth joins", () => {
  it("old owners revoke first; the newcomer waits UNRELEASED and gets each partition once its owner let go", () => {
    const gc = new CoordinatorUnderTest();
    const members = Array.from({ length: 9 }, (_, i) => new SimulatedMember(`m${i + 1}`));
    for (const member of members) converge(gc, members.slice(0, members.indexOf(member) + 1));
    const before = gc.group();
    expect(before).toMatchObject({ groupEpoch: 9, assignmentEpoch: 9, state: "STABLE" });
    for (const member of before.members) expect(member.assigned.T1).toHaveLength(10);
    const oldOwner = new Map<string, string>();
    for (const member of before.members) for (const p of member.assigned.T1 ?? []) oldOwner.set(`T1-${p}`, member.memberId);

    // The newcomer joins: a new epoch, a new target, and nothing it can have yet.
    const m10 = new SimulatedMember("m10");
    const join = m10.heartbeat(gc);
    expect(join).toMatchObject({ errorCode: 0, memberEpoch: 10, assignment: { topicPartitions: [] } });
    expect(gc.member("m10")).toMatchObject({ state: "UNRELEASED_PARTITIONS", memberEpoch: 10, assigned: {} });
    expect(gc.member("m10").target.T1).toHaveLength(9);
    expect(gc.group()).toMatchObject({ groupEpoch: 10, assignmentEpoch: 10, state: "RECONCILING" });
    expect(gc.ctx.observationsOf("gc.target").at(-1)).toMatchObject({ assignmentEpoch: 10, members: 10, moved: 9 });
    const wanted = (gc.member("m10").target.T1 ?? []).map((p) => `T1-${p}`);

    // Every old owner learns of the new target on its own next heartbeat: it must revoke one partition first.
    for (const member of members) {
      const response = member.heartbeat(gc);
      expect(response.memberEpoch).toBe(9);
      expect(countOf(response.assignment?.topicPartitions)).toBe(9);
      expect(gc.member(member.memberId)).toMatchObject({ state: "UNREVOKED_PARTITIONS", memberEpoch: 9 });
      expect(Object.values(gc.member(member.memberId).pendingRevocation).flat()).toHaveLength(1);
      expect(gc.ctx.hasTimer(`rebalance-timeout-g-${member.memberId}`)).toBe(true);
    }
    // Nothing is free yet: the newcomer still waits.
    expect(m10.heartbeat(gc).assignment).toBeNull();
    expect(gc.member("m10").assigned).toEqual({});

    // Owners acknowledge one by one; after each, the newcomer gets exactly the released partition.
    const released = new Set<string>();
    for (const member of members) {
      const revoked = Object.values(gc.member(member.memberId).pendingRevocation)
        .flat()
        .map((p) => `T1-${p}`);
      const ack = member.heartbeat(gc);
      expect(ack.memberEpoch).toBe(10);
      expect(gc.member(member.memberId)).toMatchObject({ state: "STABLE", pendingRevocation: {} });
      expect(gc.ctx.hasTimer(`rebalance-timeout-g-${member.memberId}`)).toBe(false);
      for (const partition of revoked) released.add(partition);
      const response = m10.heartbeat(gc);
      const got = new Set((gc.member("m10").assigned.T1 ?? []).map((p) => `T1-${p}`));
      expect(got).toEqual(new Set(wanted.filter((p) => released.has(p))));
      expect(countOf(response.assignment?.topicPartitions)).toBe(got.size);
      for (const partition of got) expect(released.has(partition), `${partition} of ${oldOwner.get(partition)}`).toBe(true);
      expect(doubleHeld(gc.group())).toEqual([]);
    }
    expect(gc.member("m10")).toMatchObject({ state: "STABLE", memberEpoch: 10 });
    expect(gc.member("m10").assigned.T1).toHaveLength(9);
    expect(gc.group()).toMatchObject({ groupEpoch: 10, assignmentEpoch: 10, state: "STABLE" });
    expect(revokeBeforeReassignViolations(gc.ctx.observed)).toEqual([]);
    expect(epochViolations(gc.ctx.observed)).toEqual([]);
  });
});

describe("a large group", () => {
  it("200 members joining ten at a time over 2,000 partitions converge with batched appends", () => {
    const gc = new CoordinatorUnderTest(
      coordinatorConfig({ topics: [{ ...T1, partitions: 2000 }], broker: { "group.coordinator.append.linger.ms": 10 } }),
    );
    const members: SimulatedMember[] = [];
    const inFlight = new Map<number, SimulatedMember>();
    let stableAt = -1;
    for (let round = 0; round < 200 && stableAt < 0; round++) {
      for (let k = 0; k < 10 && members.length < 200; k++) members.push(new SimulatedMember(`member-${members.length}`));
      for (const member of members) {
        const request = member.request();
        gc.send(member.memberId, request);
        inFlight.set(request.correlationId, member);
      }
      gc.advanceMs(10); // the batch flushes: every response of the round goes out
      for (const [correlationId, member] of inFlight) {
        const response = gc.responseTo<ConsumerGroupHeartbeatResponse>(correlationId);
        if (response === undefined) throw new Error(`no response to ${correlationId}`);
        member.onResponse(response);
      }
      inFlight.clear();
      gc.ctx.sent.length = 0;
      if (members.length === 200 && gc.group().state === "STABLE") stableAt = round;
    }
    expect(stableAt).toBeGreaterThan(0);
    const group = gc.group();
    expect(group.groupEpoch).toBe(200);
    expect(doubleHeld(group)).toEqual([]);
    for (const member of group.members) expect(member.assigned.T1).toHaveLength(10);
    expect(revokeBeforeReassignViolations(gc.ctx.observed)).toEqual([]);
    expect(epochViolations(gc.ctx.observed)).toEqual([]);
  });
});
