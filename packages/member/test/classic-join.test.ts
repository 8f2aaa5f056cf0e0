import { ErrorCode, ms } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { assignClientSide } from "../src/assignors/assign-client-side.js";
import { javaHashMapIterationOrder } from "../src/assignors/java-hash-order.js";
import { decodeCooperativeUserData, decodeStickyUserData } from "../src/assignors/sticky/sticky-user-data.js";
import {
  ClassicDriver,
  classicConfig,
  decodeAssignmentMap,
  joinSubscription,
  OTHER_LEADER,
  subscriptionBytes,
} from "./classic-test-support.js";

describe("classic join: JoinGroup, MEMBER_ID_REQUIRED, SyncGroup", () => {
  it("first joins with an empty member id, adopts the one MEMBER_ID_REQUIRED hands out and rejoins at once", () => {
    const driver = new ClassicDriver(classicConfig({ consumer: { "client.id": "client-7" } }));
    expect(driver.state).toBe("UNJOINED");
    driver.answerFindCoordinator();
    driver.runUntil(() => driver.joins().length === 1);
    const first = driver.joins()[0];
    expect(first?.message).toMatchObject({
      apiVersion: 9,
      clientId: "client-7",
      groupId: "g1",
      memberId: "",
      groupInstanceId: null,
      sessionTimeoutMs: 10_000,
      rebalanceTimeoutMs: 60_000,
      protocolType: "consumer",
      reason: "",
    });
    expect(first?.message.protocols.map((p) => p.name)).toEqual(["range"]);
    expect(joinSubscription(first?.message ?? driver.lastOf("JoinGroupRequest").message, "range")).toMatchObject({
      version: 3,
      topics: ["T1"],
      userData: null,
      ownedPartitions: [],
      generationId: -1,
    });
    expect(driver.state).toBe("PREPARING_REBALANCE");

    const at = driver.now;
    driver.answerJoin({ error: ErrorCode.MEMBER_ID_REQUIRED, memberId: "client-7-abc", generation: -1 });
    driver.runUntil(() => driver.joins().length === 2);
    const second = driver.joins()[1];
    expect(second?.at).toBe(at);
    expect(second?.message).toMatchObject({ memberId: "client-7-abc", reason: "need to re-join with the given member-id: client-7-abc" });
    expect(driver.state).toBe("PREPARING_REBALANCE");
    // No onJoinPrepare for the retry: nothing was revoked or committed in between.
    expect(driver.observations("member.callback")).toEqual([]);
  });

  it("a follower sends an empty SyncGroup, becomes STABLE, then owns its assignment once onPartitionsAssigned completed", () => {
    const driver = new ClassicDriver(classicConfig({ app: { assignCallbackMs: 40 } }));
    driver.answerFindCoordinator();
    driver.runUntil(() => driver.joins().length === 1);
    driver.answerJoin({ memberId: "m-9", generation: 7, leader: OTHER_LEADER });
    driver.runUntil(() => driver.syncs().length === 1);
    expect(driver.lastOf("SyncGroupRequest").message).toMatchObject({
      apiVersion: 5,
      groupId: "g1",
      generationId: 7,
      memberId: "m-9",
      groupInstanceId: null,
      protocolType: "consumer",
      protocolName: "range",
      assignments: [],
    });
    expect(driver.state).toBe("COMPLETING_REBALANCE");
    driver.answerSync({ assignment: { T1: [2, 3] } });
    expect(driver.state).toBe("STABLE");
    driver.runUntil(() => driver.snapshot.joinPhase === "idle");
    expect(driver.timeline("member.state", "member.owned", "member.callback")).toEqual([
      "state UNJOINED->PREPARING_REBALANCE",
      "state PREPARING_REBALANCE->COMPLETING_REBALANCE",
      "state COMPLETING_REBALANCE->STABLE",
      'onPartitionsAssigned start {"T1":[2,3]}',
      'onPartitionsAssigned end {"T1":[2,3]}',
      'owned {"T1":[2,3]} assigned',
    ]);
    const states = driver.observations("member.state");
    expect(states.map((s) => [s.memberId, s.memberEpoch, s.protocol])).toEqual([
      ["", -1, "classic"],
      ["m-9", 7, "classic"],
      ["m-9", 7, "classic"],
    ]);
    // Positions: OffsetFetch without a member (the classic client's), then records flow.
    const fetch = driver.lastOf("OffsetFetchRequest").message;
    expect(fetch.groups[0]).toMatchObject({ groupId: "g1", memberId: null, memberEpoch: -1 });
    driver.answerOffsetFetch();
    driver.run(3000);
    expect(driver.recordRanges().length).toBeGreaterThan(0);
  });

  it("the leader runs the selected assignor over the members of the JoinGroup response and sends every assignment", () => {
    const driver = new ClassicDriver(classicConfig({ subscription: ["T1", "T2"] }));
    driver.answerFindCoordinator();
    driver.runUntil(() => driver.joins().length === 1);
    const members = [
      { memberId: "m-1", groupInstanceId: null, metadata: subscriptionBytes(["T1", "T2"]) },
      { memberId: "m-0", groupInstanceId: null, metadata: subscriptionBytes(["T1"]) },
      { memberId: "m-2", groupInstanceId: null, metadata: subscriptionBytes(["T1"]) },
    ];
    driver.answerJoin({ memberId: "m-1", leader: "m-1", generation: 3, members });
    driver.runUntil(() => driver.syncs().length === 1);
    const sync = driver.lastOf("SyncGroupRequest").message;
    const assignments = Object.fromEntries(sync.assignments.map((a) => [a.memberId, decodeAssignmentMap(a.assignment)]));
    // Range: T1's 4 partitions over m-0, m-1, m-2 (sorted): 2 + 1 + 1; T2 only to m-1.
    expect(assignments).toEqual({ "m-0": { T1: [0, 1] }, "m-1": { T1: [2], T2: [0, 1] }, "m-2": { T1: [3] } });
    expect(driver.snapshot.leader).toBe(true);
    driver.answerSync({ assignment: assignments["m-1"] ?? {} });
    driver.runUntil(() => driver.snapshot.joinPhase === "idle");
    expect(driver.owned).toEqual({ T1: [2], T2: [0, 1] });
  });

  it("the sticky leader feeds members in Java HashMap order of member ids (what a Kafka leader does)", () => {
    const driver = new ClassicDriver(classicConfig({ consumer: { "partition.assignment.strategy": ["sticky"] } }));
    driver.answerFindCoordinator();
    driver.runUntil(() => driver.joins().length === 1);
    const ids = ["consumer-b", "consumer-a", "consumer-10", "consumer-2"];
    const members = ids.map((memberId) => ({ memberId, groupInstanceId: null, metadata: subscriptionBytes(["T1", "T2"]) }));
    driver.answerJoin({ memberId: "consumer-a", leader: "consumer-a", generation: 1, members, protocolName: "sticky" });
    driver.runUntil(() => driver.syncs().length === 1);
    const sync = driver.lastOf("SyncGroupRequest").message;
    const got = Object.fromEntries(sync.assignments.map((a) => [a.memberId, decodeAssignmentMap(a.assignment)]));
    const expected = assignClientSide("sticky", {
      topics: [
        { name: "T1", partitions: 4 },
        { name: "T2", partitions: 2 },
      ],
      members: javaHashMapIterationOrder(ids).map((id) => ({ id, subscriptions: ["T1", "T2"] })),
    });
    expect(got).toEqual(expected);
    expect(sync.assignments.map((a) => a.memberId)).toEqual(javaHashMapIterationOrder(ids));
  });

  it("protocols list every configured assignor in preference order, each with its own user data", () => {
    const driver = new ClassicDriver(classicConfig({ consumer: { "partition.assignment.strategy": ["range", "sticky", "roundrobin"] } }));
    driver.joinStableWith({ T1: [0, 3] }, 4); // the coordinator selects range
    driver.rebalance({ T1: [0] }, 5);
    const join = driver.joins().at(-1)?.message;
    expect(join?.protocols.map((p) => p.name)).toEqual(["range", "sticky", "roundrobin"]);
    const sticky = joinSubscription(join ?? driver.lastOf("JoinGroupRequest").message, "sticky");
    // Only the selected assignor hears of an assignment: sticky has nothing to remember.
    expect(sticky.userData).toBeNull();
    expect(decodeStickyUserData(sticky.userData)).toEqual({ partitions: [], generation: null });
    expect(sticky).toMatchObject({ topics: ["T1"], ownedPartitions: [], generationId: 4 });
    expect(joinSubscription(join ?? driver.lastOf("JoinGroupRequest").message, "range").userData).toBeNull();
  });

  it("the selected sticky assignor remembers the last assignment and generation in its user data", () => {
    const driver = new ClassicDriver(classicConfig({ consumer: { "partition.assignment.strategy": ["sticky"] } }));
    driver.joinStableWith({ T1: [1, 2] }, 6);
    driver.rebalance({ T1: [1] }, 7);
    const sticky = joinSubscription(driver.joins().at(-1)?.message ?? driver.lastOf("JoinGroupRequest").message, "sticky");
    expect(decodeStickyUserData(sticky.userData)).toEqual({
      partitions: [
        { topic: "T1", partition: 1 },
        { topic: "T1", partition: 2 },
      ],
      generation: 6,
    });
    // Eager: everything was revoked before the JoinGroup, so nothing is listed as owned.
    expect(sticky.ownedPartitions).toEqual([]);
  });

  it("cooperative-sticky user data holds the generation; the subscription lists owned partitions", () => {
    const driver = new ClassicDriver(classicConfig({ consumer: { "partition.assignment.strategy": ["cooperative-sticky"] } }));
    driver.joinStableWith({ T1: [0, 1] }, 2);
    driver.rebalance({ T1: [0, 1] }, 3);
    const sub = joinSubscription(driver.joins().at(-1)?.message ?? driver.lastOf("JoinGroupRequest").message, "cooperative-sticky");
    expect(sub.generationId).toBe(2);
    expect(decodeCooperativeUserData(sub.userData ?? new Uint8Array())).toBe(2);
    expect(sub.ownedPartitions).toEqual([{ topic: "T1", partitions: [0, 1] }]);
  });

  it("a static member joins with its group.instance.id (no MEMBER_ID_REQUIRED round)", () => {
    const driver = new ClassicDriver(classicConfig({ consumer: { "group.instance.id": "inst-3" } }));
    driver.answerFindCoordinator();
    driver.runUntil(() => driver.joins().length === 1);
    expect(driver.lastOf("JoinGroupRequest").message).toMatchObject({ memberId: "", groupInstanceId: "inst-3" });
    driver.answerJoin({ memberId: "inst-3-uuid", generation: 2 });
    driver.runUntil(() => driver.syncs().length === 1);
    expect(driver.lastOf("SyncGroupRequest").message).toMatchObject({ memberId: "inst-3-uuid", groupInstanceId: "inst-3" });
    driver.answerSync({ assignment: { T1: [0] } });
    driver.runUntil(() => driver.snapshot.joinPhase === "idle");
    driver.runUntil(() => driver.classicHeartbeats().length === 1);
    expect(driver.lastOf("HeartbeatRequest").message).toMatchObject({
      generationId: 2,
      memberId: "inst-3-uuid",
      groupInstanceId: "inst-3",
      apiVersion: 4,
    });
  });

  it("a returning static leader told to skip the assignment sends no assignments and keeps what the coordinator stored", () => {
    const driver = new ClassicDriver(classicConfig({ consumer: { "group.instance.id": "inst-1" } }));
    driver.answerFindCoordinator();
    driver.runUntil(() => driver.joins().length === 1);
    driver.answerJoin({
      memberId: "inst-1-new",
      leader: "inst-1-new",
      skipAssignment: true,
      generation: 5,
      members: [{ memberId: "inst-1-new", groupInstanceId: "inst-1", metadata: subscriptionBytes(["T1"]) }],
    });
    driver.runUntil(() => driver.syncs().length === 1);
    expect(driver.lastOf("SyncGroupRequest").message.assignments).toEqual([]);
    driver.answerSync({ assignment: { T1: [1, 3] } });
    driver.runUntil(() => driver.snapshot.joinPhase === "idle");
    expect(driver.owned).toEqual({ T1: [1, 3] });
  });

  it("heartbeats every heartbeat.interval.ms from the JoinGroup answer on, through the rebalance and while STABLE", () => {
    const driver = new ClassicDriver(classicConfig({ consumer: { "heartbeat.interval.ms": 2000 } }));
    driver.answerFindCoordinator();
    driver.runUntil(() => driver.joins().length === 1);
    driver.run(5000);
    expect(driver.classicHeartbeats()).toHaveLength(0); // none while PREPARING_REBALANCE
    const joinedAt = driver.now;
    driver.answerJoin({ generation: 1 });
    driver.runUntil(() => driver.syncs().length === 1);
    driver.runUntil(() => driver.classicHeartbeats().length === 1);
    expect(driver.state).toBe("COMPLETING_REBALANCE");
    expect(driver.classicHeartbeats()[0]?.at).toBe(joinedAt + ms(2000));
    driver.answerClassicHeartbeat(ErrorCode.REBALANCE_IN_PROGRESS); // ignored outside STABLE
    driver.answerSync({ assignment: { T1: [0] } });
    driver.runUntil(() => driver.snapshot.joinPhase === "idle");
    for (let i = 0; i < 4; i++) {
      driver.runUntil(() => driver.classicHeartbeats().length === i + 2);
      driver.answerClassicHeartbeat();
    }
    const times = driver.classicHeartbeats().map((h) => h.at);
    expect(times.slice(1).map((t, i) => t - (times[i] ?? 0))).toEqual([ms(2000), ms(2000), ms(2000), ms(2000)]);
    expect(driver.joins()).toHaveLength(1);
  });
});
