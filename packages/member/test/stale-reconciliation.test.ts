import { describe, expect, it } from "vitest";
import { ConsumerDriver, T1_ID, testConfig } from "./consumer-test-support.js";

/**
 * The race kcsim's chaos hunts found (README, "What kcsim found"): a
 * reconciliation whose commit before revocation is slow completes after a
 * newer target already took one of its added partitions away. Kafka installs
 * the partition anyway (AbstractMembershipManager aborts only on leaving
 * RECONCILING or rejoining); kcsim.reconciliation.skip.released.partitions
 * leaves it out.
 */
function reconcileAcrossANewerTarget(skip: boolean): ConsumerDriver {
  const driver = new ConsumerDriver(
    testConfig({
      consumer: { "kcsim.reconciliation.skip.released.partitions": skip },
      app: { revokeCallbackMs: 10, assignCallbackMs: 10 },
    }),
  );
  driver.joinStable([0, 1]);
  driver.run(5000);
  // Target 2 revokes 0 and adds 2; the commit before revocation goes out and is not answered yet.
  driver.answerHeartbeat({ epoch: 2, assignment: { [T1_ID]: [1, 2] } });
  driver.runUntil(() => driver.sentOf("OffsetCommitRequest").some((c) => c.message.generationIdOrMemberEpoch === 2));
  const commit = driver.lastOf("OffsetCommitRequest");
  // Meanwhile the interval heartbeat brings target 3, which gives partition 2 to someone else.
  const heartbeats = driver.heartbeats().length;
  driver.runUntil(() => driver.heartbeats().length > heartbeats);
  driver.answerHeartbeat({ epoch: 3, assignment: { [T1_ID]: [1] } });
  driver.answerOffsetCommit(undefined, commit);
  // The scripted coordinator answers every commit, and every acknowledgement at epoch 3, until the member settles.
  for (let round = 0; round < 8 && driver.state !== "STABLE"; round++) {
    const commits = driver.sentOf("OffsetCommitRequest").length;
    driver.runUntil(() => driver.state === "ACKNOWLEDGING" || driver.sentOf("OffsetCommitRequest").length > commits);
    if (driver.sentOf("OffsetCommitRequest").length > commits) driver.answerOffsetCommit();
    else driver.answerHeartbeat({ epoch: 3 });
  }
  expect(driver.state).toBe("STABLE");
  return driver;
}

describe("a reconciliation that outlives its target", () => {
  it("Kafka's behaviour: installs the partition the newer target released, then revokes it", () => {
    const driver = reconcileAcrossANewerTarget(false);
    const owned = driver.timeline("member.owned");
    expect(owned).toContain('owned {"T1":[1,2]} assigned');
    expect(driver.timeline("member.callback").filter((c) => c.includes("start"))).toEqual([
      'onPartitionsAssigned start {"T1":[0,1]}',
      'onPartitionsRevoked start {"T1":[0]}',
      'onPartitionsAssigned start {"T1":[2]}',
      'onPartitionsRevoked start {"T1":[2]}',
      "onPartitionsAssigned start {}",
    ]);
    expect(driver.snapshot.owned).toEqual({ T1: [1] });
  });

  it("with kcsim.reconciliation.skip.released.partitions: never owns the released partition", () => {
    const driver = reconcileAcrossANewerTarget(true);
    expect(driver.timeline("member.owned").some((o) => o.includes("2"))).toBe(false);
    expect(driver.timeline("member.callback").filter((c) => c.includes("start"))).toEqual([
      'onPartitionsAssigned start {"T1":[0,1]}',
      'onPartitionsRevoked start {"T1":[0]}',
      "onPartitionsAssigned start {}",
    ]);
    expect(driver.snapshot.owned).toEqual({ T1: [1] });
    // The acknowledgement lists what it really owns, at the newest epoch.
    expect(driver.lastOf("ConsumerGroupHeartbeatRequest").message).toMatchObject({
      memberEpoch: 3,
      topicPartitions: [{ topicId: T1_ID, partitions: [1] }],
    });
  });
});
