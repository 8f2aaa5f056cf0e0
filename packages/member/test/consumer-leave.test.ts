import { ErrorCode } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { ConsumerDriver, T1_ID, testConfig } from "./consumer-test-support.js";

describe("leaving the group", () => {
  it("close(): commit, give up the partitions, onPartitionsRevoked, leave with epoch -1, then stop", () => {
    const driver = new ConsumerDriver(testConfig({ app: { revokeCallbackMs: 15 } }));
    driver.joinStable([0, 1], 4);
    driver.run(2000);
    driver.control("close");
    driver.runUntil(() => driver.state === "PREPARE_LEAVING");
    const commit = driver.lastOf("OffsetCommitRequest");
    expect(commit.message.generationIdOrMemberEpoch).toBe(4);
    driver.answerOffsetCommit(ErrorCode.NONE, commit);
    driver.runUntil(() => driver.state === "UNSUBSCRIBED");
    expect(driver.timeline("member.state", "member.owned", "member.callback", "member.commit").slice(-7)).toEqual([
      "state STABLE->PREPARE_LEAVING",
      "commit close NONE",
      "owned {} leave",
      'onPartitionsRevoked start {"T1":[0,1]}',
      'onPartitionsRevoked end {"T1":[0,1]}',
      "state PREPARE_LEAVING->LEAVING",
      "state LEAVING->UNSUBSCRIBED",
    ]);
    const leave = driver.lastOf("ConsumerGroupHeartbeatRequest");
    expect(leave.message).toMatchObject({ memberEpoch: -1, instanceId: null, topicPartitions: [], subscribedTopicNames: [] });
    expect(leave.at).toBe(driver.now);
    // Closed: no more polls, heartbeats or commits.
    const sent = driver.ctx.sent.length;
    const polls = driver.polls().length;
    driver.answerHeartbeat({ epoch: -1 });
    driver.run(60_000);
    expect(driver.ctx.sent).toHaveLength(sent);
    expect(driver.polls()).toHaveLength(polls);
    expect(driver.snapshot).toMatchObject({ state: "UNSUBSCRIBED", memberEpoch: -1, owned: {}, assigned: {}, app: { activity: "closed" } });
  });

  it("a static member leaves with epoch -2 and its instance id", () => {
    const driver = new ConsumerDriver(testConfig({ consumer: { "group.instance.id": "static-7" }, app: { commit: "none" } }));
    driver.joinStable([0]);
    driver.control("close");
    driver.runUntil(() => driver.state === "UNSUBSCRIBED");
    expect(driver.lastOf("ConsumerGroupHeartbeatRequest").message).toMatchObject({ memberEpoch: -2, instanceId: "static-7" });
  });

  it("a restarted static member rejoins at epoch 0 with the same instance id (and a new member id)", () => {
    const config = testConfig({ consumer: { "group.instance.id": "static-7" }, app: { commit: "none" } });
    const first = new ConsumerDriver(config, { seed: 1 });
    first.joinStable([0]);
    const second = new ConsumerDriver(config, { seed: 2 });
    second.answerFindCoordinator();
    second.run(0);
    const [a, b] = [first.heartbeats()[0]?.message, second.heartbeats()[0]?.message];
    expect(b).toMatchObject({ memberEpoch: 0, instanceId: "static-7" });
    expect(b?.memberId).not.toBe(a?.memberId);
  });

  it("unsubscribe() leaves; subscribe() then rejoins at epoch 0 with the same member id", () => {
    const driver = new ConsumerDriver(testConfig({ app: { commit: "none" } }));
    driver.joinStable([0, 1], 2);
    const memberId = driver.lastOf("ConsumerGroupHeartbeatRequest").message.memberId;
    driver.control("unsubscribe");
    driver.runUntil(() => driver.state === "UNSUBSCRIBED");
    expect(driver.lastOf("ConsumerGroupHeartbeatRequest").message.memberEpoch).toBe(-1);
    driver.answerHeartbeat({ epoch: -1 });
    const polls = driver.polls().length;
    driver.run(10_000);
    expect(driver.polls()).toHaveLength(polls); // not subscribed: the loop waits
    driver.control("subscribe", { topics: ["T2"] });
    driver.runUntil(() => driver.state === "JOINING");
    expect(driver.lastOf("ConsumerGroupHeartbeatRequest").message).toMatchObject({
      memberEpoch: 0,
      memberId,
      subscribedTopicNames: ["T2"],
    });
  });

  it("unsubscribe() with auto-commit on commits nothing: onPartitionsRevoked, then the leave heartbeat (AsyncKafkaConsumer commits on close() only)", () => {
    const driver = new ConsumerDriver(testConfig({ app: { revokeCallbackMs: 15 } }));
    driver.joinStable([0, 1], 4);
    driver.run(2000);
    // Records were consumed since the last auto-commit: close() would commit them, unsubscribe() must not.
    expect(driver.recordRanges().length).toBeGreaterThan(0);
    const commits = driver.sentOf("OffsetCommitRequest").length;
    driver.control("unsubscribe");
    driver.runUntil(() => driver.state === "UNSUBSCRIBED");
    expect(driver.sentOf("OffsetCommitRequest")).toHaveLength(commits);
    expect(driver.timeline("member.state", "member.owned", "member.callback", "member.commit").slice(-6)).toEqual([
      "state STABLE->PREPARE_LEAVING",
      "owned {} leave",
      'onPartitionsRevoked start {"T1":[0,1]}',
      'onPartitionsRevoked end {"T1":[0,1]}',
      "state PREPARE_LEAVING->LEAVING",
      "state LEAVING->UNSUBSCRIBED",
    ]);
    expect(driver.lastOf("ConsumerGroupHeartbeatRequest").message.memberEpoch).toBe(-1);
  });

  it("leaves without a leave heartbeat when no coordinator is known", () => {
    const driver = new ConsumerDriver(testConfig({ app: { commit: "none" } }));
    driver.joinStable([0]);
    driver.run(5000);
    driver.answerHeartbeat({ error: ErrorCode.NOT_COORDINATOR });
    const heartbeats = driver.heartbeats().length;
    driver.control("close");
    driver.runUntil(() => driver.state === "UNSUBSCRIBED");
    expect(driver.heartbeats()).toHaveLength(heartbeats);
    expect(driver.timeline("member.callback").slice(-2)).toEqual([
      'onPartitionsRevoked start {"T1":[0]}',
      'onPartitionsRevoked end {"T1":[0]}',
    ]);
  });

  it("close() while fenced: no leave heartbeat, no rejoin; the lost callback still runs", () => {
    const driver = new ConsumerDriver(testConfig({ app: { commit: "none", processingMsPerRecord: 1000 } }));
    driver.joinStable([0]);
    driver.run(5000);
    expect(driver.snapshot.app).toMatchObject({ activity: "processing" });
    driver.answerHeartbeat({ error: ErrorCode.FENCED_MEMBER_EPOCH });
    driver.control("close"); // made when the batch is done, before the next poll()
    driver.runUntil(() => (driver.snapshot.app as { activity: string }).activity === "closed");
    expect(driver.timeline("member.state").slice(-2)).toEqual(["state STABLE->FENCED", "state FENCED->UNSUBSCRIBED"]);
    expect(driver.timeline("member.callback").slice(-2)).toEqual(['onPartitionsLost start {"T1":[0]}', 'onPartitionsLost end {"T1":[0]}']);
    expect(driver.heartbeats().filter((h) => h.message.memberEpoch !== 1)).toHaveLength(1); // only the first join
    driver.run(30_000);
    expect(driver.state).toBe("UNSUBSCRIBED");
  });

  it("the application thread runs the release callbacks even while a batch was in progress", () => {
    const driver = new ConsumerDriver(testConfig({ app: { commit: "none", processingMsPerRecord: 300 } }));
    driver.joinStable([0, 1]);
    driver.run(1000);
    driver.control("close");
    const closedAt = driver.now;
    driver.runUntil(() => driver.state === "UNSUBSCRIBED");
    // close() is called between two steps of the loop: after the current batch.
    expect(driver.now).toBeGreaterThan(closedAt);
    expect(driver.timeline("member.callback").slice(-1)).toEqual([`onPartitionsRevoked end ${JSON.stringify({ T1: [0, 1] })}`]);
    expect(T1_ID).toBeTruthy();
  });
});
