import { ErrorCode, partitionFor } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import {
  CoordinatorUnderTest,
  coordinatorConfig,
  countOf,
  heartbeatRequest,
  joinRequest,
  SimulatedMember,
  T1,
  T2,
} from "./coordinator-test-kit.js";

describe("ConsumerGroupHeartbeat request validation", () => {
  const cases: [string, ReturnType<typeof heartbeatRequest>, number, string][] = [
    ["empty member id (v1)", joinRequest(""), ErrorCode.INVALID_REQUEST, "MemberId can't be empty."],
    [
      "empty member id at epoch > 0 (v0)",
      heartbeatRequest({ memberId: "", memberEpoch: 3, apiVersion: 0 }),
      ErrorCode.INVALID_REQUEST,
      "MemberId",
    ],
    ["blank group id", joinRequest("m", ["T1"], { groupId: "  " }), ErrorCode.INVALID_REQUEST, "GroupId can't be empty."],
    ["blank instance id", joinRequest("m", ["T1"], { instanceId: "" }), ErrorCode.INVALID_REQUEST, "InstanceId can't be empty."],
    ["blank rack id", joinRequest("m", ["T1"], { rackId: " " }), ErrorCode.INVALID_REQUEST, "RackId can't be empty."],
    [
      "join without rebalance timeout",
      joinRequest("m", ["T1"], { rebalanceTimeoutMs: -1 }),
      ErrorCode.INVALID_REQUEST,
      "RebalanceTimeoutMs",
    ],
    ["join without topic partitions", joinRequest("m", ["T1"], { topicPartitions: null }), ErrorCode.INVALID_REQUEST, "TopicPartitions"],
    [
      "join owning partitions",
      joinRequest("m", ["T1"], { topicPartitions: [{ topicId: T1.id, partitions: [0] }] }),
      ErrorCode.INVALID_REQUEST,
      "TopicPartitions",
    ],
    ["join without subscription", joinRequest("m", ["T1"], { subscribedTopicNames: null }), ErrorCode.INVALID_REQUEST, "SubscribedTopic"],
    [
      "static leave without instance id",
      heartbeatRequest({ memberId: "m", memberEpoch: -2 }),
      ErrorCode.INVALID_REQUEST,
      "InstanceId can't be null.",
    ],
    ["epoch -3", heartbeatRequest({ memberId: "m", memberEpoch: -3 }), ErrorCode.INVALID_REQUEST, "MemberEpoch is invalid."],
    ["unknown assignor", joinRequest("m", ["T1"], { serverAssignor: "sticky" }), ErrorCode.UNSUPPORTED_ASSIGNOR, "sticky"],
  ];
  it.each(cases)("%s", (_name, request, errorCode, message) => {
    const gc = new CoordinatorUnderTest();
    const response = gc.heartbeat(request, "m");
    expect(response.errorCode).toBe(errorCode);
    expect(response.errorMessage).toContain(message);
    expect(response.memberId).toBeNull();
    expect(response.assignment).toBeNull();
    expect(gc.snapshot().groups).toEqual([]);
    expect(gc.storage.length).toBe(0);
  });

  it("answers UNSUPPORTED_VERSION when the consumer protocol is not enabled", () => {
    const gc = new CoordinatorUnderTest(coordinatorConfig({ broker: { "group.coordinator.rebalance.protocols": ["classic"] } }));
    expect(gc.heartbeat(joinRequest("m")).errorCode).toBe(ErrorCode.UNSUPPORTED_VERSION);
  });

  it("answers NOT_COORDINATOR for a group placed on another coordinator", () => {
    const coordinators = ["coordinator-0", "coordinator-1"];
    // "my-group" and "test-group" are on __consumer_offsets partition 12 (spec 5): coordinator-0; "a" is on 47: coordinator-1.
    expect(partitionFor("a", 50) % 2).toBe(1);
    const gc = new CoordinatorUnderTest(coordinatorConfig({ coordinators }));
    const elsewhere = gc.heartbeat(joinRequest("m", ["T1"], { groupId: "a" }));
    expect(elsewhere.errorCode).toBe(ErrorCode.NOT_COORDINATOR);
    const here = gc.heartbeat(joinRequest("m", ["T1"], { groupId: "my-group" }));
    expect(here.errorCode).toBe(ErrorCode.NONE);
  });
});

describe("joining and heartbeating", () => {
  it("creates the group on the first join and assigns every partition", () => {
    const gc = new CoordinatorUnderTest();
    const response = gc.heartbeat(joinRequest("m1"));
    expect(response).toMatchObject({ errorCode: 0, memberId: "m1", memberEpoch: 1, heartbeatIntervalMs: 5000 });
    expect(countOf(response.assignment?.topicPartitions)).toBe(90);
    const group = gc.group();
    expect(group).toMatchObject({ groupEpoch: 1, assignmentEpoch: 1, state: "STABLE" });
    expect(gc.member("m1")).toMatchObject({ memberEpoch: 1, previousMemberEpoch: 0, state: "STABLE" });
    expect(gc.ctx.observationsOf("gc.group").at(-1)).toMatchObject({ groupEpoch: 1, assignmentEpoch: 1, state: "STABLE", members: 1 });
    expect(gc.ctx.observationsOf("gc.target")).toEqual([
      { type: "gc.target", groupId: "g", assignmentEpoch: 1, assignor: "uniform", members: 1, moved: 90 },
    ]);
    expect(gc.ctx.observationsOf("gc.member").at(-1)).toMatchObject({
      memberId: "m1",
      memberEpoch: 1,
      assigned: { T1: [...Array(90).keys()] },
    });
  });

  it("answers GROUP_ID_NOT_FOUND to a heartbeat for a group that does not exist", () => {
    const gc = new CoordinatorUnderTest();
    expect(gc.heartbeat(heartbeatRequest({ memberId: "m", memberEpoch: 5 })).errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
    expect(gc.heartbeat(heartbeatRequest({ memberId: "m", memberEpoch: -1 })).errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
  });

  it("answers UNKNOWN_MEMBER_ID to an unknown dynamic member at epoch > 0", () => {
    const gc = new CoordinatorUnderTest();
    gc.heartbeat(joinRequest("m1"));
    expect(gc.heartbeat(heartbeatRequest({ memberId: "nobody", memberEpoch: 1 })).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it("mints a member id for a v0 join with an empty member id", () => {
    const gc = new CoordinatorUnderTest();
    const response = gc.heartbeat(joinRequest("", ["T1"], { apiVersion: 0 }), "client");
    expect(response.errorCode).toBe(0);
    expect(response.memberId).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
  });

  it("answers GROUP_MAX_SIZE_REACHED to a new member of a full group, not to existing members", () => {
    const gc = new CoordinatorUnderTest(coordinatorConfig({ broker: { "group.consumer.max.size": 2 } }));
    gc.heartbeat(joinRequest("m1"));
    gc.heartbeat(joinRequest("m2"));
    expect(gc.heartbeat(joinRequest("m3")).errorCode).toBe(ErrorCode.GROUP_MAX_SIZE_REACHED);
    expect(gc.heartbeat(heartbeatRequest({ memberId: "m1", memberEpoch: 1 })).errorCode).toBe(0);
  });

  it("sends the assignment on full requests and changes only (null means unchanged, [] means nothing)", () => {
    const gc = new CoordinatorUnderTest(coordinatorConfig({ topics: [T1, T2] }));
    const m1 = gc.heartbeat(joinRequest("m1", ["T1"]));
    expect(countOf(m1.assignment?.topicPartitions)).toBe(90);
    // A member subscribed to nothing existing gets an empty (not null) assignment on its join.
    const m2 = gc.heartbeat(joinRequest("m2", ["nope"]));
    expect(m2.assignment).toEqual({ topicPartitions: [] });
    // A plain heartbeat with nothing new: null.
    const again = gc.heartbeat(heartbeatRequest({ memberId: "m1", memberEpoch: m1.memberEpoch }));
    expect(again).toMatchObject({ errorCode: 0, memberEpoch: m2.memberEpoch });
    expect(again.assignment).toBeNull();
    // A full request always carries it.
    const full = gc.heartbeat(
      heartbeatRequest({
        memberId: "m1",
        memberEpoch: again.memberEpoch,
        rebalanceTimeoutMs: 300000,
        subscribedTopicNames: ["T1"],
        topicPartitions: m1.assignment?.topicPartitions ?? [],
      }),
    );
    expect(countOf(full.assignment?.topicPartitions)).toBe(90);
  });
});

/** m1 holds all 90 partitions at epoch 1; m2 joins, and m1 revokes half and reaches epoch 2 (previous 1). */
function m2JoinsAndM1Revokes(gc: CoordinatorUnderTest): void {
  gc.heartbeat(joinRequest("m2"));
  const m1 = new SimulatedMember("m1");
  m1.epoch = 1;
  m1.owned = [{ topicId: T1.id, partitions: [...Array(90).keys()] }];
  m1.heartbeat(gc); // UNREVOKED at 1
  m1.heartbeat(gc); // revoked: epoch 2, previous 1
}

describe("epoch validation (GroupMetadataManagerTest.testConsumerGroupMemberEpochValidation)", () => {
  it("fences greater and smaller epochs and tolerates a lost response (previous epoch + owned subset)", () => {
    const gc = new CoordinatorUnderTest();
    const member = new SimulatedMember("m1");
    member.heartbeat(gc); // epoch 1, all 90 partitions
    const other = new SimulatedMember("m2");
    other.heartbeat(gc); // epoch 2: m1 must revoke half
    const revoking = member.heartbeat(gc);
    expect(revoking.memberEpoch).toBe(1);
    expect(gc.member("m1").state).toBe("UNREVOKED_PARTITIONS");
    // m1 revokes; its response (epoch 2) is lost.
    const lost = gc.heartbeat(member.request(), "m1");
    expect(lost.memberEpoch).toBe(2);
    expect(gc.member("m1")).toMatchObject({ memberEpoch: 2, previousMemberEpoch: 1, state: "STABLE" });
    const owned = member.owned;
    const at = (memberEpoch: number, topicPartitions: typeof owned | null) =>
      gc.heartbeat(
        heartbeatRequest({
          memberId: "m1",
          memberEpoch,
          topicPartitions: topicPartitions?.map((tp) => ({ topicId: tp.topicId, partitions: [...tp.partitions] })) ?? null,
          rebalanceTimeoutMs: 300000,
          subscribedTopicNames: ["T1"],
        }),
      );
    expect(at(3, owned).errorCode).toBe(ErrorCode.FENCED_MEMBER_EPOCH);
    expect(at(0, []).errorCode).toBe(ErrorCode.FENCED_MEMBER_EPOCH); // prev is 1, not 0
    expect(at(1, null).errorCode).toBe(ErrorCode.FENCED_MEMBER_EPOCH);
    // Owned partitions beyond what is assigned now: fenced.
    expect(at(1, [{ topicId: T1.id, partitions: [...Array(90).keys()] }]).errorCode).toBe(ErrorCode.FENCED_MEMBER_EPOCH);
    const accepted = at(1, owned);
    expect(accepted).toMatchObject({ errorCode: 0, memberEpoch: 2 });
    expect(countOf(accepted.assignment?.topicPartitions)).toBe(45);
  });

  it("accepts an epoch-0 rejoin of an existing member only as a lost join response", () => {
    const gc = new CoordinatorUnderTest();
    const first = gc.heartbeat(joinRequest("m1"));
    expect(first.memberEpoch).toBe(1);
    // The join response was lost: the rejoin is checked against previous epoch 0 with [] owned.
    const retry = gc.heartbeat(joinRequest("m1"));
    expect(retry).toMatchObject({ errorCode: 0, memberEpoch: 1 });
    expect(countOf(retry.assignment?.topicPartitions)).toBe(90);
    m2JoinsAndM1Revokes(gc);
    expect(gc.member("m1")).toMatchObject({ memberEpoch: 2, previousMemberEpoch: 1 });
    expect(gc.heartbeat(joinRequest("m1")).errorCode).toBe(ErrorCode.FENCED_MEMBER_EPOCH);
  });

  it("lets an existing member rejoin at epoch 0 with kcsim.group.consumer.rejoin.at.epoch.zero (KAFKA-19233's fix)", () => {
    const gc = new CoordinatorUnderTest(coordinatorConfig({ broker: { "kcsim.group.consumer.rejoin.at.epoch.zero": true } }));
    gc.heartbeat(joinRequest("m1"));
    m2JoinsAndM1Revokes(gc);
    expect(gc.member("m1")).toMatchObject({ memberEpoch: 2, previousMemberEpoch: 1, state: "STABLE" });
    // Kafka 4.0 fences this (above); with the switch the member is back at its epoch, with its assignment.
    const rejoin = gc.heartbeat(joinRequest("m1"));
    expect(rejoin).toMatchObject({ errorCode: 0, memberId: "m1", memberEpoch: 2 });
    expect(countOf(rejoin.assignment?.topicPartitions)).toBe(45);
    expect(gc.member("m1")).toMatchObject({ memberEpoch: 2, previousMemberEpoch: 1, state: "STABLE" });
    // Other epochs are checked as before.
    expect(gc.heartbeat(heartbeatRequest({ memberId: "m1", memberEpoch: 3 })).errorCode).toBe(ErrorCode.FENCED_MEMBER_EPOCH);
  });
});

describe("group epoch bumps", () => {
  it("a leave (-1) fences the member and always bumps the group epoch", () => {
    const gc = new CoordinatorUnderTest();
    const m1 = new SimulatedMember("m1");
    const m2 = new SimulatedMember("m2");
    m1.heartbeat(gc);
    m2.heartbeat(gc);
    m1.heartbeat(gc);
    m1.heartbeat(gc);
    m2.heartbeat(gc);
    expect(gc.group()).toMatchObject({ groupEpoch: 2, state: "STABLE" });
    const leave = gc.heartbeat(heartbeatRequest({ memberId: "m2", memberEpoch: -1 }));
    expect(leave).toMatchObject({ errorCode: 0, memberId: "m2", memberEpoch: -1, assignment: null });
    expect(gc.group()).toMatchObject({ groupEpoch: 3, assignmentEpoch: 2, state: "ASSIGNING" });
    expect(gc.group().members.map((m) => m.memberId)).toEqual(["m1"]);
    expect(gc.ctx.observationsOf("gc.member-removed").at(-1)).toMatchObject({ memberId: "m2", reason: "leave", memberEpoch: 2 });
    expect(gc.ctx.hasTimer("session-timeout-g-m2")).toBe(false);
    // The next heartbeat computes the new target lazily and hands m2's partitions to m1.
    const next = m1.heartbeat(gc);
    expect(next.memberEpoch).toBe(3);
    expect(countOf(next.assignment?.topicPartitions)).toBe(90);
    expect(gc.heartbeat(heartbeatRequest({ memberId: "m2", memberEpoch: -1 })).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it("a ServerAssignor-only or rack-only change does not bump; a subscription change does", () => {
    const gc = new CoordinatorUnderTest(coordinatorConfig({ topics: [T1, T2] }));
    const m1 = new SimulatedMember("m1");
    m1.heartbeat(gc);
    const before = gc.group().groupEpoch;
    const assignor = gc.heartbeat(heartbeatRequest({ memberId: "m1", memberEpoch: m1.epoch, serverAssignor: "range" }));
    expect(assignor.errorCode).toBe(0);
    expect(gc.member("m1").serverAssignor).toBe("range");
    const rack = gc.heartbeat(heartbeatRequest({ memberId: "m1", memberEpoch: m1.epoch, rackId: "rack-a" }));
    expect(rack.errorCode).toBe(0);
    expect(gc.group().groupEpoch).toBe(before);
    expect(gc.ctx.observationsOf("gc.target")).toHaveLength(1);
    // The range assignor is used from the next target on.
    const subscribe = gc.heartbeat(heartbeatRequest({ memberId: "m1", memberEpoch: m1.epoch, subscribedTopicNames: ["T1", "T2"] }));
    expect(subscribe.memberEpoch).toBe(before + 1);
    expect(gc.ctx.observationsOf("gc.target").at(-1)).toMatchObject({ assignor: "range", assignmentEpoch: before + 1 });
    expect(countOf(subscribe.assignment?.topicPartitions)).toBe(102);
  });

  it("a metadata change of a subscribed topic bumps on the next heartbeat", () => {
    const gc = new CoordinatorUnderTest(coordinatorConfig({ topics: [T1, T2] }));
    const m1 = new SimulatedMember("m1", ["T2"]);
    m1.heartbeat(gc);
    gc.actor.control?.({ command: "add-partitions", topic: "T1", partitions: 100 }, gc.ctx);
    m1.heartbeat(gc);
    expect(gc.group().groupEpoch).toBe(1); // T1 is not subscribed
    gc.actor.control?.({ command: "add-partitions", topic: "T2", partitions: 16 }, gc.ctx);
    expect(gc.group().groupEpoch).toBe(1); // lazily, on the next heartbeat
    const response = m1.heartbeat(gc);
    expect(response.memberEpoch).toBe(2);
    expect(countOf(response.assignment?.topicPartitions)).toBe(16);
    gc.actor.control?.({ command: "create-topic", name: "T3", partitions: 4 }, gc.ctx);
    const subscribe = gc.heartbeat(heartbeatRequest({ memberId: "m1", memberEpoch: 2, subscribedTopicNames: ["T2", "T3"] }));
    expect(subscribe.memberEpoch).toBe(3);
    expect(countOf(subscribe.assignment?.topicPartitions)).toBe(20);
  });
});

describe("static membership", () => {
  it("a static leave (-2) keeps the partitions owned; the replacement takes them over with no epoch bump", () => {
    const gc = new CoordinatorUnderTest();
    const a = new SimulatedMember("a1", ["T1"], "instance-a");
    const b = new SimulatedMember("b1", ["T1"], "instance-b");
    a.heartbeat(gc);
    b.heartbeat(gc);
    a.heartbeat(gc);
    a.heartbeat(gc);
    b.heartbeat(gc);
    expect(gc.group()).toMatchObject({ groupEpoch: 2, state: "STABLE" });
    const aHeld = gc.member("a1").assigned;

    const leave = gc.heartbeat(heartbeatRequest({ memberId: "a1", memberEpoch: -2, instanceId: "instance-a" }));
    expect(leave).toMatchObject({ errorCode: 0, memberId: "a1", memberEpoch: -2 });
    expect(gc.member("a1")).toMatchObject({ memberEpoch: -2, assigned: aHeld });
    expect(gc.group()).toMatchObject({ groupEpoch: 2, state: "RECONCILING" });
    expect(gc.ctx.hasTimer("session-timeout-g-a1")).toBe(true);

    // The restarted instance joins under a new member id.
    const a2 = new SimulatedMember("a2", ["T1"], "instance-a");
    const rejoin = a2.heartbeat(gc);
    expect(rejoin).toMatchObject({ errorCode: 0, memberId: "a2", memberEpoch: 2 });
    expect(countOf(rejoin.assignment?.topicPartitions)).toBe(45);
    expect(gc.group()).toMatchObject({ groupEpoch: 2, assignmentEpoch: 2, state: "STABLE" });
    expect(gc.member("a2")).toMatchObject({ instanceId: "instance-a", assigned: aHeld, target: aHeld });
    expect(gc.group().members.map((m) => m.memberId)).toEqual(["b1", "a2"]);
    expect(gc.ctx.observationsOf("gc.member-removed").at(-1)).toMatchObject({ memberId: "a1", reason: "static-replaced" });
    // The old member id is fenced by the new one.
    expect(gc.heartbeat(heartbeatRequest({ memberId: "a1", memberEpoch: 2, instanceId: "instance-a" })).errorCode).toBe(
      ErrorCode.FENCED_INSTANCE_ID,
    );
  });

  it("answers UNRELEASED_INSTANCE_ID while the instance's holder has not left", () => {
    const gc = new CoordinatorUnderTest();
    new SimulatedMember("a1", ["T1"], "instance-a").heartbeat(gc);
    const response = gc.heartbeat(joinRequest("a2", ["T1"], { instanceId: "instance-a" }));
    expect(response.errorCode).toBe(ErrorCode.UNRELEASED_INSTANCE_ID);
    expect(gc.group().members.map((m) => m.memberId)).toEqual(["a1"]);
    expect(gc.heartbeat(heartbeatRequest({ memberId: "a9", memberEpoch: 1, instanceId: "instance-z" })).errorCode).toBe(
      ErrorCode.UNKNOWN_MEMBER_ID,
    );
  });

  it("a static member at -2 whose session expires is fenced and the group epoch bumps", () => {
    const gc = new CoordinatorUnderTest();
    new SimulatedMember("a1", ["T1"], "instance-a").heartbeat(gc);
    gc.heartbeat(heartbeatRequest({ memberId: "a1", memberEpoch: -2, instanceId: "instance-a" }));
    gc.advanceMs(45000);
    expect(gc.group()).toMatchObject({ groupEpoch: 2, state: "EMPTY", members: [] });
    expect(gc.ctx.observationsOf("gc.member-removed").at(-1)).toMatchObject({ memberId: "a1", reason: "session-timeout", memberEpoch: -2 });
  });
});

describe("timers", () => {
  it("a session expiry fences the member and bumps the group epoch; heartbeats re-arm it", () => {
    const gc = new CoordinatorUnderTest();
    const m1 = new SimulatedMember("m1");
    const m2 = new SimulatedMember("m2");
    m1.heartbeat(gc);
    m2.heartbeat(gc);
    expect(gc.ctx.timerRemaining("session-timeout-g-m1")).toBe(45_000_000);
    gc.advanceMs(30000);
    m1.heartbeat(gc);
    expect(gc.ctx.timerRemaining("session-timeout-g-m1")).toBe(45_000_000);
    gc.advanceMs(20000); // m2 silent for 50 s
    expect(gc.group().members.map((m) => m.memberId)).toEqual(["m1"]);
    expect(gc.group().groupEpoch).toBe(3);
    expect(gc.ctx.observationsOf("gc.member-removed")).toEqual([
      { type: "gc.member-removed", groupId: "g", memberId: "m2", instanceId: null, memberEpoch: 2, reason: "session-timeout" },
    ]);
    expect(gc.ctx.hasTimer("rebalance-timeout-g-m2")).toBe(false);
  });

  it("the rebalance timeout fences a member still UNREVOKED at the epoch it was armed for", () => {
    const gc = new CoordinatorUnderTest();
    const m1 = new SimulatedMember("m1");
    m1.heartbeat(gc);
    new SimulatedMember("m2").heartbeat(gc);
    const revoking = gc.heartbeat(heartbeatRequest({ memberId: "m1", memberEpoch: 1, rebalanceTimeoutMs: 20000 }));
    expect(revoking.memberEpoch).toBe(1);
    expect(gc.member("m1").state).toBe("UNREVOKED_PARTITIONS");
    expect(gc.ctx.timerRemaining("rebalance-timeout-g-m1")).toBe(20_000_000);
    // m1 keeps heartbeating but never stops listing the revoked partitions.
    gc.advanceMs(10000);
    gc.heartbeat(
      heartbeatRequest({ memberId: "m1", memberEpoch: 1, topicPartitions: [{ topicId: T1.id, partitions: [...Array(90).keys()] }] }),
    );
    gc.advanceMs(10000);
    expect(gc.ctx.observationsOf("gc.member-removed").at(-1)).toMatchObject({
      memberId: "m1",
      reason: "rebalance-timeout",
      memberEpoch: 1,
    });
    expect(gc.group().members.map((m) => m.memberId)).toEqual(["m2"]);
    expect(gc.group().groupEpoch).toBe(3);
  });

  it("a member that revokes in time has its rebalance timer cancelled", () => {
    const gc = new CoordinatorUnderTest();
    const m1 = new SimulatedMember("m1");
    m1.heartbeat(gc);
    new SimulatedMember("m2").heartbeat(gc);
    m1.heartbeat(gc);
    expect(gc.ctx.hasTimer("rebalance-timeout-g-m1")).toBe(true);
    m1.heartbeat(gc);
    expect(gc.member("m1").state).toBe("STABLE");
    expect(gc.ctx.hasTimer("rebalance-timeout-g-m1")).toBe(false);
  });
});
