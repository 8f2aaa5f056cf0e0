import { ErrorCode, ms } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { ClassicDriver, classicConfig } from "./classic-test-support.js";
import { committedOffsetsOf } from "./consumer-test-support.js";

describe("classic EAGER rebalance (range)", () => {
  it("before every JoinGroup: ownership ends, auto-commit, onPartitionsRevoked(all); after SyncGroup onPartitionsAssigned(all)", () => {
    const driver = new ClassicDriver(classicConfig({ app: { revokeCallbackMs: 30, assignCallbackMs: 20 } }));
    driver.joinStableWith({ T1: [0, 1] }, 1);
    driver.runAnswering(() => driver.recordRanges().length > 3);
    expect(driver.snapshot.rebalanceProtocol).toBe("EAGER");
    const before = driver.ctx.seen.length;
    const heartbeats = driver.classicHeartbeats().length;
    driver.runAnswering(() => driver.classicHeartbeats().length > heartbeats, 60_000, true);
    const commits = driver.sentOf("OffsetCommitRequest").length;
    driver.answerClassicHeartbeat(ErrorCode.REBALANCE_IN_PROGRESS);
    driver.forgetRoutine();
    // The commit before the revocation goes out inside the next poll(), after ownership ended.
    driver.runUntil(() => driver.sentOf("OffsetCommitRequest").length === commits + 1);
    const commit = driver.lastOf("OffsetCommitRequest");
    expect(commit.message).toMatchObject({ generationIdOrMemberEpoch: 1, memberId: "m-1", groupInstanceId: null });
    const consumed: Record<string, number> = {};
    for (const r of driver.recordRanges()) consumed[`${r.topic}-${r.partition}`] = Number(r.lastOffset) + 1;
    expect(committedOffsetsOf(driver.lastOf("OffsetCommitRequest").message)).toEqual(consumed);
    expect(driver.owned).toEqual({});
    expect(driver.joins()).toHaveLength(2);
    driver.answerOffsetCommit(ErrorCode.NONE, commit);
    driver.runUntil(() => driver.joins().length === 3);
    const join = driver.lastOf("JoinGroupRequest");
    expect(join.message).toMatchObject({ memberId: "m-1", reason: "group is already rebalancing" });

    driver.answerJoin({ generation: 2 });
    driver.runUntil(() => driver.syncs().length === 2);
    driver.answerSync({ assignment: { T1: [1, 2] } });
    driver.runUntil(() => driver.snapshot.joinPhase === "idle");
    const timeline = driver.ctx.seen
      .slice(before)
      .filter((s) => ["member.state", "member.owned", "member.callback", "member.commit"].includes(s.observation.type));
    expect(driver.timeline("member.state", "member.owned", "member.callback", "member.commit").slice(-timeline.length)).toEqual([
      "owned {} revoked",
      "commit revocation NONE",
      'onPartitionsRevoked start {"T1":[0,1]}',
      'onPartitionsRevoked end {"T1":[0,1]}',
      "state STABLE->PREPARING_REBALANCE",
      "state PREPARING_REBALANCE->COMPLETING_REBALANCE",
      "state COMPLETING_REBALANCE->STABLE",
      'onPartitionsAssigned start {"T1":[1,2]}',
      'onPartitionsAssigned end {"T1":[1,2]}',
      'owned {"T1":[1,2]} assigned',
    ]);
    // Nothing owned from the moment the revocation began until the new assignment was taken.
    const ownedChanges = driver.ctx.seen.slice(before).filter((s) => s.observation.type === "member.owned");
    expect(ownedChanges[0]?.at).toBeLessThanOrEqual(commit.at);
    expect(ownedChanges[1]?.at).toBeGreaterThan(join.at);
    // EAGER sends no owned partitions: everything was revoked first.
    expect(driver.owned).toEqual({ T1: [1, 2] });
  });

  it("no records are handed out between the revocation and the new assignment", () => {
    const driver = new ClassicDriver(classicConfig({ app: { revokeCallbackMs: 10 }, source: { recordsPerSecondPerPartition: 1000 } }));
    driver.joinStableWith({ T1: [0, 1] }, 1);
    driver.runAnswering(() => driver.recordRanges().length > 3);
    const heartbeats = driver.classicHeartbeats().length;
    driver.runAnswering(() => driver.classicHeartbeats().length > heartbeats, 60_000, true);
    driver.answerClassicHeartbeat(ErrorCode.REBALANCE_IN_PROGRESS);
    driver.runAnswering(() => driver.joins().length === 3);
    const revokedAt = driver.ctx.seen.find((s) => s.observation.type === "member.owned" && s.observation.cause === "revoked")?.at ?? 0;
    driver.run(2000); // the JoinGroup is not answered yet: the group is rebalancing
    expect(driver.ctx.seen.filter((s) => s.observation.type === "member.records" && s.at > revokedAt)).toEqual([]);
    expect(driver.state).toBe("PREPARING_REBALANCE");
    expect(driver.classicHeartbeats().filter((h) => h.at > revokedAt + 1000)).toEqual([]); // no heartbeats while PREPARING
  });

  it("a member with nothing assigned still gets onPartitionsRevoked (empty) before the next JoinGroup, as Kafka calls it", () => {
    const driver = new ClassicDriver(classicConfig());
    driver.joinStableWith({}, 1);
    driver.rebalance({ T1: [3] }, 2);
    expect(driver.timeline("member.callback")).toEqual([
      "onPartitionsAssigned start {}",
      "onPartitionsAssigned end {}",
      "onPartitionsRevoked start {}",
      "onPartitionsRevoked end {}",
      'onPartitionsAssigned start {"T1":[3]}',
      'onPartitionsAssigned end {"T1":[3]}',
    ]);
  });

  it("a retriable failure of the commit before the revocation is retried (with fresh positions) before the JoinGroup", () => {
    const driver = new ClassicDriver(classicConfig());
    driver.joinStableWith({ T1: [0] }, 1);
    driver.runAnswering(() => driver.recordRanges().length > 2);
    driver.runToJoinPrepareCommit();
    const commits = driver.sentOf("OffsetCommitRequest").length;
    driver.answerOffsetCommit(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
    driver.runUntil(() => driver.sentOf("OffsetCommitRequest").length === commits + 1);
    expect(driver.joins()).toHaveLength(2);
    driver.answerOffsetCommit(ErrorCode.NONE);
    driver.runUntil(() => driver.joins().length === 3);
    expect(driver.timeline("member.commit").slice(-2)).toEqual([
      "commit revocation COORDINATOR_LOAD_IN_PROGRESS",
      "commit revocation NONE",
    ]);
  });

  it("onJoinPrepare waits for its commit no longer than the rebalance timeout: with the commit unanswered, the JoinGroup goes when it runs out", () => {
    const driver = new ClassicDriver(classicConfig({ consumer: { "max.poll.interval.ms": 4000 } }));
    driver.joinStableWith({ T1: [0] }, 1);
    driver.runAnswering(() => driver.recordRanges().length > 2);
    const commit = driver.runToJoinPrepareCommit();
    const commits = driver.sentOf("OffsetCommitRequest").length;
    driver.runUntil(() => driver.joins().length === 3, 10_000);
    const join = driver.lastOf("JoinGroupRequest");
    expect(join.at - commit.at).toBeGreaterThanOrEqual(ms(4000) - ms(1000));
    expect(join.at - commit.at).toBeLessThanOrEqual(ms(4000));
    expect(driver.sentOf("OffsetCommitRequest")).toHaveLength(commits);
    expect(driver.timeline("member.callback").slice(-2)).toEqual([
      'onPartitionsRevoked start {"T1":[0]}',
      'onPartitionsRevoked end {"T1":[0]}',
    ]);
  });
});
