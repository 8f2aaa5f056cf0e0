import { decodeAssignment, ErrorCode, type JoinGroupResponse, type OffsetFetchResponse, type SyncGroupResponse } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { RecordType } from "../src/index.js";
import {
  answer,
  assignment,
  classicConfig,
  classicGroup,
  commitErrors,
  commitRequest,
  heartbeatError,
  heartbeatRequest,
  joinDynamic,
  joinRequest,
  joinStatic,
  leave,
  leaveRequest,
  removals,
  send,
  stableGroup,
  syncRequest,
  timerMs,
} from "./classic-test-kit.js";
import {
  CoordinatorUnderTest,
  heartbeatRequest as consumerHeartbeat,
  joinRequest as consumerJoin,
  type GroupView,
  SimulatedMember,
} from "./coordinator-test-kit.js";

const NO_DELAY = { "group.initial.rebalance.delay.ms": 0 };

const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, i) => from + i);

/** A STABLE classic group: A (dynamic, leader) owns T1 0-44, B (static) owns T1 45-89. */
function classicStableGroup(gc: CoordinatorUnderTest): { a: string; b: string } {
  const { ids } = stableGroup(
    gc,
    [
      { client: "a", sessionTimeoutMs: 20_000 },
      { client: "b", instanceId: "B", sessionTimeoutMs: 30_000 },
    ],
    { a: { T1: range(0, 45) }, b: { T1: range(45, 90) } },
  );
  return { a: ids.a ?? "", b: ids.b ?? "" };
}

function consumerGroupView(gc: CoordinatorUnderTest): GroupView {
  return gc.group();
}

/** A classic member (re)joins a consumer group and syncs; returns its JoinGroup and SyncGroup answers. */
function classicRound(
  gc: CoordinatorUnderTest,
  client: string,
  memberId: string,
  options: Parameters<typeof joinRequest>[0] = {},
): { join: JoinGroupResponse; sync: SyncGroupResponse } {
  const join = answer<JoinGroupResponse>(
    gc,
    (() => {
      const request = joinRequest({ clientId: client, memberId, ...options });
      gc.send(client, request);
      return request;
    })(),
  );
  const request = syncRequest(join.memberId, join.generationId, {}, { groupInstanceId: options.instanceId ?? null });
  gc.send(client, request);
  return { join, sync: answer<SyncGroupResponse>(gc, request) };
}

function assignedOf(sync: SyncGroupResponse): { topic: string; partitions: number[] }[] {
  return sync.assignment.length === 0
    ? []
    : decodeAssignment(sync.assignment).assignedPartitions.map((tp) => ({ ...tp, partitions: [...tp.partitions] }));
}

describe("online upgrade (a consumer-protocol member joins a non-empty classic group)", () => {
  it("converts the group: members keep their last classic assignment at epoch = generation and their session timeouts", () => {
    const gc = new CoordinatorUnderTest(classicConfig(NO_DELAY));
    const { a, b } = classicStableGroup(gc);
    const recordsBefore = gc.storage.length;
    const observedBefore = gc.ctx.observed.length;
    const c = new SimulatedMember("c");
    expect(c.heartbeat(gc)).toMatchObject({ errorCode: 0, memberEpoch: 2 });

    const group = consumerGroupView(gc);
    expect(group).toMatchObject({ protocol: "consumer", groupEpoch: 2, assignmentEpoch: 2 });
    const byId = new Map(group.members.map((m) => [m.memberId, m]));
    expect(byId.get(a)).toMatchObject({
      memberEpoch: 1,
      state: "STABLE",
      assigned: { T1: range(0, 45) },
      usesClassicProtocol: true,
      classicSessionTimeoutMs: 20_000,
    });
    expect(byId.get(b)).toMatchObject({
      memberEpoch: 1,
      instanceId: "B",
      assigned: { T1: range(45, 90) },
      classicSessionTimeoutMs: 30_000,
    });
    // Everything is owned: the new member waits for the classic members to give partitions up.
    expect(byId.get("c")).toMatchObject({ memberEpoch: 2, state: "UNRELEASED_PARTITIONS", assigned: {} });
    expect(c.owned).toEqual([]);
    // The classic members' sessions run on their own timeouts.
    expect(timerMs(gc, `session-timeout-g-${a}`)).toBe(20_000);
    expect(timerMs(gc, `session-timeout-g-${b}`)).toBe(30_000);

    // Records: the classic tombstone first, then the consumer group as Kafka writes it.
    const written = gc.storage.records.slice(recordsBefore) as { type: number; key: Record<string, string>; value: unknown }[];
    expect(written.slice(0, 8).map((r) => r.type)).toEqual([
      RecordType.GroupMetadata,
      RecordType.ConsumerGroupMemberMetadata,
      RecordType.ConsumerGroupMemberMetadata,
      RecordType.ConsumerGroupMetadata,
      RecordType.ConsumerGroupTargetAssignmentMember,
      RecordType.ConsumerGroupTargetAssignmentMember,
      RecordType.ConsumerGroupTargetAssignmentMetadata,
      RecordType.ConsumerGroupCurrentMemberAssignment,
    ]);
    expect(written[0]).toMatchObject({ key: { group: "g" }, value: null });
    expect(written[1]).toMatchObject({ value: { classicMemberMetadata: { sessionTimeoutMs: 20_000 } } });
    expect(written[3]).toMatchObject({ value: { epoch: 1 } });

    // Observations: the classic members are converted (removed, then re-admitted at epoch 1).
    const after = gc.ctx.observed.slice(observedBefore);
    expect(after[0]).toMatchObject({ type: "gc.group", protocol: "consumer" });
    expect(after.filter((o) => o.type === "gc.member-removed").map((o) => `${o.memberId}:${o.reason}`)).toEqual([
      `${a}:group-converted`,
      `${b}:group-converted`,
    ]);
    expect(
      after
        .filter((o) => o.type === "gc.member")
        .slice(0, 2)
        .map((o) => [o.memberId, o.memberEpoch, o.state]),
    ).toEqual([
      [a, 1, "STABLE"],
      [b, 1, "STABLE"],
    ]);

    // The mixed group: classic members are told to rejoin, get server-assigned partitions, the consumer member gets the rest.
    expect(heartbeatError(gc, "a", heartbeatRequest(a, 1))).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    expect(timerMs(gc, `join-g-${a}`)).toBe(60_000);
    // A rejoins still owning everything (cooperative): it keeps 0-29 and must revoke 30-44 at epoch 1.
    const first = classicRound(gc, "a", a, { sessionTimeoutMs: 20_000, owned: { T1: range(0, 45) } });
    expect(first.join).toMatchObject({
      errorCode: 0,
      memberId: a,
      generationId: 1,
      protocolType: "consumer",
      protocolName: "range",
      leader: "",
      members: [],
    });
    expect(timerMs(gc, `join-g-${a}`)).toBeUndefined();
    expect(first.sync.errorCode).toBe(0);
    expect(assignedOf(first.sync)).toEqual([{ topic: "T1", partitions: range(0, 30) }]);
    expect(gc.member(a)).toMatchObject({ state: "UNREVOKED_PARTITIONS", pendingRevocation: { T1: range(30, 45) } });
    expect(heartbeatError(gc, "a", heartbeatRequest(a, 1))).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    // Revoked: it rejoins listing only what it kept and moves to epoch 2.
    const second = classicRound(gc, "a", a, { sessionTimeoutMs: 20_000, owned: { T1: range(0, 30) } });
    expect(second.join.generationId).toBe(2);
    expect(assignedOf(second.sync)).toEqual([{ topic: "T1", partitions: range(0, 30) }]);
    expect(heartbeatError(gc, "a", heartbeatRequest(a, 2))).toBe(ErrorCode.NONE);
    // C gets A's released partitions on its next heartbeat.
    c.heartbeat(gc);
    expect(gc.member("c").assigned).toEqual({ T1: range(30, 45) });
  });

  it("answers the parked JoinGroup/SyncGroup of a rebalancing group with REBALANCE_IN_PROGRESS and asks for a fresh target (KAFKA-21582)", () => {
    const gc = new CoordinatorUnderTest(classicConfig(NO_DELAY));
    const { a, b } = classicStableGroup(gc);
    const parked = joinRequest({ clientId: "a", memberId: a, sessionTimeoutMs: 20_000 });
    gc.send("a", parked); // the leader rejoins: PREPARING, waiting for B
    expect(classicGroup(gc).state).toBe("PREPARING_REBALANCE");
    const c = new SimulatedMember("c");
    c.heartbeat(gc);
    expect(answer<JoinGroupResponse>(gc, parked)).toMatchObject({ errorCode: ErrorCode.REBALANCE_IN_PROGRESS, memberId: a });
    // Generation 1, converted mid-rebalance: epoch 2 marks the classic target stale, C's join makes it 3.
    const group = consumerGroupView(gc);
    expect(group).toMatchObject({ protocol: "consumer", groupEpoch: 3, assignmentEpoch: 3 });
    expect(gc.storage.records.find((r) => (r as { type: number }).type === RecordType.ConsumerGroupMetadata)).toMatchObject({
      value: { epoch: 2 },
    });
    void b;
  });

  it("keeps a partition two classic assignments claim with the first member only (KAFKA-21684)", () => {
    const gc = new CoordinatorUnderTest(classicConfig(NO_DELAY));
    const { ids } = stableGroup(
      gc,
      [
        { client: "a", instanceId: "A" },
        { client: "b", instanceId: "B" },
      ],
      { a: { T1: [0, 1, 2] }, b: { T1: [2, 3] } },
    );
    expect(new SimulatedMember("c").heartbeat(gc).errorCode).toBe(0);
    const byId = new Map(consumerGroupView(gc).members.map((m) => [m.memberId, m]));
    expect(byId.get(ids.a ?? "")?.assigned).toEqual({ T1: [0, 1, 2] });
    expect(byId.get(ids.b ?? "")?.assigned).toEqual({ T1: [3] });
  });

  it("is refused with GROUP_ID_NOT_FOUND by the policy, for other protocol types, custom assignors and oversize groups", () => {
    const refused = (broker: Record<string, number | string>, build: (gc: CoordinatorUnderTest) => void): CoordinatorUnderTest => {
      const gc = new CoordinatorUnderTest(classicConfig({ ...NO_DELAY, ...broker }));
      build(gc);
      const response = gc.heartbeat(consumerJoin("c"));
      expect(response.errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
      expect(classicGroup(gc)).toMatchObject({ protocol: "classic", state: "STABLE" });
      return gc;
    };
    refused({ "group.consumer.migration.policy": "downgrade" }, classicStableGroup);
    refused({ "group.consumer.migration.policy": "disabled" }, classicStableGroup);
    refused({ "group.consumer.max.size": 1 }, classicStableGroup);
    refused({}, (gc) => {
      const join = joinStatic(gc, "a", "A", { protocolType: "connect" });
      gc.advance(0);
      const id = answer<JoinGroupResponse>(gc, join).memberId;
      gc.send("a", syncRequest(id, 1, { [id]: new Uint8Array([1, 2]) }, { groupInstanceId: "A", protocolType: "connect" }));
    });
    // A client-side assignor with user data in its assignments cannot be continued by the server (KAFKA-18134).
    refused({}, (gc) => {
      const join = joinStatic(gc, "a", "A");
      gc.advance(0);
      const id = answer<JoinGroupResponse>(gc, join).memberId;
      gc.send("a", syncRequest(id, 1, { [id]: assignment({ T1: [0] }, new Uint8Array([1])) }, { groupInstanceId: "A" }));
    });
    // Exactly at group.consumer.max.size: the joining member would not fit; refused before converting.
    const full = new CoordinatorUnderTest(classicConfig({ ...NO_DELAY, "group.consumer.max.size": 2 }));
    classicStableGroup(full);
    expect(full.heartbeat(consumerJoin("c")).errorCode).toBe(ErrorCode.GROUP_MAX_SIZE_REACHED);
    expect(classicGroup(full)).toMatchObject({ protocol: "classic", state: "STABLE" });
  });

  it("a refused upgrade leaves the classic group exactly as it was, parked JoinGroups included", () => {
    const gc = new CoordinatorUnderTest(classicConfig({ ...NO_DELAY, "group.consumer.migration.policy": "downgrade" }));
    const { a, b } = classicStableGroup(gc);
    const parked = joinRequest({ clientId: "a", memberId: a, sessionTimeoutMs: 20_000 });
    gc.send("a", parked);
    expect(gc.heartbeat(consumerJoin("c")).errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
    expect(classicGroup(gc)).toMatchObject({
      state: "PREPARING_REBALANCE",
      members: [
        { memberId: a, awaitingJoin: true },
        { memberId: b, awaitingJoin: false },
      ],
    });
    gc.send("b", joinRequest({ clientId: "b", memberId: b, instanceId: "B", sessionTimeoutMs: 30_000 }));
    expect(answer<JoinGroupResponse>(gc, parked)).toMatchObject({ errorCode: 0, generationId: 2, leader: a });
  });

  it("an empty classic group is replaced whatever the policy; a restarted coordinator reloads the mixed group", () => {
    const gc = new CoordinatorUnderTest(classicConfig({ ...NO_DELAY, "group.consumer.migration.policy": "disabled" }));
    const { ids } = stableGroup(gc, [{ client: "a", instanceId: "A" }], { a: { T1: [0] } });
    leave(gc, leaveRequest([{ memberId: ids.a ?? "", instanceId: "A" }]));
    expect(classicGroup(gc).state).toBe("EMPTY");
    expect(new SimulatedMember("c").heartbeat(gc)).toMatchObject({ errorCode: 0, memberEpoch: 1 });
    expect(consumerGroupView(gc)).toMatchObject({ protocol: "consumer", groupEpoch: 1 });

    // The other way: the consumer member leaves; a classic JoinGroup replaces the empty consumer group.
    gc.heartbeat(consumerHeartbeat({ memberId: "c", memberEpoch: -1 }), "c");
    expect(consumerGroupView(gc)).toMatchObject({ protocol: "consumer", state: "EMPTY" });
    const join = joinStatic(gc, "a", "A");
    gc.advance(0);
    expect(answer<JoinGroupResponse>(gc, join)).toMatchObject({ errorCode: 0, generationId: 1 });
    expect(classicGroup(gc)).toMatchObject({ protocol: "classic", state: "COMPLETING_REBALANCE" });
    // The consumer group's tombstones, then the new classic group's empty GroupMetadata.
    expect(gc.storage.records.slice(-2)).toMatchObject([
      { type: RecordType.ConsumerGroupMetadata, value: null },
      { type: RecordType.GroupMetadata, value: { generation: 0, members: [] } },
    ]);
    gc.restart();
    expect(classicGroup(gc)).toMatchObject({ protocol: "classic", state: "EMPTY", generationId: 0 });

    const mixed = new CoordinatorUnderTest(classicConfig(NO_DELAY));
    const { a } = classicStableGroup(mixed);
    new SimulatedMember("c").heartbeat(mixed);
    const before = consumerGroupView(mixed);
    mixed.restart();
    const reloaded = consumerGroupView(mixed);
    expect(reloaded).toMatchObject({ protocol: "consumer", groupEpoch: before.groupEpoch, assignmentEpoch: before.assignmentEpoch });
    expect(reloaded.members.find((m) => m.memberId === a)).toMatchObject({
      usesClassicProtocol: true,
      classicSessionTimeoutMs: 20_000,
      memberEpoch: 1,
    });
    expect(heartbeatError(mixed, "a", heartbeatRequest(a, 1))).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
  });
});

describe("the mixed group (classic members of a consumer group)", () => {
  /** A consumer group of C (consumer protocol) joined by classic member A; everybody converged. */
  function mixedGroup(gc: CoordinatorUnderTest): { c: SimulatedMember; a: string } {
    const c = new SimulatedMember("c");
    c.heartbeat(gc);
    const { memberId } = joinDynamic(gc, "a", { sessionTimeoutMs: 20_000 });
    return { c, a: memberId };
  }

  it("a classic member joins through KIP-394 and gets its partitions once the consumer member released them", () => {
    const gc = new CoordinatorUnderTest(classicConfig());
    const c = new SimulatedMember("c");
    c.heartbeat(gc);
    const first = joinRequest({ clientId: "a" });
    const required = send<JoinGroupResponse>(gc, "a", first);
    expect(required).toMatchObject({ errorCode: ErrorCode.MEMBER_ID_REQUIRED });
    const a = required?.memberId ?? "";
    expect(a).toMatch(/^[A-Za-z0-9_-]{22}$/); // a consumer-group member id (a UUID), not clientId-UUID
    const join = joinRequest({ clientId: "a", memberId: a, sessionTimeoutMs: 20_000 });
    const joined = send<JoinGroupResponse>(gc, "a", join);
    // No waiting: the server assigned; A is UNRELEASED at the new epoch until C revokes.
    expect(joined).toMatchObject({ errorCode: 0, memberId: a, generationId: 2, leader: "", protocolName: "range" });
    expect(gc.member(a)).toMatchObject({ state: "UNRELEASED_PARTITIONS", memberEpoch: 2, assigned: {} });
    expect(timerMs(gc, `sync-g-${a}`)).toBe(60_000);
    expect(timerMs(gc, `session-timeout-g-${a}`)).toBe(20_000);
    const sync = syncRequest(a, 2);
    gc.send("a", sync);
    expect(answer<SyncGroupResponse>(gc, sync)).toMatchObject({ errorCode: 0, protocolType: "consumer", protocolName: "range" });
    expect(assignedOf(answer<SyncGroupResponse>(gc, sync))).toEqual([]);
    expect(timerMs(gc, `sync-g-${a}`)).toBeUndefined();
    // Waiting on partitions C still holds: NONE.
    expect(heartbeatError(gc, "a", heartbeatRequest(a, 2))).toBe(ErrorCode.NONE);
    // C revokes (two heartbeats); A's awaited partitions are free: REBALANCE_IN_PROGRESS, A rejoins and gets them.
    c.heartbeat(gc);
    c.heartbeat(gc);
    expect(heartbeatError(gc, "a", heartbeatRequest(a, 2))).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    const round = classicRound(gc, "a", a, { sessionTimeoutMs: 20_000 });
    expect(round.join.generationId).toBe(2);
    expect(assignedOf(round.sync)).toEqual([{ topic: "T1", partitions: range(45, 90) }]);
    expect(gc.member(a)).toMatchObject({ state: "STABLE", memberEpoch: 2 });
    expect(heartbeatError(gc, "a", heartbeatRequest(a, 2))).toBe(ErrorCode.NONE);
  });

  it("heartbeat answers: ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID for consumer-protocol members, REBALANCE_IN_PROGRESS when behind or revoking", () => {
    const gc = new CoordinatorUnderTest(classicConfig());
    const { c, a } = mixedGroup(gc);
    classicRound(gc, "a", a, { sessionTimeoutMs: 20_000 });
    c.heartbeat(gc);
    c.heartbeat(gc);
    const round = classicRound(gc, "a", a, { sessionTimeoutMs: 20_000 });
    expect(assignedOf(round.sync)).toEqual([{ topic: "T1", partitions: range(45, 90) }]);
    expect(heartbeatError(gc, "a", heartbeatRequest(a, 1))).toBe(ErrorCode.ILLEGAL_GENERATION);
    expect(heartbeatError(gc, "c", heartbeatRequest("c", c.epoch))).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(heartbeatError(gc, "x", heartbeatRequest("ghost", 2))).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    // A second consumer member joins: the group epoch moves past A's epoch.
    const d = new SimulatedMember("d");
    d.heartbeat(gc);
    expect(heartbeatError(gc, "a", heartbeatRequest(a, 2))).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    // A rejoins still owning everything (cooperative): it must revoke, UNREVOKED: REBALANCE_IN_PROGRESS again.
    const rejoin = joinRequest({ clientId: "a", memberId: a, sessionTimeoutMs: 20_000, owned: { T1: range(45, 90) } });
    gc.send("a", rejoin);
    expect(answer<JoinGroupResponse>(gc, rejoin).generationId).toBe(2);
    expect(gc.member(a)).toMatchObject({ state: "UNREVOKED_PARTITIONS", memberEpoch: 2 });
    const sync = syncRequest(a, 2);
    gc.send("a", sync);
    expect(answer<SyncGroupResponse>(gc, sync).errorCode).toBe(0); // UNREVOKED: no REBALANCE_IN_PROGRESS on SyncGroup
    expect(heartbeatError(gc, "a", heartbeatRequest(a, 2))).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    // Without a rebalance timer: classic members are bounded by their join and sync deadlines only.
    expect(timerMs(gc, `rebalance-timeout-g-${a}`)).toBeUndefined();
  });

  it("SyncGroup checks the generation, the protocol and a rebalance in progress", () => {
    const gc = new CoordinatorUnderTest(classicConfig());
    const { a } = mixedGroup(gc);
    const sync = (generationId: number, fields: Parameters<typeof syncRequest>[3] = {}) => {
      const request = syncRequest(a, generationId, {}, fields);
      gc.send("a", request);
      return answer<SyncGroupResponse>(gc, request).errorCode;
    };
    expect(sync(1)).toBe(ErrorCode.ILLEGAL_GENERATION);
    expect(sync(2, { protocolName: "roundrobin" })).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    new SimulatedMember("d").heartbeat(gc);
    expect(sync(2)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    expect(timerMs(gc, `join-g-${a}`)).toBe(60_000);
  });

  it("join and sync deadlines fence classic members; commits check the generation with ILLEGAL_GENERATION", () => {
    const gc = new CoordinatorUnderTest(classicConfig());
    const { c, a } = mixedGroup(gc);
    expect(commitErrors(gc, "a", commitRequest(a, 2))).toEqual([0]);
    expect(commitErrors(gc, "a", commitRequest(a, 1))).toEqual([ErrorCode.ILLEGAL_GENERATION]);
    const fetch = {
      type: "OffsetFetchRequest" as const,
      correlationId: 71,
      apiVersion: 9,
      clientId: "a",
      requireStable: false,
      groups: [{ groupId: "g", memberId: a, memberEpoch: 1, topics: null }],
    };
    gc.send("a", fetch);
    expect(gc.responseTo<OffsetFetchResponse>(71)?.groups[0]?.errorCode).toBe(ErrorCode.ILLEGAL_GENERATION);
    // A never syncs: fenced at its sync deadline (its rebalance timeout).
    for (let t = 0; t < 60_000; t += 5000) {
      gc.advanceMs(5000);
      c.heartbeat(gc);
      gc.send("a", heartbeatRequest(a, 2));
    }
    expect(removals(gc)).toEqual([`${a}:sync-timeout`]);

    const { memberId: b } = joinDynamic(gc, "b", { sessionTimeoutMs: 20_000 });
    classicRound(gc, "b", b, { sessionTimeoutMs: 20_000 });
    const d = new SimulatedMember("d");
    d.heartbeat(gc);
    const epochB = gc.member(b).memberEpoch;
    expect(heartbeatError(gc, "b", heartbeatRequest(b, epochB))).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    // B keeps heartbeating but never rejoins: fenced at its rejoin deadline.
    for (let t = 0; t < 60_000; t += 5000) {
      gc.advanceMs(5000);
      c.heartbeat(gc);
      d.heartbeat(gc);
      gc.send("b", heartbeatRequest(b, epochB));
    }
    expect(removals(gc)).toEqual([`${a}:sync-timeout`, `${b}:rebalance-timeout`]);
  });

  it("LeaveGroup removes classic members; the consumer-protocol member is unknown to it", () => {
    const gc = new CoordinatorUnderTest(classicConfig());
    const { a } = mixedGroup(gc);
    const epoch = consumerGroupView(gc).groupEpoch;
    const response = leave(gc, leaveRequest([{ memberId: a }, { memberId: "c" }]));
    expect(response.members.map((m) => m.errorCode)).toEqual([0, ErrorCode.UNKNOWN_MEMBER_ID]);
    expect(removals(gc)).toEqual([`${a}:leave`]);
    expect(consumerGroupView(gc)).toMatchObject({ protocol: "consumer", groupEpoch: epoch + 1, members: [{ memberId: "c" }] });
  });
});

describe("online downgrade (the last consumer-protocol member leaves)", () => {
  /** A converted group: classic A and B, consumer member C, everyone converged. */
  function convertedGroup(gc: CoordinatorUnderTest): { a: string; b: string; c: SimulatedMember } {
    const { a, b } = classicStableGroup(gc);
    const c = new SimulatedMember("c");
    c.heartbeat(gc);
    for (let round = 0; round < 3; round++) {
      classicRound(gc, "a", a, { sessionTimeoutMs: 20_000 });
      classicRound(gc, "b", b, { instanceId: "B", sessionTimeoutMs: 30_000 });
      c.heartbeat(gc);
    }
    return { a, b, c };
  }

  it("converts back to a classic group that rebalances; members keep what they hold", () => {
    const gc = new CoordinatorUnderTest(classicConfig(NO_DELAY));
    const { a, b, c } = convertedGroup(gc);
    const epoch = consumerGroupView(gc).groupEpoch;
    const heldByA = gc.member(a).assigned;
    const heldByB = gc.member(b).assigned;
    const observedBefore = gc.ctx.observed.length;
    const left = gc.heartbeat(consumerHeartbeat({ memberId: "c", memberEpoch: -1 }), "c");
    expect(left).toMatchObject({ errorCode: 0, memberEpoch: -1 });
    expect(c.owned.length).toBeGreaterThan(0);
    expect(classicGroup(gc)).toMatchObject({
      protocol: "classic",
      generationId: epoch,
      state: "PREPARING_REBALANCE",
      leader: a,
      protocolName: "range",
    });
    expect(classicGroup(gc).members.map((m) => [m.memberId, m.instanceId, m.sessionTimeoutMs, m.assigned])).toEqual([
      [a, null, 20_000, heldByA],
      [b, "B", 30_000, heldByB],
    ]);
    const after = gc.ctx.observed.slice(observedBefore);
    expect(after.filter((o) => o.type === "gc.member-removed").map((o) => `${o.memberId}:${o.reason}`)).toEqual([
      "c:leave",
      `${a}:group-converted`,
      `${b}:group-converted`,
    ]);
    expect(after.filter((o) => o.type === "gc.member").map((o) => [o.memberId, o.memberEpoch])).toEqual([
      [a, epoch],
      [b, epoch],
    ]);
    // Records: the consumer group's tombstones, then the classic group's GroupMetadata.
    const last = gc.storage.records.at(-1) as { type: number; value: { generation: number; members: unknown[] } };
    expect(last).toMatchObject({ type: RecordType.GroupMetadata, value: { generation: epoch } });
    expect(last.value.members).toHaveLength(2);
    // The classic rebalance: heartbeats say rejoin; both rejoin; generation + 1 with A leading.
    expect(heartbeatError(gc, "a", heartbeatRequest(a, epoch))).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    const joinA = joinRequest({ clientId: "a", memberId: a, sessionTimeoutMs: 20_000 });
    const joinB = joinRequest({ clientId: "b", memberId: b, instanceId: "B", sessionTimeoutMs: 30_000 });
    gc.send("a", joinA);
    gc.send("b", joinB);
    expect(answer<JoinGroupResponse>(gc, joinA)).toMatchObject({ generationId: epoch + 1, leader: a });
    expect(answer<JoinGroupResponse>(gc, joinA).members).toHaveLength(2);
    // A restart reloads it as a classic group.
    gc.restart();
    expect(classicGroup(gc)).toMatchObject({ protocol: "classic", state: "STABLE", generationId: epoch });
  });

  it("also when the last consumer member's session expires; not when the policy forbids downgrades", () => {
    const gc = new CoordinatorUnderTest(classicConfig(NO_DELAY));
    const { a, b } = convertedGroup(gc);
    for (let t = 0; t < 45_000; t += 5000) {
      gc.advanceMs(5000);
      gc.send("a", heartbeatRequest(a, gc.member(a).memberEpoch));
      gc.send("b", heartbeatRequest(b, gc.member(b).memberEpoch, { groupInstanceId: "B" }));
    }
    expect(removals(gc)).toContain("c:session-timeout");
    expect(classicGroup(gc)).toMatchObject({ protocol: "classic", state: "PREPARING_REBALANCE" });

    const upgradeOnly = new CoordinatorUnderTest(classicConfig({ ...NO_DELAY, "group.consumer.migration.policy": "upgrade" }));
    convertedGroup(upgradeOnly);
    upgradeOnly.heartbeat(consumerHeartbeat({ memberId: "c", memberEpoch: -1 }), "c");
    expect(consumerGroupView(upgradeOnly)).toMatchObject({ protocol: "consumer", members: [{}, {}] });
  });

  it("a classic static member replacing the last consumer-protocol member downgrades without a rebalance (same subscription)", () => {
    const gc = new CoordinatorUnderTest(classicConfig(NO_DELAY));
    const s = new SimulatedMember("s", ["T1"], "S");
    s.heartbeat(gc);
    const { memberId: a } = joinDynamic(gc, "a", { sessionTimeoutMs: 20_000 });
    classicRound(gc, "a", a, { sessionTimeoutMs: 20_000 });
    const epoch = consumerGroupView(gc).groupEpoch;
    const replacement = joinStatic(gc, "s2", "S");
    const response = answer<JoinGroupResponse>(gc, replacement);
    expect(response).toMatchObject({ errorCode: 0, generationId: epoch, protocolName: "range" });
    expect(classicGroup(gc)).toMatchObject({ protocol: "classic", state: "STABLE", generationId: epoch });
    expect(classicGroup(gc).members.map((m) => m.instanceId)).toEqual([null, "S"]);
    expect(removals(gc)).toEqual(["s:static-replaced", `${a}:group-converted`, `${response.memberId}:group-converted`]);
  });

  it("and with a rebalance when the replacement subscribes to something else (KAFKA-19546)", () => {
    const gc = new CoordinatorUnderTest(classicConfig(NO_DELAY));
    const s = new SimulatedMember("s", ["T1"], "S");
    s.heartbeat(gc);
    const { memberId: a } = joinDynamic(gc, "a", { sessionTimeoutMs: 20_000 });
    classicRound(gc, "a", a, { sessionTimeoutMs: 20_000 });
    const replacement = joinStatic(gc, "s2", "S", { topics: ["T1", "T2"] });
    expect(gc.responseTo(replacement.correlationId)).toBeUndefined(); // parked in the classic rebalance
    expect(classicGroup(gc)).toMatchObject({ protocol: "classic", state: "PREPARING_REBALANCE" });
    gc.send("a", joinRequest({ clientId: "a", memberId: a, sessionTimeoutMs: 20_000 }));
    expect(answer<JoinGroupResponse>(gc, replacement)).toMatchObject({ errorCode: 0 });
  });
});

describe("group.consumer.migration.policy=disabled", () => {
  it("refuses both directions: classic members of a consumer group (KAFKA-20640) and the upgrade of a classic group", () => {
    const gc = new CoordinatorUnderTest(classicConfig({ ...NO_DELAY, "group.consumer.migration.policy": "disabled" }));
    new SimulatedMember("c").heartbeat(gc);
    expect(send<JoinGroupResponse>(gc, "a", joinRequest({ clientId: "a" }))).toMatchObject({
      errorCode: ErrorCode.INCONSISTENT_GROUP_PROTOCOL,
    });
    expect(consumerGroupView(gc).members).toHaveLength(1);

    const classic = new CoordinatorUnderTest(classicConfig({ ...NO_DELAY, "group.consumer.migration.policy": "disabled" }));
    classicStableGroup(classic);
    expect(classic.heartbeat(consumerJoin("c")).errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
  });
});
