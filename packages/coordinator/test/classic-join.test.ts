import { ErrorCode, type JoinGroupResponse } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { RecordType } from "../src/index.js";
import {
  answer,
  assignment,
  classicConfig,
  classicGroup,
  heartbeatRequest,
  joinAnswer,
  joinDynamic,
  joinRequest,
  joinStatic,
  observed,
  removals,
  send,
  stableGroup,
  syncRequest,
  timerMs,
} from "./classic-test-kit.js";
import { CoordinatorUnderTest } from "./coordinator-test-kit.js";

const NO_DELAY = { "group.initial.rebalance.delay.ms": 0 };

describe("JoinGroup pre-checks and KIP-394", () => {
  it("answers MEMBER_ID_REQUIRED with a minted id, parks it as pending, then admits the member on its rejoin", () => {
    const gc = new CoordinatorUnderTest(classicConfig());
    const first = joinRequest({ clientId: "c1" });
    const required = send<JoinGroupResponse>(gc, "c1", first);
    expect(required).toMatchObject({ errorCode: ErrorCode.MEMBER_ID_REQUIRED, generationId: -1, members: [] });
    const memberId = required?.memberId ?? "";
    expect(memberId).toMatch(/^c1-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(classicGroup(gc)).toMatchObject({ state: "EMPTY", members: [], pendingMembers: [memberId] });
    // The pending id expires after the session timeout the request asked for.
    expect(timerMs(gc, `heartbeat-g-${memberId}`)).toBe(10_000);
    // A group created by a JoinGroup is written at once (an empty GroupMetadata record).
    expect(gc.storage.records).toEqual([
      {
        type: RecordType.GroupMetadata,
        key: { group: "g" },
        value: { protocolType: "", generation: 0, protocol: null, leader: null, currentStateTimestamp: 0, members: [] },
      },
    ]);

    const join = joinRequest({ clientId: "c1", memberId });
    expect(send(gc, "c1", join)).toBeUndefined(); // parked until the join phase completes
    expect(classicGroup(gc)).toMatchObject({
      state: "PREPARING_REBALANCE",
      pendingMembers: [],
      members: [{ memberId, awaitingJoin: true, isNew: true }],
    });
    // A new member may wait 300 s in its JoinGroup; the initial delay is 3 s.
    expect(timerMs(gc, `heartbeat-g-${memberId}`)).toBe(300_000);
    expect(timerMs(gc, "join-g")).toBe(3000);
    gc.advanceMs(3000);
    expect(joinAnswer(gc, join)).toMatchObject({
      errorCode: 0,
      generationId: 1,
      protocolType: "consumer",
      protocolName: "range",
      leader: memberId,
      memberId,
    });
    expect(answer<JoinGroupResponse>(gc, join).members.map((m) => ({ ...m, metadata: new Uint8Array(m.metadata) }))).toEqual([
      { memberId, groupInstanceId: null, metadata: new Uint8Array(join.protocols[0]?.metadata ?? []) },
    ]);
    expect(classicGroup(gc)).toMatchObject({ state: "COMPLETING_REBALANCE", generationId: 1, members: [{ isNew: false }] });
    // The sync deadline is the rebalance timeout; the session timer is back to the session timeout.
    expect(timerMs(gc, "sync-g")).toBe(60_000);
    expect(timerMs(gc, `heartbeat-g-${memberId}`)).toBe(10_000);
    expect(observed(gc, "gc.group").map((o) => `${o.state}/${o.groupEpoch}/${o.members}`)).toEqual([
      "EMPTY/0/0",
      "PREPARING_REBALANCE/0/1",
      "COMPLETING_REBALANCE/1/1",
    ]);
  });

  it("lets a pending member expire after its session timeout, unseen by the observations", () => {
    const gc = new CoordinatorUnderTest(classicConfig());
    const required = send<JoinGroupResponse>(gc, "c1", joinRequest({ clientId: "c1", sessionTimeoutMs: 7000 }));
    gc.advanceMs(7000);
    expect(classicGroup(gc).pendingMembers).toEqual([]);
    expect(removals(gc)).toEqual([]);
    // Rejoining with the expired id is now an unknown member in an empty group.
    expect(send(gc, "c1", joinRequest({ clientId: "c1", memberId: required?.memberId ?? "" }))).toMatchObject({
      errorCode: ErrorCode.UNKNOWN_MEMBER_ID,
    });
  });

  it("admits JoinGroup v3 and static members without the KIP-394 round trip", () => {
    const gc = new CoordinatorUnderTest(classicConfig(NO_DELAY));
    const legacy = joinRequest({ clientId: "old", apiVersion: 3 });
    const staticJoin = joinStatic(gc, "s", "instance-1");
    gc.send("old", legacy);
    gc.advance(0);
    expect(answer<JoinGroupResponse>(gc, legacy).memberId).toMatch(/^old-/);
    expect(answer<JoinGroupResponse>(gc, staticJoin).memberId).toMatch(/^instance-1-/);
    expect(classicGroup(gc).members.map((m) => m.instanceId)).toEqual(["instance-1", null]);
  });

  it("checks the group id, the session timeout, the member id of a missing group and the capacity", () => {
    const gc = new CoordinatorUnderTest(classicConfig({ ...NO_DELAY, "group.max.size": 2 }));
    expect(send(gc, "c", joinRequest({ groupId: " " }))).toMatchObject({ errorCode: ErrorCode.INVALID_GROUP_ID });
    expect(send(gc, "c", joinRequest({ sessionTimeoutMs: 5999 }))).toMatchObject({ errorCode: ErrorCode.INVALID_SESSION_TIMEOUT });
    expect(send(gc, "c", joinRequest({ sessionTimeoutMs: 1_800_001 }))).toMatchObject({ errorCode: ErrorCode.INVALID_SESSION_TIMEOUT });
    expect(send(gc, "c", joinRequest({ groupId: "other", memberId: "ghost" }))).toMatchObject({
      errorCode: ErrorCode.UNKNOWN_MEMBER_ID,
      memberId: "ghost",
    });
    expect(gc.snapshot().groups).toEqual([]);
    stableGroup(gc, [{ client: "a" }, { client: "b" }], { a: { T1: [0] } });
    // STABLE and full: a third member is refused.
    const third = joinRequest({ clientId: "c", apiVersion: 3 });
    expect(send(gc, "c", third)).toMatchObject({ errorCode: ErrorCode.GROUP_MAX_SIZE_REACHED, memberId: "" });
  });

  it("refuses a member whose protocol type or protocols the group cannot support (INCONSISTENT_GROUP_PROTOCOL)", () => {
    const gc = new CoordinatorUnderTest(classicConfig(NO_DELAY));
    expect(send(gc, "c", joinRequest({ protocols: [] }))).toMatchObject({ errorCode: ErrorCode.INCONSISTENT_GROUP_PROTOCOL });
    stableGroup(gc, [{ client: "a", protocols: ["range", "roundrobin"] }], { a: { T1: [0] } });
    expect(send(gc, "c", joinRequest({ protocols: ["sticky"], apiVersion: 3 }))).toMatchObject({
      errorCode: ErrorCode.INCONSISTENT_GROUP_PROTOCOL,
    });
    expect(send(gc, "c", joinRequest({ protocolType: "connect", apiVersion: 3 }))).toMatchObject({
      errorCode: ErrorCode.INCONSISTENT_GROUP_PROTOCOL,
    });
  });
});

describe("the initial rebalance delay", () => {
  it("re-arms per new member, min(delay, remaining), capped by the rebalance timeout", () => {
    const gc = new CoordinatorUnderTest(classicConfig());
    const options = { rebalanceTimeoutMs: 10_000 };
    const a = joinStatic(gc, "a", "A", options);
    expect(timerMs(gc, "join-g")).toBe(3000); // remaining after it: 7000
    gc.advanceMs(2000);
    const b = joinStatic(gc, "b", "B", options);
    gc.advanceMs(1000); // t=3000: B joined meanwhile: wait min(3000, 7000); remaining 4000
    expect(timerMs(gc, "join-g")).toBe(3000);
    gc.advanceMs(1000);
    const c = joinStatic(gc, "c", "C", options);
    gc.advanceMs(2000); // t=6000: wait min(3000, 4000); remaining 1000
    expect(timerMs(gc, "join-g")).toBe(3000);
    gc.advanceMs(1000);
    const d = joinStatic(gc, "d", "D", options);
    gc.advanceMs(2000); // t=9000: wait min(3000, 1000); remaining 0
    expect(timerMs(gc, "join-g")).toBe(1000);
    expect(joinAnswer(gc, a)).toBeUndefined();
    gc.advanceMs(999);
    expect(joinAnswer(gc, a)).toBeUndefined();
    gc.advanceMs(1); // t=10000 = the rebalance timeout: complete
    for (const join of [a, b, c, d]) expect(joinAnswer(gc, join)).toMatchObject({ errorCode: 0, generationId: 1 });
    expect(answer<JoinGroupResponse>(gc, a).members).toHaveLength(4);
    expect(answer<JoinGroupResponse>(gc, b).members).toEqual([]);
  });

  it("completes after one delay when nobody else joins", () => {
    const gc = new CoordinatorUnderTest(classicConfig());
    const a = joinStatic(gc, "a", "A");
    gc.advanceMs(2999);
    expect(joinAnswer(gc, a)).toBeUndefined();
    gc.advanceMs(1);
    expect(joinAnswer(gc, a)).toMatchObject({ generationId: 1 });
  });
});

describe("leaders", () => {
  it("the first member leads; a leaving leader is succeeded; a leader that does not rejoin is replaced by one that did", () => {
    const gc = new CoordinatorUnderTest(classicConfig(NO_DELAY));
    const long = { sessionTimeoutMs: 120_000 };
    const { ids, leader } = stableGroup(
      gc,
      [
        { client: "a", ...long },
        { client: "b", ...long },
        { client: "c", ...long },
      ],
      { a: { T1: [0] }, b: { T1: [1] }, c: { T1: [2] } },
    );
    expect(leader).toBe(ids.a);

    // The leader leaves: the oldest remaining member leads the next generation.
    gc.send("a", {
      type: "LeaveGroupRequest",
      correlationId: 1,
      apiVersion: 5,
      clientId: "a",
      groupId: "g",
      members: [{ memberId: ids.a ?? "", groupInstanceId: null, reason: null }],
    });
    expect(classicGroup(gc)).toMatchObject({ state: "PREPARING_REBALANCE", leader: ids.b });
    // Only C rejoins: at the join deadline B (dynamic, not rejoined) is removed and C is elected.
    const rejoinC = joinRequest({ clientId: "c", memberId: ids.c ?? "" });
    gc.send("c", rejoinC);
    expect(timerMs(gc, "join-g")).toBe(60_000);
    gc.advanceMs(60_000);
    expect(joinAnswer(gc, rejoinC)).toMatchObject({ generationId: 2, leader: ids.c, members: [{ memberId: ids.c }] });
    expect(removals(gc)).toEqual([`${ids.a}:leave`, `${ids.b}:rebalance-timeout`]);
  });
});

describe("the protocol vote", () => {
  it("picks the most voted protocol among those every member supports", () => {
    const gc = new CoordinatorUnderTest(classicConfig(NO_DELAY));
    const a = joinStatic(gc, "a", "A", { protocols: ["range", "roundrobin"] });
    const b = joinStatic(gc, "b", "B", { protocols: ["range", "roundrobin"] });
    const c = joinStatic(gc, "c", "C", { protocols: ["roundrobin", "range"] });
    gc.advance(0);
    for (const join of [a, b, c]) expect(joinAnswer(gc, join)?.protocolName).toBe("range");
  });

  it("only protocols all members support are candidates", () => {
    const gc = new CoordinatorUnderTest(classicConfig(NO_DELAY));
    const a = joinStatic(gc, "a", "A", { protocols: ["range", "roundrobin"] });
    joinStatic(gc, "b", "B", { protocols: ["range", "roundrobin"] });
    joinStatic(gc, "c", "C", { protocols: ["roundrobin", "cooperative-sticky"] });
    gc.advance(0);
    expect(joinAnswer(gc, a)?.protocolName).toBe("roundrobin");
  });
});

describe("the join deadline", () => {
  it("removes dynamic members that did not rejoin, keeps static ones", () => {
    const gc = new CoordinatorUnderTest(classicConfig(NO_DELAY));
    // Sessions outlast the rebalance timeout: nobody expires while the phase waits.
    const long = { sessionTimeoutMs: 120_000 };
    const { ids } = stableGroup(
      gc,
      [
        { client: "a", ...long },
        { client: "b", ...long },
        { client: "s", instanceId: "S", ...long },
      ],
      { a: { T1: [0, 1] }, b: { T1: [2] } },
    );
    // The leader's JoinGroup in STABLE always starts a rebalance.
    const rejoin = joinRequest({ clientId: "a", memberId: ids.a ?? "" });
    gc.send("a", rejoin);
    expect(classicGroup(gc).state).toBe("PREPARING_REBALANCE");
    gc.advanceMs(59_999);
    expect(joinAnswer(gc, rejoin)).toBeUndefined();
    gc.advanceMs(1);
    expect(joinAnswer(gc, rejoin)).toMatchObject({ generationId: 2, leader: ids.a });
    expect(answer<JoinGroupResponse>(gc, rejoin).members.map((m) => m.memberId)).toEqual([ids.a, ids.s]);
    expect(classicGroup(gc).members.map((m) => m.memberId)).toEqual([ids.a, ids.s]);
    expect(removals(gc)).toEqual([`${ids.b}:rebalance-timeout`]);
  });

  it("a new member that never completes its join is removed at the new-member join timeout", () => {
    const gc2 = new CoordinatorUnderTest(classicConfig(NO_DELAY));
    stableGroup(gc2, [{ client: "s", instanceId: "S" }], { s: { T1: [0] } });
    const { memberId, join } = joinDynamic(gc2, "n", { rebalanceTimeoutMs: 600_000 });
    expect(timerMs(gc2, `heartbeat-g-${memberId}`)).toBe(300_000);
    // The static member keeps heartbeating but never rejoins: the phase waits for its deadline (600 s);
    // the new member's 300 s join deadline comes first.
    for (let t = 0; t < 300_000; t += 5000) {
      gc2.advanceMs(5000);
      gc2.send("s", heartbeatRequest(classicGroup(gc2).members[0]?.memberId ?? "", 1));
    }
    expect(joinAnswer(gc2, join)).toMatchObject({ errorCode: ErrorCode.UNKNOWN_MEMBER_ID, memberId: "" });
    expect(removals(gc2)).toEqual([`${memberId}:join-timeout`]);
  });
});

describe("rejoining members", () => {
  it("reports every state a group passes through, even within one request", () => {
    const gc = new CoordinatorUnderTest(classicConfig(NO_DELAY));
    const { ids } = stableGroup(gc, [{ client: "a" }], { a: { T1: [0] } });
    // The only member, the leader, rejoins: PREPARING and at once COMPLETING (everyone is in).
    const rejoin = joinRequest({ clientId: "a", memberId: ids.a ?? "" });
    expect(send<JoinGroupResponse>(gc, "a", rejoin)).toMatchObject({ generationId: 2 });
    expect(observed(gc, "gc.group").map((o) => `${o.state}/${o.groupEpoch}`)).toEqual([
      "EMPTY/0",
      "PREPARING_REBALANCE/0",
      "COMPLETING_REBALANCE/1",
      "STABLE/1",
      "PREPARING_REBALANCE/1",
      "COMPLETING_REBALANCE/2",
    ]);
  });

  it("COMPLETING: the same metadata gets the current generation again; STABLE: a follower with unchanged metadata too", () => {
    const gc = new CoordinatorUnderTest(classicConfig(NO_DELAY));
    const a = joinStatic(gc, "a", "A");
    const b = joinStatic(gc, "b", "B");
    gc.advance(0);
    const idA = answer<JoinGroupResponse>(gc, a).memberId;
    const idB = answer<JoinGroupResponse>(gc, b).memberId;
    const again = joinRequest({ clientId: "b", memberId: idB, instanceId: "B" });
    expect(send(gc, "b", again)).toMatchObject({ generationId: 1, leader: idA, members: [] });
    expect(classicGroup(gc).state).toBe("COMPLETING_REBALANCE");
    gc.send("b", syncRequest(idB, 1, {}, { groupInstanceId: "B" }));
    gc.send("a", syncRequest(idA, 1, { [idA]: assignment({ T1: [0] }), [idB]: assignment({ T1: [1] }) }, { groupInstanceId: "A" }));
    expect(classicGroup(gc).state).toBe("STABLE");
    const followerRejoin = joinRequest({ clientId: "b", memberId: idB, instanceId: "B" });
    expect(send(gc, "b", followerRejoin)).toMatchObject({ generationId: 1, leader: idA, members: [] });
    expect(classicGroup(gc).state).toBe("STABLE");
    // Changed metadata starts a rebalance.
    const changed = joinRequest({ clientId: "b", memberId: idB, instanceId: "B", topics: ["T1", "T2"] });
    expect(send(gc, "b", changed)).toBeUndefined();
    expect(classicGroup(gc).state).toBe("PREPARING_REBALANCE");
  });
});
