import { ErrorCode, ms } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { ConsumerDriver, committedOffsetsOf, isPollReturn, lastWhere, T1_ID, testConfig } from "./consumer-test-support.js";

/** The offsets of an OffsetCommit request, as "topic-partition" -> offset. */
function offsetsOf(driver: ConsumerDriver, index = -1): Record<string, number> {
  const request = driver.sentOf("OffsetCommitRequest").at(index)?.message;
  return request === undefined ? {} : committedOffsetsOf(request);
}

/** The next offset of each partition the application has been handed (what a commit should carry). */
function consumedPositions(driver: ConsumerDriver): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of driver.recordRanges()) out[`${r.topic}-${r.partition}`] = Number(r.lastOffset) + 1;
  return out;
}

describe("offset commits (spec 5)", () => {
  it("auto-commits the consumed positions every auto.commit.interval.ms, inside poll(), with OffsetCommit v9 and the exact epoch", () => {
    const driver = new ConsumerDriver(testConfig({ consumer: { "auto.commit.interval.ms": 2000, "group.instance.id": "i-9" } }));
    driver.joinStable([0, 1], 7);
    driver.runUntil(() => driver.sentOf("OffsetCommitRequest").length === 1);
    const first = driver.lastOf("OffsetCommitRequest");
    expect(first.at).toBeGreaterThanOrEqual(ms(2000));
    expect(first.at).toBeLessThan(ms(2200));
    // Sent as the application entered poll(): everything handed out before is processed.
    const pollEntries = driver.ctx.seen.filter((s) => isPollReturn(s.observation)).map((s) => s.at);
    expect(first.message).toMatchObject({ apiVersion: 9, groupId: "g1", generationIdOrMemberEpoch: 7, groupInstanceId: "i-9" });
    expect(first.message.memberId).toBe(driver.heartbeats()[0]?.message.memberId);
    expect(offsetsOf(driver)).toEqual(consumedPositions(driver));
    expect(pollEntries.length).toBeGreaterThan(0);
    // One in flight at a time.
    driver.run(5000);
    expect(driver.sentOf("OffsetCommitRequest")).toHaveLength(1);
    driver.answerOffsetCommit();
    expect(driver.observations("member.commit")).toEqual([
      expect.objectContaining({
        kind: "auto",
        memberEpoch: 7,
        result: "NONE",
        topics: [{ topic: "T1", partitions: [0, 1], offsets: [offsetsOf(driver)["T1-0"], offsetsOf(driver)["T1-1"]] }],
      }),
    ]);
    driver.runUntil(() => driver.sentOf("OffsetCommitRequest").length === 2, 2500);
  });

  it("a retriable auto-commit failure brings the next one forward to the backoff; the coordinator is rediscovered", () => {
    const driver = new ConsumerDriver(testConfig({ consumer: { "auto.commit.interval.ms": 5000 } }));
    driver.joinStable([0]);
    driver.runUntil(() => driver.sentOf("OffsetCommitRequest").length === 1);
    driver.answerOffsetCommit(ErrorCode.NOT_COORDINATOR);
    expect(driver.observations("member.commit").at(-1)).toMatchObject({ kind: "auto", result: "NOT_COORDINATOR" });
    expect(driver.snapshot.coordinator).toBeNull();
    driver.answerFindCoordinator();
    const failedAt = driver.now;
    driver.runUntil(() => driver.sentOf("OffsetCommitRequest").length === 2, 1000);
    expect(driver.now - failedAt).toBeLessThan(ms(300));
  });

  it("retries the commit before a revocation on STALE_MEMBER_EPOCH with the fresh epoch", () => {
    const driver = new ConsumerDriver();
    driver.joinStable([0, 1], 2);
    driver.run(5000);
    driver.answerHeartbeat({ epoch: 3, assignment: { [T1_ID]: [1] } });
    driver.runUntil(
      () =>
        driver.observations("member.commit").length === 0 &&
        driver.sentOf("OffsetCommitRequest").some((c) => c.message.generationIdOrMemberEpoch === 3),
    );
    // The coordinator bumped the member's epoch: commits fail until the member learns it (next heartbeat, at 10 s).
    let stale = 0;
    while (driver.heartbeats().length < 4) {
      const sent = driver.sentOf("OffsetCommitRequest").length;
      driver.answerOffsetCommit(ErrorCode.STALE_MEMBER_EPOCH);
      stale++;
      driver.runUntil(() => driver.sentOf("OffsetCommitRequest").length > sent || driver.heartbeats().length === 4, 2000);
    }
    driver.answerHeartbeat({ epoch: 4 });
    driver.runUntil(() => driver.lastOf("OffsetCommitRequest").message.generationIdOrMemberEpoch === 4, 2000);
    expect(stale).toBeGreaterThan(3);
    expect(driver.timeline("member.callback").filter((c) => c.startsWith("onPartitionsRevoked"))).toEqual([]);
    driver.answerOffsetCommit();
    driver.runUntil(() => driver.state === "STABLE");
    expect(driver.timeline("member.commit", "member.callback").slice(-6)).toEqual([
      "commit revocation STALE_MEMBER_EPOCH",
      "commit revocation NONE",
      'onPartitionsRevoked start {"T1":[0]}',
      'onPartitionsRevoked end {"T1":[0]}',
      "onPartitionsAssigned start {}",
      "onPartitionsAssigned end {}",
    ]);
  });

  it("a failed commit before a revocation is only logged: the revocation goes on", () => {
    // No interval auto-commit in the way: it would go first (one auto-commit at a time) and take the answer below.
    const driver = new ConsumerDriver(testConfig({ consumer: { "auto.commit.interval.ms": 60_000 } }));
    driver.joinStable([0, 1], 2);
    driver.run(5000);
    driver.answerHeartbeat({ epoch: 3, assignment: { [T1_ID]: [1] } });
    driver.runUntil(() => driver.sentOf("OffsetCommitRequest").some((c) => c.message.generationIdOrMemberEpoch === 3));
    driver.answerOffsetCommit(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    driver.runUntil(() => driver.state === "STABLE");
    expect(driver.timeline("member.commit").at(-1)).toBe("commit revocation GROUP_AUTHORIZATION_FAILED");
    expect(driver.snapshot.owned).toEqual({ T1: [1] });
  });

  it("sync-after-batch: commitSync after each processed batch, the application waits for it", () => {
    const driver = new ConsumerDriver(testConfig({ app: { commit: "sync-after-batch", processingMsPerRecord: 10 } }));
    driver.joinStable([0]);
    driver.runUntil(() => driver.sentOf("OffsetCommitRequest").length === 1);
    const commit = driver.lastOf("OffsetCommitRequest");
    const batch = driver.recordRanges().at(-1);
    expect(commit.at).toBe((lastWhere(driver.ctx.seen, (s) => isPollReturn(s.observation))?.at ?? 0) + ms(10 * Number(batch?.count)));
    expect(offsetsOf(driver)).toEqual({ "T1-0": Number(batch?.lastOffset) + 1 });
    const polls = driver.polls().length;
    driver.run(10_000); // no answer: the application is blocked in commitSync
    expect(driver.polls()).toHaveLength(polls);
    driver.answerOffsetCommit();
    driver.run(1);
    expect(driver.polls().length).toBeGreaterThan(polls);
    expect(driver.observations("member.commit").at(-1)).toMatchObject({ kind: "sync", result: "NONE" });
  });

  it("commit-sync: STALE_MEMBER_EPOCH is a CommitFailedException (not retried); retriable errors are retried", () => {
    const driver = new ConsumerDriver(testConfig({ app: { commit: "none" } }));
    driver.joinStable([0]);
    driver.run(500);
    driver.control("commit-sync");
    driver.runUntil(() => driver.sentOf("OffsetCommitRequest").length === 1);
    driver.answerOffsetCommit(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
    driver.runUntil(() => driver.sentOf("OffsetCommitRequest").length === 2, 200);
    driver.answerOffsetCommit(ErrorCode.STALE_MEMBER_EPOCH);
    driver.run(5000);
    expect(driver.sentOf("OffsetCommitRequest")).toHaveLength(2);
    expect(driver.timeline("member.commit")).toEqual(["commit sync COORDINATOR_LOAD_IN_PROGRESS", "commit sync STALE_MEMBER_EPOCH"]);
    expect(driver.ctx.logs.some((l) => l.message.includes("CommitFailedException"))).toBe(true);
    // The application carries on.
    const polls = driver.polls().length;
    driver.run(1000);
    expect(driver.polls().length).toBeGreaterThan(polls);
  });

  it("commits are reported as TIMEOUT when no answer comes", () => {
    const driver = new ConsumerDriver(testConfig({ app: { commit: "none" } }));
    driver.joinStable([0]);
    driver.run(500);
    driver.control("commit-sync");
    driver.run(1000); // made when the current poll() returns
    const sentAt = driver.lastOf("OffsetCommitRequest").at;
    driver.runUntilTime(sentAt + ms(30_000) - 1);
    expect(driver.timeline("member.commit")).toEqual([]);
    driver.run(0.001);
    expect(driver.timeline("member.commit")).toEqual(["commit sync TIMEOUT"]);
  });

  it("positions new partitions at their committed offset (OffsetFetch v9 with member id and epoch), else by auto.offset.reset", () => {
    const driver = new ConsumerDriver(testConfig({ consumer: { "auto.offset.reset": "earliest" }, app: { commit: "none" } }));
    driver.answerFindCoordinator();
    driver.run(0);
    driver.answerHeartbeat({ epoch: 6, assignment: { [T1_ID]: [0, 1] } });
    driver.runUntil(() => driver.sentOf("OffsetFetchRequest").length === 1);
    const fetch = driver.answerOffsetFetch({ "T1-1": 4 });
    expect(fetch).toMatchObject({ apiVersion: 9, requireStable: true });
    expect(fetch.groups).toEqual([
      {
        groupId: "g1",
        memberId: driver.heartbeats()[0]?.message.memberId,
        memberEpoch: 6,
        topics: [{ name: "T1", partitionIndexes: [0, 1] }],
      },
    ]);
    driver.run(1000);
    const first = (partition: number) => driver.recordRanges().find((r) => r.partition === partition)?.firstOffset;
    expect(first(0)).toBe(0); // earliest
    expect(first(1)).toBe(4); // committed
  });

  it("auto.offset.reset=latest starts at the log end", () => {
    const driver = new ConsumerDriver(testConfig({ app: { commit: "none" } }));
    driver.answerFindCoordinator();
    driver.run(3000);
    driver.answerHeartbeat({ epoch: 1, assignment: { [T1_ID]: [0] } });
    driver.runUntil(() => driver.sentOf("OffsetFetchRequest").length === 1);
    driver.answerOffsetFetch();
    driver.run(1000);
    // 10 records/s from t=0: at 3 s offsets 0..30 exist, so the first record handed out is 31.
    expect(driver.recordRanges()[0]).toMatchObject({ partition: 0, firstOffset: 31 });
  });
});
