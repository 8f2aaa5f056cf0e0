import { ErrorCode, ms, type OffsetCommitRequest } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { encodeCooperativeUserData } from "../src/assignors/sticky/sticky-user-data.js";
import type { RecordsObservation } from "../src/observations.js";
import { ClassicDriver, classicConfig, decodeAssignmentMap, joinSubscription, subscriptionBytes } from "./classic-test-support.js";
import { committedOffsetsOf } from "./consumer-test-support.js";

const COOPERATIVE = { "partition.assignment.strategy": ["cooperative-sticky"] };

/** Starts a rebalance: REBALANCE_IN_PROGRESS on the next heartbeat, then runs until the JoinGroup (commits answered). */
function startRebalance(driver: ClassicDriver): void {
  const joins = driver.joins().length;
  driver.announceRebalance();
  driver.runAnswering(() => driver.joins().length > joins);
}

/** The position of T1-0 after the records handed out before `at` (a poll() commits before it hands out records): what "all consumed" is then. */
function consumedT1p0By(driver: ClassicDriver, at: number): number {
  let position = -1;
  for (const seen of driver.ctx.seen) {
    if (seen.at >= at || seen.observation.type !== "member.records") continue;
    for (const range of (seen.observation as unknown as RecordsObservation).ranges)
      if (range.topic === "T1" && range.partition === 0) position = Number(range.lastOffset) + 1;
  }
  return position;
}

/** The offset an OffsetCommit request commits for T1-0. */
function committedT1p0(sent: { message: OffsetCommitRequest }): number {
  const offset = committedOffsetsOf(sent.message)["T1-0"];
  if (offset === undefined) throw new Error("the commit carries no T1-0");
  return offset;
}

describe("classic COOPERATIVE rebalance (cooperative-sticky, KIP-429)", () => {
  it("onJoinPrepare's commit: a retriable failure is met by a new commit of the positions consumed by then, after retry.backoff.ms; after close() began none is sent (swarm-migration seed 50623)", () => {
    const driver = new ClassicDriver(
      classicConfig({ consumer: { ...COOPERATIVE, "retry.backoff.ms": 500 }, source: { recordsPerSecondPerPartition: 1000 } }),
    );
    driver.joinStableWith({ T1: [0] }, 1);
    driver.runAnswering(() => driver.recordRanges().length > 2);
    const first = driver.runToJoinPrepareCommit();
    const commits = driver.sentOf("OffsetCommitRequest").length - 1;
    expect(committedT1p0(first)).toBe(consumedT1p0By(driver, first.at));
    driver.answerOffsetCommit(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, first);
    const failedAt = driver.now;
    driver.runUntil(() => driver.sentOf("OffsetCommitRequest").length === commits + 2);
    const second = driver.lastOf("OffsetCommitRequest");
    // Sent anew a backoff later, with what the cooperative member (still consuming) had consumed by then.
    expect(second.at - failedAt).toBeGreaterThanOrEqual(ms(500));
    expect(committedT1p0(second)).toBe(consumedT1p0By(driver, second.at));
    expect(committedT1p0(second)).toBeGreaterThan(committedT1p0(first) + 100);
    expect(driver.joins()).toHaveLength(2);

    // close() while onJoinPrepare backs off: the close's commit fails too and is retried, for longer than the backoff.
    driver.answerOffsetCommit(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, second);
    const observed = driver.observations("member.commit").length;
    driver.control("close");
    for (let attempt = 0; attempt < 3; attempt++) {
      driver.runUntil(() => driver.sentOf("OffsetCommitRequest").length === commits + 3 + attempt);
      driver.answerOffsetCommit(attempt < 2 ? ErrorCode.COORDINATOR_LOAD_IN_PROGRESS : ErrorCode.NONE);
    }
    driver.run(5000);
    expect(
      driver
        .observations("member.commit")
        .slice(observed)
        .map((c) => `${c.kind} ${c.result}`),
    ).toEqual(["close COORDINATOR_LOAD_IN_PROGRESS", "close COORDINATOR_LOAD_IN_PROGRESS", "close NONE"]);
    expect(driver.sentOf("OffsetCommitRequest")).toHaveLength(commits + 5);
  });

  it("keeps its partitions through the JoinGroup, revokes only what moves, rejoins at once, then takes nothing new", () => {
    const driver = new ClassicDriver(classicConfig({ consumer: COOPERATIVE, app: { revokeCallbackMs: 25 } }));
    driver.joinStableWith({ T1: [0, 1, 2, 3] }, 1);
    expect(driver.snapshot.rebalanceProtocol).toBe("COOPERATIVE");
    startRebalance(driver);
    const join = driver.lastOf("JoinGroupRequest");
    expect(joinSubscription(join.message, "cooperative-sticky")).toMatchObject({
      ownedPartitions: [{ topic: "T1", partitions: [0, 1, 2, 3] }],
      generationId: 1,
    });
    // Still owned and consumed while the group rebalances.
    expect(driver.owned).toEqual({ T1: [0, 1, 2, 3] });
    const recordsBefore = driver.recordRanges().length;
    driver.runAnswering(() => driver.recordRanges().length > recordsBefore + 2, 5000);

    const before = driver.ctx.seen.length;
    driver.answerJoin({ generation: 2 });
    driver.runUntil(() => driver.syncs().length === 2);
    driver.answerSync({ assignment: { T1: [0, 1] } });
    // Round 1 done: [2, 3] revoked, then a second JoinGroup at once.
    driver.runAnswering(() => driver.joins().length === 4); // two to join first (MEMBER_ID_REQUIRED), then two rounds
    const second = driver.lastOf("JoinGroupRequest");
    expect(second.message.reason).toBe("need to revoke partitions and re-join");
    expect(joinSubscription(second.message, "cooperative-sticky")).toMatchObject({
      ownedPartitions: [{ topic: "T1", partitions: [0, 1] }],
      generationId: 2,
    });
    driver.answerJoin({ generation: 3 });
    driver.runUntil(() => driver.syncs().length === 3);
    driver.answerSync({ assignment: { T1: [0, 1] } });
    driver.runAnswering(() => driver.snapshot.joinPhase === "idle" && driver.state === "STABLE");

    const lines = driver.timeline("member.state", "member.owned", "member.callback");
    const since = lines.slice(
      lines.length - driver.ctx.seen.slice(before).filter((s) => s.observation.type.match(/member\.(state|owned|callback)/)).length,
    );
    expect(since).toEqual([
      "state PREPARING_REBALANCE->COMPLETING_REBALANCE",
      "state COMPLETING_REBALANCE->STABLE",
      'owned {"T1":[0,1]} revoked',
      'onPartitionsRevoked start {"T1":[2,3]}',
      'onPartitionsRevoked end {"T1":[2,3]}',
      "onPartitionsAssigned start {}",
      "onPartitionsAssigned end {}",
      "state STABLE->PREPARING_REBALANCE",
      "state PREPARING_REBALANCE->COMPLETING_REBALANCE",
      "state COMPLETING_REBALANCE->STABLE",
      "onPartitionsAssigned start {}",
      "onPartitionsAssigned end {}",
    ]);
    expect(driver.owned).toEqual({ T1: [0, 1] });
    expect(driver.joins()).toHaveLength(4);
  });

  it("a generation reset during the revoke callback: onJoinComplete goes on as ConsumerCoordinator's does, installs the dead generation's assignment and calls onPartitionsAssigned; the next onJoinPrepare gives it up as lost", () => {
    const driver = new ClassicDriver(classicConfig({ consumer: COOPERATIVE, app: { revokeCallbackMs: 8000, assignCallbackMs: 40 } }));
    driver.joinStableWith({ T1: [0, 1, 2] }, 1);
    startRebalance(driver);
    driver.answerJoin({ generation: 2 });
    driver.runUntil(() => driver.syncs().length === 2);
    // Generation 2 keeps 0, takes 1 and 2 away and adds 3.
    driver.answerSync({ assignment: { T1: [0, 3] } });
    driver.forgetRoutine();
    driver.runUntil(() => driver.timeline("member.callback").at(-1) === 'onPartitionsRevoked start {"T1":[1,2]}');
    // While onPartitionsRevoked runs, the heartbeat thread learns the member is gone (the coordinator removed it).
    const heartbeats = driver.classicHeartbeats().length;
    driver.runUntil(() => driver.classicHeartbeats().length > heartbeats);
    driver.answerClassicHeartbeat(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(driver.generation).toBe(-1);
    const joins = driver.joins().length;
    const fetches = driver.sentOf("OffsetFetchRequest").length;
    const commits = driver.sentOf("OffsetCommitRequest").length;
    driver.runAnswering(() => driver.joins().length === joins + 1, 60_000);
    expect(driver.timeline("member.state", "member.owned", "member.callback").slice(-10)).toEqual([
      "state STABLE->UNJOINED",
      "owned {} lost",
      'onPartitionsRevoked end {"T1":[1,2]}',
      'onPartitionsAssigned start {"T1":[3]}',
      'onPartitionsAssigned end {"T1":[3]}',
      // The zombie window: partition 3 of the dead generation 2 is owned until the next onJoinPrepare.
      'owned {"T1":[3]} assigned',
      "owned {} lost",
      'onPartitionsLost start {"T1":[0,3]}',
      'onPartitionsLost end {"T1":[0,3]}',
      "state UNJOINED->PREPARING_REBALANCE",
    ]);
    const zombie = driver.observations("member.owned").at(-2);
    expect(zombie).toMatchObject({ memberEpoch: -1, owned: { T1: [3] }, cause: "assigned" });
    // No positions are fetched for it and nothing is committed under the reset generation.
    expect(driver.sentOf("OffsetFetchRequest")).toHaveLength(fetches);
    expect(driver.sentOf("OffsetCommitRequest")).toHaveLength(commits);
    expect(driver.lastOf("JoinGroupRequest").message.memberId).toBe("");
  });

  it("the second round hands out the freed partitions: onPartitionsAssigned(added) only", () => {
    const driver = new ClassicDriver(classicConfig({ consumer: COOPERATIVE }));
    driver.joinStableWith({ T1: [0] }, 4);
    startRebalance(driver);
    driver.answerJoin({ generation: 5 });
    driver.runUntil(() => driver.syncs().length === 2);
    driver.answerSync({ assignment: { T1: [0, 2] } });
    driver.runAnswering(() => driver.snapshot.joinPhase === "idle" && driver.state === "STABLE");
    expect(driver.timeline("member.owned", "member.callback").slice(-3)).toEqual([
      'onPartitionsAssigned start {"T1":[2]}',
      'onPartitionsAssigned end {"T1":[2]}',
      'owned {"T1":[0,2]} assigned',
    ]);
    expect(driver.joins()).toHaveLength(3); // nothing revoked: no second round
  });

  it("a cooperative leader withholds partitions still owned elsewhere, then hands them out in round two", () => {
    const driver = new ClassicDriver(classicConfig({ consumer: COOPERATIVE }));
    driver.joinStableWith({ T1: [0, 1, 2, 3] }, 1);
    startRebalance(driver);
    const own = driver.lastOf("JoinGroupRequest").message;
    const members = (ownMeta: Uint8Array, newcomerGeneration: number, newcomerOwned: Record<string, number[]>) => [
      { memberId: "m-1", groupInstanceId: null, metadata: ownMeta },
      {
        memberId: "m-2",
        groupInstanceId: null,
        metadata: subscriptionBytes(["T1"], newcomerOwned, newcomerGeneration, encodeCooperativeUserData(newcomerGeneration)),
      },
    ];
    const ownMetadata = own.protocols[0]?.metadata ?? new Uint8Array();
    driver.answerJoin({ generation: 2, leader: "m-1", members: members(ownMetadata, -1, {}) });
    driver.runUntil(() => driver.syncs().length === 2);
    const round1 = Object.fromEntries(
      driver.lastOf("SyncGroupRequest").message.assignments.map((a) => [a.memberId, decodeAssignmentMap(a.assignment)]),
    );
    // Two partitions must move to m-2: they are only taken from m-1 in this round.
    expect(round1).toEqual({ "m-1": { T1: [0, 1] }, "m-2": {} });
    driver.answerSync({ assignment: round1["m-1"] ?? {} });
    driver.runAnswering(() => driver.joins().length === 4);
    const ownRound2 = driver.lastOf("JoinGroupRequest").message.protocols[0]?.metadata ?? new Uint8Array();
    driver.answerJoin({ generation: 3, leader: "m-1", members: members(ownRound2, 2, {}) });
    driver.runUntil(() => driver.syncs().length === 3);
    const round2 = Object.fromEntries(
      driver.lastOf("SyncGroupRequest").message.assignments.map((a) => [a.memberId, decodeAssignmentMap(a.assignment)]),
    );
    expect(round2).toEqual({ "m-1": { T1: [0, 1] }, "m-2": { T1: [2, 3] } });
  });

  it("before the JoinGroup it revokes only the partitions of topics no longer subscribed", () => {
    const driver = new ClassicDriver(classicConfig({ consumer: COOPERATIVE, subscription: ["T1", "T2"], app: { revokeCallbackMs: 5 } }));
    driver.joinStableWith({ T1: [0], T2: [0, 1] }, 3);
    driver.control("subscribe", { topics: ["T1"] });
    driver.runAnswering(() => driver.joins().length === 3);
    expect(driver.timeline("member.owned", "member.callback").slice(-3)).toEqual([
      'owned {"T1":[0]} revoked',
      'onPartitionsRevoked start {"T2":[0,1]}',
      'onPartitionsRevoked end {"T2":[0,1]}',
    ]);
    const join = driver.lastOf("JoinGroupRequest").message;
    expect(join.reason).toBe("subscription has changed");
    expect(joinSubscription(join, "cooperative-sticky")).toMatchObject({
      topics: ["T1"],
      ownedPartitions: [{ topic: "T1", partitions: [0] }],
      generationId: 3,
    });
    expect(driver.owned).toEqual({ T1: [0] });
  });

  it("an assignment naming a topic the member no longer subscribes to is not taken: the member rejoins", () => {
    const driver = new ClassicDriver(classicConfig({ consumer: COOPERATIVE, subscription: ["T1", "T2"] }));
    driver.joinStableWith({ T1: [0] }, 1);
    startRebalance(driver);
    driver.answerJoin({ generation: 2 });
    driver.runUntil(() => driver.syncs().length === 2);
    driver.control("subscribe", { topics: ["T1"] }); // takes effect when the current poll() returns
    driver.runAnswering(() => JSON.stringify(driver.snapshot.subscription) === '["T1"]');
    driver.answerSync({ assignment: { T1: [0], T2: [1] } });
    driver.runAnswering(() => driver.joins().length === 4);
    expect(driver.lastOf("JoinGroupRequest").message.reason).toBe("received assignment does not match the current subscription");
    expect(driver.owned).toEqual({ T1: [0] });
    expect(driver.timeline("member.callback").filter((c) => c.includes("T2"))).toEqual([]);
  });
});
