import { ErrorCode, ms } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { ConsumerDriver, lastWhere, T1_ID, T2_ID, testConfig } from "./consumer-test-support.js";

describe("reconciliation (spec 2.2)", () => {
  it("revokes and assigns in order: commit, stop fetching, onPartitionsRevoked, install, onPartitionsAssigned, own, acknowledge", () => {
    const driver = new ConsumerDriver(testConfig({ app: { revokeCallbackMs: 50, assignCallbackMs: 20 } }));
    driver.joinStable([0, 1]);
    driver.run(5000);
    driver.answerHeartbeat({ epoch: 2, assignment: { [T1_ID]: [1, 2] } });
    driver.runUntil(() => driver.sentOf("OffsetCommitRequest").some((c) => c.message.generationIdOrMemberEpoch === 2));
    const commit = driver.lastOf("OffsetCommitRequest").message;
    // Positions of everything still assigned are committed before anything is given up.
    expect(commit.topics).toEqual([
      {
        name: "T1",
        partitions: expect.arrayContaining([
          expect.objectContaining({ partitionIndex: 0 }),
          expect.objectContaining({ partitionIndex: 1 }),
        ]),
      },
    ]);
    // Revoked partitions stop being owned before the commit completes or the callback starts.
    expect(driver.snapshot.owned).toEqual({ T1: [1] });
    const recordsBefore = driver.recordRanges().filter((r) => r.partition === 0).length;
    driver.run(500); // no more records of a partition being revoked
    expect(driver.recordRanges().filter((r) => r.partition === 0)).toHaveLength(recordsBefore);
    driver.answerOffsetCommit();
    driver.runUntil(() => driver.state === "STABLE");
    expect(driver.timeline("member.state", "member.owned", "member.callback", "member.commit").slice(-10)).toEqual([
      "state STABLE->RECONCILING",
      'owned {"T1":[1]} revoked',
      "commit revocation NONE",
      'onPartitionsRevoked start {"T1":[0]}',
      'onPartitionsRevoked end {"T1":[0]}',
      'onPartitionsAssigned start {"T1":[2]}',
      'onPartitionsAssigned end {"T1":[2]}',
      'owned {"T1":[1,2]} assigned',
      "state RECONCILING->ACKNOWLEDGING",
      "state ACKNOWLEDGING->STABLE",
    ]);
    // Callbacks last their configured time on the application thread.
    const at = (callback: string, phase: string) =>
      lastWhere(driver.ctx.seen, (s) => s.observation.callback === callback && s.observation.phase === phase)?.at ?? -1;
    expect(at("onPartitionsRevoked", "end") - at("onPartitionsRevoked", "start")).toBe(ms(50));
    expect(at("onPartitionsAssigned", "end") - at("onPartitionsAssigned", "start")).toBe(ms(20));
    // Only the added partition needs a committed offset; the acknowledgement lists the new assignment.
    expect(driver.lastOf("OffsetFetchRequest").message.groups[0]).toEqual({
      groupId: "g1",
      memberId: commit.memberId,
      memberEpoch: 2,
      topics: [{ name: "T1", partitionIndexes: [2] }],
    });
    expect(driver.lastOf("ConsumerGroupHeartbeatRequest").message).toMatchObject({
      memberEpoch: 2,
      topicPartitions: [{ topicId: T1_ID, partitions: [1, 2] }],
    });
    driver.answerOffsetFetch({ "T1-2": 3 });
    driver.run(200);
    expect(driver.recordRanges().find((r) => r.partition === 2)).toMatchObject({ firstOffset: 3 });
  });

  it("runs callbacks on the application thread: a slow batch delays them", () => {
    const driver = new ConsumerDriver(testConfig({ app: { processingMsPerRecord: 100 } }));
    driver.joinStable([0, 1]);
    driver.run(5000);
    // The application is processing a batch now (records arrive every 100 ms per partition, each takes 100 ms).
    expect(driver.snapshot.app).toMatchObject({ activity: "processing" });
    driver.answerHeartbeat({ epoch: 2, assignment: { [T1_ID]: [0, 1, 2] } });
    expect(driver.state).toBe("RECONCILING");
    // With auto-commit the reconciliation waits for the next poll(), i.e. the end of the batch.
    expect(driver.timeline("member.callback")).toHaveLength(2);
    const answeredAt = driver.now;
    driver.runUntil(() => driver.timeline("member.callback").length === 3);
    const started = lastWhere(driver.ctx.seen, (s) => s.observation.type === "member.callback");
    expect(started?.at).toBeGreaterThan(answeredAt);
    expect(started?.observation).toMatchObject({ callback: "onPartitionsAssigned", phase: "start" });
  });

  it("without auto-commit, starts at once but still runs the callbacks inside poll()", () => {
    const driver = new ConsumerDriver(testConfig({ app: { commit: "none", processingMsPerRecord: 100 } }));
    driver.joinStable([0, 1]);
    driver.run(5000);
    expect(driver.snapshot.app).toMatchObject({ activity: "processing" });
    driver.answerHeartbeat({ epoch: 2, assignment: { [T1_ID]: [1] } });
    // Revocation began at once: partition 0 is no longer owned, but its callback waits for the application thread.
    expect(driver.snapshot.owned).toEqual({ T1: [1] });
    expect(driver.timeline("member.callback")).toHaveLength(2);
    driver.runUntil(() => driver.state === "STABLE");
    expect(driver.sentOf("OffsetCommitRequest")).toHaveLength(0);
    expect(driver.timeline("member.callback").slice(2)).toEqual([
      'onPartitionsRevoked start {"T1":[0]}',
      'onPartitionsRevoked end {"T1":[0]}',
      "onPartitionsAssigned start {}",
      "onPartitionsAssigned end {}",
    ]);
  });

  it("goes back to RECONCILING when the target moved while reconciling, and reconciles one at a time", () => {
    const driver = new ConsumerDriver(testConfig({ app: { commit: "none", assignCallbackMs: 1000 } }));
    driver.answerFindCoordinator();
    driver.run(0);
    driver.answerHeartbeat({ epoch: 1, intervalMs: 500, assignment: { [T1_ID]: [0] } });
    driver.run(500); // the interval heartbeat goes while onPartitionsAssigned([0]) runs
    driver.answerHeartbeat({ epoch: 2, intervalMs: 500, assignment: { [T1_ID]: [0, 1], [T2_ID]: [0] } });
    driver.runUntil(() => driver.state === "ACKNOWLEDGING");
    expect(driver.lastOf("ConsumerGroupHeartbeatRequest").message.topicPartitions).toEqual([{ topicId: T1_ID, partitions: [0] }]);
    driver.answerHeartbeat({ epoch: 2, intervalMs: 500 });
    driver.runUntil(() => driver.state === "STABLE");
    expect(driver.timeline("member.state")).toEqual([
      "state UNSUBSCRIBED->JOINING",
      "state JOINING->RECONCILING",
      "state RECONCILING->ACKNOWLEDGING",
      "state ACKNOWLEDGING->RECONCILING",
      "state RECONCILING->ACKNOWLEDGING",
      "state ACKNOWLEDGING->STABLE",
    ]);
    expect(driver.timeline("member.callback").filter((c) => c.includes("start"))).toEqual([
      'onPartitionsAssigned start {"T1":[0]}',
      'onPartitionsAssigned start {"T1":[1],"T2":[0]}',
    ]);
    expect(driver.snapshot.owned).toEqual({ T1: [0, 1], T2: [0] });
    expect(driver.lastOf("ConsumerGroupHeartbeatRequest").message.topicPartitions).toEqual(
      [
        { topicId: T1_ID, partitions: [0, 1] },
        { topicId: T2_ID, partitions: [0] },
      ].sort((a, b) => (a.topicId < b.topicId ? -1 : 1)),
    );
  });

  it("drops a reconciliation when the member is fenced in the middle of it", () => {
    const driver = new ConsumerDriver(testConfig({ app: { commit: "none", revokeCallbackMs: 8000, lostCallbackMs: 10 } }));
    driver.joinStable([0, 1]);
    driver.run(5000);
    driver.answerHeartbeat({ epoch: 2, assignment: { [T1_ID]: [1, 2] } });
    driver.runUntil(() => driver.timeline("member.callback").length === 3); // onPartitionsRevoked started
    driver.runUntil(() => driver.heartbeats().length === 4); // the interval heartbeat, during the callback
    driver.answerHeartbeat({ error: ErrorCode.FENCED_MEMBER_EPOCH });
    driver.runUntil(() => driver.state === "JOINING");
    expect(driver.timeline("member.callback").slice(2)).toEqual([
      'onPartitionsRevoked start {"T1":[0]}',
      'onPartitionsRevoked end {"T1":[0]}',
      'onPartitionsLost start {"T1":[0,1]}',
      'onPartitionsLost end {"T1":[0,1]}',
    ]);
    expect(driver.snapshot).toMatchObject({ owned: {}, assigned: {}, memberEpoch: 0 });
    expect(driver.lastOf("ConsumerGroupHeartbeatRequest").message).toMatchObject({ memberEpoch: 0, topicPartitions: [] });
  });

  it("calls onPartitionsAssigned with nothing when the first assignment is empty", () => {
    const driver = new ConsumerDriver();
    driver.answerFindCoordinator();
    driver.run(0);
    driver.answerHeartbeat({ epoch: 1, assignment: {} });
    driver.runUntil(() => driver.state === "STABLE");
    expect(driver.timeline("member.callback", "member.owned")).toEqual(["onPartitionsAssigned start {}", "onPartitionsAssigned end {}"]);
    expect(driver.lastOf("ConsumerGroupHeartbeatRequest").message.topicPartitions).toEqual([]);
  });
});
