import { ErrorCode, ms } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { ClassicDriver, classicConfig, joinSubscription } from "./classic-test-support.js";

/** A STABLE member at generation 5 that consumed some records, with its heartbeats and fetches answered. */
function stableAt5(config = classicConfig()): ClassicDriver {
  const driver = new ClassicDriver(config);
  driver.joinStableWith({ T1: [0, 1] }, 5);
  driver.runAnswering(() => driver.recordRanges().length > 2);
  return driver;
}

/** Sends a commitSync() (from the application thread, between two poll steps) and waits for its request. */
function commitSync(driver: ClassicDriver): void {
  const commits = driver.sentOf("OffsetCommitRequest").length;
  driver.forgetRoutine();
  driver.control("commit-sync");
  driver.runUntil(() => driver.sentOf("OffsetCommitRequest").length > commits);
  driver.forgetRoutine(); // answered by hand
}

describe("classic offset commits (generation + member id)", () => {
  it("auto-commits every auto.commit.interval.ms with the generation, the member id and the instance id", () => {
    const driver = new ClassicDriver(classicConfig({ consumer: { "auto.commit.interval.ms": 2000, "group.instance.id": "i-4" } }));
    driver.answerFindCoordinator();
    driver.runUntil(() => driver.joins().length === 1);
    driver.answerJoin({ memberId: "i-4-x", generation: 9 });
    driver.runUntil(() => driver.syncs().length === 1);
    driver.answerSync({ assignment: { T1: [0] } });
    driver.runAnswering(() => driver.observations("member.commit").length >= 2);
    const commit = driver.lastOf("OffsetCommitRequest").message;
    expect(commit).toMatchObject({ apiVersion: 9, groupId: "g1", generationIdOrMemberEpoch: 9, memberId: "i-4-x", groupInstanceId: "i-4" });
    expect(driver.observations("member.commit")[0]).toMatchObject({ kind: "auto", memberEpoch: 9, memberId: "i-4-x", result: "NONE" });
    const times = driver.sentOf("OffsetCommitRequest").map((c) => c.at);
    expect((times[1] ?? 0) - (times[0] ?? 0)).toBeGreaterThanOrEqual(ms(2000));
  });

  it("ILLEGAL_GENERATION: CommitFailedException, the generation is reset (member id kept), partitions lost, rejoin on the next poll", () => {
    const driver = stableAt5();
    commitSync(driver);
    const joins = driver.joins().length;
    driver.answerOffsetCommit(ErrorCode.ILLEGAL_GENERATION);
    expect(driver.ctx.logs.some((l) => l.message === "commit failed: CommitFailedException")).toBe(true);
    expect(driver.state).toBe("UNJOINED");
    expect(driver.owned).toEqual({});
    driver.runAnswering(() => driver.joins().length === joins + 1);
    expect(driver.lastOf("JoinGroupRequest").message.memberId).toBe("m-1");
    expect(driver.timeline("member.callback").slice(-1)).toEqual(['onPartitionsLost end {"T1":[0,1]}']);
  });

  it("UNKNOWN_MEMBER_ID: the member id goes too", () => {
    const driver = stableAt5();
    commitSync(driver);
    const joins = driver.joins().length;
    driver.answerOffsetCommit(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(driver.memberId).toBe("");
    driver.runAnswering(() => driver.joins().length === joins + 1);
    expect(driver.lastOf("JoinGroupRequest").message.memberId).toBe("");
  });

  it("REBALANCE_IN_PROGRESS: a rejoin is requested; the generation and the partitions stay until the next poll's revocation", () => {
    const driver = stableAt5();
    commitSync(driver);
    const joins = driver.joins().length;
    driver.answerOffsetCommit(ErrorCode.REBALANCE_IN_PROGRESS);
    expect(driver.state).toBe("STABLE");
    expect(driver.owned).toEqual({ T1: [0, 1] });
    expect(driver.snapshot.rejoinNeeded).toBe(true);
    driver.runAnswering(() => driver.joins().length === joins + 1);
    const join = driver.lastOf("JoinGroupRequest").message;
    expect(join.reason).toBe("offset commit failed since group is already rebalancing");
    expect(joinSubscription(join, "range").generationId).toBe(5);
    expect(driver.timeline("member.callback").slice(-1)).toEqual(['onPartitionsRevoked end {"T1":[0,1]}']);
  });

  it("FENCED_INSTANCE_ID in the current generation is fatal", () => {
    const driver = stableAt5(classicConfig({ consumer: { "group.instance.id": "i-1" } }));
    commitSync(driver);
    driver.answerOffsetCommit(ErrorCode.FENCED_INSTANCE_ID);
    expect(driver.state).toBe("FATAL");
    expect(driver.observations("member.fatal")).toEqual([expect.objectContaining({ error: "FENCED_INSTANCE_ID" })]);
  });

  it("an error for an older generation while already rejoining only fails the commit (no reset)", () => {
    const driver = stableAt5(
      classicConfig({ consumer: { "partition.assignment.strategy": ["cooperative-sticky"], "auto.commit.interval.ms": 1000 } }),
    );
    // An auto-commit at generation 5 stays unanswered while the member moves to generation 6 and rejoins again.
    driver.forgetRoutine();
    const commits = driver.sentOf("OffsetCommitRequest").length;
    driver.runUntil(() => driver.sentOf("OffsetCommitRequest").length > commits);
    const old = driver.lastOf("OffsetCommitRequest");
    expect(old.message.generationIdOrMemberEpoch).toBe(5);
    driver.forgetRoutine();
    driver.rebalance({ T1: [0, 1] }, 6);
    const joins = driver.joins().length;
    const heartbeats = driver.classicHeartbeats().length;
    driver.runAnswering(() => driver.classicHeartbeats().length > heartbeats, 60_000, true);
    driver.answerClassicHeartbeat(ErrorCode.REBALANCE_IN_PROGRESS);
    driver.forgetRoutine();
    driver.runAnswering(() => driver.joins().length === joins + 1);
    expect(driver.state).toBe("PREPARING_REBALANCE");
    driver.answerOffsetCommit(ErrorCode.ILLEGAL_GENERATION, old);
    expect(driver.state).toBe("PREPARING_REBALANCE");
    expect(driver.generation).toBe(6);
    expect(driver.owned).toEqual({ T1: [0, 1] });
  });

  it("retriable errors of commitSync are retried until they succeed", () => {
    const driver = stableAt5(classicConfig({ app: { commit: "sync-after-batch" }, consumer: { "enable.auto.commit": false } }));
    commitSync(driver);
    const commits = driver.sentOf("OffsetCommitRequest").length;
    driver.answerOffsetCommit(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
    driver.runUntil(() => driver.sentOf("OffsetCommitRequest").length === commits + 1);
    driver.answerOffsetCommit(ErrorCode.NONE);
    expect(driver.timeline("member.commit").slice(-2)).toEqual(["commit sync COORDINATOR_LOAD_IN_PROGRESS", "commit sync NONE"]);
  });

  /** A cooperative member, auto-commit every second, whose JoinGroup after a REBALANCE_IN_PROGRESS heartbeat is out and unanswered. */
  function rebalancingWithPartitionsOwned(autoCommit: boolean): ClassicDriver {
    const driver = stableAt5(
      classicConfig({
        consumer: {
          "partition.assignment.strategy": ["cooperative-sticky"],
          "enable.auto.commit": autoCommit,
          "auto.commit.interval.ms": 1000,
        },
      }),
    );
    const heartbeats = driver.classicHeartbeats().length;
    driver.runAnswering(() => driver.classicHeartbeats().length > heartbeats, 60_000, true);
    driver.answerClassicHeartbeat(ErrorCode.REBALANCE_IN_PROGRESS);
    driver.forgetRoutine();
    const joins = driver.joins().length;
    driver.runAnswering(() => driver.joins().length === joins + 1);
    expect(driver.state).toBe("PREPARING_REBALANCE");
    return driver;
  }

  it("outside a stable generation nothing is sent: a commitSync() fails locally (RebalanceInProgressException)", () => {
    const driver = rebalancingWithPartitionsOwned(false);
    const sent = driver.sentOf("OffsetCommitRequest").length;
    driver.control("commit-sync");
    driver.runAnswering(() => driver.observations("member.commit").some((c) => c.result === "REBALANCE_IN_PROGRESS"), 5000);
    expect(driver.sentOf("OffsetCommitRequest")).toHaveLength(sent);
    expect(driver.observations("member.commit").at(-1)).toMatchObject({ kind: "sync", memberEpoch: 5, result: "REBALANCE_IN_PROGRESS" });
  });

  it("no interval auto-commit is made while a rebalance is pending (ConsumerCoordinator.poll returns before it)", () => {
    const driver = rebalancingWithPartitionsOwned(true);
    const observed = driver.observations("member.commit").length;
    const sent = driver.sentOf("OffsetCommitRequest").length;
    // Five auto-commit intervals with the JoinGroup unanswered and poll() called throughout.
    driver.run(5000);
    expect(driver.state).toBe("PREPARING_REBALANCE");
    expect(driver.observations("member.commit")).toHaveLength(observed);
    expect(driver.sentOf("OffsetCommitRequest")).toHaveLength(sent);
  });

  it("after the coordinator reset the member (heartbeat UNKNOWN_MEMBER_ID), a commitSync() commits nothing: the lost partitions are not its to commit", () => {
    const driver = stableAt5();
    driver.control("set-processing-ms", { ms: 2000 });
    const heartbeats = driver.classicHeartbeats().length;
    driver.runAnswering(
      () => (driver.snapshot.app as { activity: string }).activity === "processing" && driver.classicHeartbeats().length > heartbeats,
      60_000,
      true,
    );
    const sent = driver.sentOf("OffsetCommitRequest").length;
    const observed = driver.observations("member.commit").length;
    driver.answerClassicHeartbeat(ErrorCode.UNKNOWN_MEMBER_ID);
    driver.forgetRoutine();
    expect(driver.state).toBe("UNJOINED");
    driver.control("commit-sync");
    driver.runAnswering(() => driver.joins().length === 3, 60_000, true);
    expect(driver.sentOf("OffsetCommitRequest")).toHaveLength(sent);
    expect(driver.observations("member.commit")).toHaveLength(observed);
  });
});
