import { ErrorCode, ms, type OffsetCommitRequest } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { ClassicDriver, classicConfig } from "./classic-test-support.js";
import { ConsumerDriver, committedOffsetsOf, type Sent, T1_ID, testConfig } from "./consumer-test-support.js";

type CommitSent = Sent & { message: OffsetCommitRequest };

/** A commit's offsets as "topic-partition" -> offset. */
function offsetsOf(commit: CommitSent): Record<string, number> {
  return committedOffsetsOf(commit.message);
}

/**
 * The coordinator's side: it applies the commits it accepts in the order it
 * answers them (as they arrive) and records, per partition, every offset
 * committed, so a test can check they never go backward.
 */
class CommitLog {
  readonly history = new Map<string, number[]>();

  accept(driver: ConsumerDriver, commit: CommitSent): void {
    driver.answerOffsetCommit(ErrorCode.NONE, commit);
    for (const [partition, offset] of Object.entries(offsetsOf(commit)))
      this.history.set(partition, [...(this.history.get(partition) ?? []), offset]);
  }

  /** Partitions whose committed offset went down at some point. */
  backward(): string[] {
    return [...this.history]
      .filter(([, offsets]) => offsets.some((offset, i) => i > 0 && offset < (offsets[i - 1] as number)))
      .map(([p]) => p);
  }
}

describe("auto-commits in flight: committed offsets never go backward", () => {
  it("KIP-848: the commit before a revocation goes at once, behind the interval auto-commit in flight, and nothing auto-commits on the interval between its retries", () => {
    // The interval (500 ms) comes due while the commit before the revocation backs off (1 s).
    const driver = new ConsumerDriver(
      testConfig({ consumer: { "auto.commit.interval.ms": 500, "retry.backoff.ms": 1000, "retry.backoff.max.ms": 1000 } }),
    );
    const log = new CommitLog();
    const commits = () => driver.sentOf("OffsetCommitRequest");
    driver.joinStable([0, 1], 2);
    driver.runUntil(() => commits().length === 1);
    const interval = commits()[0] as CommitSent;
    // At the next heartbeat the coordinator revokes T1-0, while that interval auto-commit is still out.
    driver.runUntil(() => driver.heartbeats().length === 3);
    driver.answerHeartbeat({ epoch: 3, assignment: { [T1_ID]: [1] } });
    driver.run(100);
    expect(driver.snapshot.reconciling).toBe(true);
    // Kafka's requestAutoCommit does not wait for the one in flight: both are out, on one connection, in order.
    expect(commits()).toHaveLength(2);
    const revocation = commits()[1] as CommitSent;
    expect(revocation.message.generationIdOrMemberEpoch).toBe(3);
    for (const [partition, offset] of Object.entries(offsetsOf(interval)))
      expect(offsetsOf(revocation)[partition]).toBeGreaterThanOrEqual(offset);
    log.accept(driver, interval);
    driver.answerOffsetCommit(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, revocation);

    // The application polls on (T1-1 is still owned) and the interval comes due, but nothing is committed until the retry.
    const failedAt = driver.now;
    const polls = driver.polls().length;
    driver.runUntilTime(failedAt + ms(1000) - 1);
    expect(driver.polls().length).toBeGreaterThan(polls);
    expect(commits()).toHaveLength(2);
    driver.run(0.001);
    expect(commits()).toHaveLength(3);
    const retry = commits()[2] as CommitSent;
    // Retried with the positions consumed by the time the attempt failed: none behind the first attempt.
    expect(offsetsOf(retry)["T1-0"]).toBe(offsetsOf(revocation)["T1-0"]);
    expect(offsetsOf(retry)["T1-1"]).toBeGreaterThanOrEqual(offsetsOf(revocation)["T1-1"] as number);
    log.accept(driver, retry);
    driver.runUntil(() => driver.state === "STABLE");

    // Interval auto-commits resume after it, newer still.
    driver.runUntil(() => commits().length === 4);
    log.accept(driver, commits()[3] as CommitSent);
    expect(driver.timeline("member.commit")).toEqual([
      "commit auto NONE",
      "commit revocation COORDINATOR_LOAD_IN_PROGRESS",
      "commit revocation NONE",
      "commit auto NONE",
    ]);
    expect(log.backward()).toEqual([]);
  });

  it("KIP-848: close() in the backoff of the commit before a revocation: its commit goes at once, and the retry, with the positions of its failure, lands after it, backward (as Kafka's AsyncKafkaConsumer does)", () => {
    // AsyncKafkaConsumer.releaseAssignmentAndLeaveGroup commits all consumed (commitSyncAllConsumed) without waiting for the
    // reconciliation's auto-commit, which CommitRequestManager.autoCommitSyncBeforeRevocationWithRetries retries, after a
    // backoff, with subscriptions.allConsumed() taken when the attempt failed; the member is still in the group (epoch 3)
    // until it has run onPartitionsRevoked and sends its leave heartbeat.
    const driver = new ConsumerDriver(
      testConfig({
        consumer: { "auto.commit.interval.ms": 5000, "retry.backoff.ms": 3000, "retry.backoff.max.ms": 3000 },
        // onPartitionsRevoked takes 1.5 s: the member leaves (epoch -1) only once it returns.
        app: { revokeCallbackMs: 1500 },
        source: { recordsPerSecondPerPartition: 1000 },
      }),
    );
    const log = new CommitLog();
    const commits = () => driver.sentOf("OffsetCommitRequest");
    driver.joinStable([0, 1], 2);
    driver.runUntil(() => commits().length === 1);
    log.accept(driver, commits()[0] as CommitSent);
    driver.runUntil(() => driver.heartbeats().length >= 3);
    driver.answerHeartbeat({ epoch: 3, assignment: { [T1_ID]: [1] } });
    driver.runUntil(() => commits().length === 2);
    driver.answerOffsetCommit(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, commits()[1] as CommitSent);
    const failedAt = driver.now;
    // The application goes on consuming T1-1 (still its own), then closes before the retry.
    driver.runUntilTime(failedAt + ms(2000));
    driver.control("close");
    driver.runUntil(() => commits().length === 3);
    const onClose = commits()[2] as CommitSent;
    log.accept(driver, onClose);
    driver.runUntil(() => commits().length === 4, 2000);
    const retry = commits()[3] as CommitSent;
    expect(retry.at - failedAt).toBe(ms(3000));
    expect(retry.message.generationIdOrMemberEpoch).toBe(3);
    expect(offsetsOf(retry)["T1-1"]).toBeLessThan(offsetsOf(onClose)["T1-1"] as number);
    log.accept(driver, retry);
    expect(log.backward()).toEqual(["T1-1"]);
  });

  it("classic: no interval auto-commit between onJoinPrepare's commit and its retry, even after older auto-commits complete meanwhile", () => {
    const driver = new ClassicDriver(
      classicConfig({
        consumer: {
          "partition.assignment.strategy": ["cooperative-sticky"],
          "auto.commit.interval.ms": 1000,
          "retry.backoff.ms": 3000,
          "retry.backoff.max.ms": 3000,
        },
      }),
    );
    const log = new CommitLog();
    const commits = () => driver.sentOf("OffsetCommitRequest");
    driver.joinStableWith({ T1: [0, 1] }, 5);
    driver.runUntil(() => commits().length === 1);
    // A rebalance begins while the interval auto-commits made so far are still out.
    driver.runUntil(() => driver.classicHeartbeats().length === 1);
    const intervals = commits() as CommitSent[];
    expect(intervals.length).toBeGreaterThan(1);
    driver.answerClassicHeartbeat(ErrorCode.REBALANCE_IN_PROGRESS);
    driver.runUntil(() => commits().length === intervals.length + 1);
    const prepare = commits().at(-1) as CommitSent;
    for (const interval of intervals) log.accept(driver, interval);
    driver.answerOffsetCommit(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, prepare);

    // The poll loop goes on and the interval comes due, but nothing is committed until the retry.
    const failedAt = driver.now;
    driver.runUntilTime(failedAt + ms(3000) - 1);
    expect(commits()).toHaveLength(intervals.length + 1);
    driver.runUntil(() => commits().length === intervals.length + 2, 10);
    const retry = commits().at(-1) as CommitSent;
    expect(driver.now - failedAt).toBe(ms(3000));
    for (const [partition, offset] of Object.entries(offsetsOf(prepare)))
      expect(offsetsOf(retry)[partition]).toBeGreaterThanOrEqual(offset);
    log.accept(driver, retry);
    const joins = driver.joins().length;
    driver.runUntil(() => driver.joins().length > joins);
    // Interval auto-commits only after it.
    for (const later of commits().slice(intervals.length + 2)) log.accept(driver, later as CommitSent);
    expect(driver.timeline("member.commit").slice(0, intervals.length + 2)).toEqual([
      ...intervals.map(() => "commit auto NONE"),
      "commit revocation COORDINATOR_LOAD_IN_PROGRESS",
      "commit revocation NONE",
    ]);
    expect(log.backward()).toEqual([]);
  });

  it("classic: the interval auto-commit goes when due, past one still in flight (ConsumerCoordinator.maybeAutoCommitOffsetsAsync looks only at its timer)", () => {
    const driver = new ClassicDriver(classicConfig({ consumer: { "auto.commit.interval.ms": 1000 } }));
    const log = new CommitLog();
    const commits = () => driver.sentOf("OffsetCommitRequest");
    driver.joinStableWith({ T1: [0, 1] }, 5);
    driver.runUntil(() => commits().length === 1);
    const first = commits()[0] as CommitSent;
    driver.forgetRoutine();
    driver.runAnswering(() => commits().length === 3, 5000, true);
    const [, second, third] = commits() as CommitSent[];
    expect(second?.at).toBe(first.at + ms(1000));
    expect(third?.at).toBe(first.at + ms(2000));
    // Answered in the order they went out, as one connection delivers them: never backward.
    for (const commit of commits() as CommitSent[]) log.accept(driver, commit);
    expect(driver.timeline("member.commit")).toEqual(["commit auto NONE", "commit auto NONE", "commit auto NONE"]);
    expect(log.backward()).toEqual([]);
  });

  it("KIP-848: with an interval auto-commit lost, the commit before a revocation goes at once; the first timeout closes the connection and fails both; the retry goes to the coordinator found again", () => {
    const driver = new ConsumerDriver(testConfig({ consumer: { "auto.commit.interval.ms": 2000 } }));
    const commits = () => driver.sentOf("OffsetCommitRequest");
    driver.joinStable([0, 1], 2);
    driver.runUntil(() => commits().length === 1);
    const lost = commits()[0] as CommitSent;
    driver.runUntil(() => driver.heartbeats().length === 3);
    driver.answerHeartbeat({ epoch: 3, assignment: { [T1_ID]: [1] } });
    driver.run(100);
    expect(driver.snapshot.reconciling).toBe(true);
    expect(commits()).toHaveLength(2);
    // Heartbeats go on being answered; the commit before the revocation is lost too, and nothing more is committed.
    driver.runWithCoordinator((lost.at + ms(30_000) - 1 - driver.now) / 1000);
    expect(commits()).toHaveLength(2);
    // request.timeout.ms after the first went out, it fails and closes the connection, failing the second with it.
    driver.run(0.001);
    expect(driver.timeline("member.commit")).toEqual(["commit auto TIMEOUT", "commit revocation NETWORK_EXCEPTION"]);
    expect(driver.snapshot.coordinator).toBeNull();
    driver.answerFindCoordinator();
    driver.runUntil(() => commits().length === 3, 2000);
    driver.answerOffsetCommit();
    driver.runUntil(() => driver.state === "STABLE");
    expect(driver.timeline("member.commit").at(-1)).toBe("commit revocation NONE");
    expect(driver.snapshot.owned).toEqual({ T1: [1] });
  });

  it("classic: when the commit before the revocation is lost too, the first timeout fails them all (not one 30 s wait each)", () => {
    const driver = new ClassicDriver(classicConfig({ consumer: { "auto.commit.interval.ms": 1000 } }));
    const commits = () => driver.sentOf("OffsetCommitRequest");
    driver.joinStableWith({ T1: [0, 1] }, 5);
    driver.runUntil(() => commits().length === 1);
    const lost = commits()[0] as CommitSent;
    driver.runUntil(() => driver.classicHeartbeats().length > 0);
    const intervals = commits().length;
    driver.answerClassicHeartbeat(ErrorCode.REBALANCE_IN_PROGRESS);
    driver.runUntil(() => commits().length === intervals + 1);
    // Every commit is lost on the way; heartbeats are answered (onJoinPrepare runs while the member is still STABLE).
    driver.forgetRoutine();
    driver.runAnswering(() => driver.now >= lost.at + ms(30_000), 60_000);
    const failed = [
      "commit auto TIMEOUT",
      ...Array.from({ length: intervals - 1 }, () => "commit auto NETWORK_EXCEPTION"),
      "commit revocation NETWORK_EXCEPTION",
    ];
    expect(driver.timeline("member.commit")).toEqual(failed);
    expect(driver.snapshot.coordinator).toBeNull();
    driver.answerFindCoordinator();
    driver.runAnswering(() => commits().length === intervals + 2, 1000);
    expect((commits().at(-1) as CommitSent).at - lost.at).toBe(ms(30_100));
    driver.runAnswering(() => driver.joins().length === 3);
    expect(driver.timeline("member.commit").slice(0, intervals + 2)).toEqual([...failed, "commit revocation NONE"]);
  });
});
