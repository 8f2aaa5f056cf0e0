import { ErrorCode } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { ConsumerDriver, T1_ID, T2_ID, testConfig } from "./consumer-test-support.js";

/** The optional fields of a heartbeat, to compare full and partial requests at a glance. */
function optionalFields(driver: ConsumerDriver, index = -1) {
  const all = driver.heartbeats();
  const hb = all.at(index)?.message;
  if (hb === undefined) throw new Error("no heartbeat");
  return {
    epoch: hb.memberEpoch,
    rebalanceTimeoutMs: hb.rebalanceTimeoutMs,
    subscribedTopicNames: hb.subscribedTopicNames,
    serverAssignor: hb.serverAssignor,
    topicPartitions: hb.topicPartitions,
    instanceId: hb.instanceId,
  };
}

describe("heartbeat fields (spec 1.1)", () => {
  it("the joining heartbeat is full; steady-state heartbeats carry only the required fields", () => {
    const driver = new ConsumerDriver(testConfig({ subscription: ["T2", "T1"] }));
    driver.answerFindCoordinator();
    driver.run(0);
    const join = driver.lastOf("ConsumerGroupHeartbeatRequest").message;
    expect(join).toMatchObject({
      apiVersion: 1,
      groupId: "g1",
      memberEpoch: 0,
      instanceId: null,
      rackId: null,
      rebalanceTimeoutMs: 300000,
      subscribedTopicNames: ["T1", "T2"],
      subscribedTopicRegex: null,
      serverAssignor: null,
      topicPartitions: [],
    });
    expect(join.memberId).toMatch(/^[A-Za-z0-9_-]{22}$/);

    driver.answerHeartbeat({ epoch: 1, assignment: { [T1_ID]: [0, 1] } });
    driver.runUntil(() => driver.state === "STABLE");
    // The acknowledgement carries only the newly reconciled assignment.
    expect(optionalFields(driver)).toEqual({
      epoch: 1,
      rebalanceTimeoutMs: -1,
      subscribedTopicNames: null,
      serverAssignor: null,
      topicPartitions: [{ topicId: T1_ID, partitions: [0, 1] }],
      instanceId: null,
    });
    driver.answerHeartbeat({ epoch: 1 });
    driver.run(5000);
    expect(optionalFields(driver)).toEqual({
      epoch: 1,
      rebalanceTimeoutMs: -1,
      subscribedTopicNames: null,
      serverAssignor: null,
      topicPartitions: null,
      instanceId: null,
    });
    // The member id never changes.
    expect(new Set(driver.heartbeats().map((h) => h.message.memberId)).size).toBe(1);
  });

  it("every heartbeat while JOINING is full", () => {
    const driver = new ConsumerDriver();
    driver.answerFindCoordinator();
    driver.run(0);
    driver.answerHeartbeat({ epoch: 1 }); // no assignment yet: still JOINING, heartbeats again at once
    expect(driver.state).toBe("JOINING");
    expect(driver.heartbeats()).toHaveLength(2);
    expect(optionalFields(driver)).toMatchObject({ rebalanceTimeoutMs: 300000, subscribedTopicNames: ["T1"], topicPartitions: [] });
  });

  it.each([
    ["an error response", (driver: ConsumerDriver) => driver.answerHeartbeat({ error: ErrorCode.COORDINATOR_LOAD_IN_PROGRESS })],
    ["a transport failure", (driver: ConsumerDriver) => driver.run(30_000)],
  ])("after %s the next heartbeat carries every field", (_, fail) => {
    // No auto-commit: an unanswered commit would time out too and blur the picture.
    const driver = new ConsumerDriver(testConfig({ consumer: { "group.remote.assignor": "range" }, app: { commit: "none" } }));
    driver.joinStable([0, 1]);
    driver.run(5000);
    expect(optionalFields(driver)).toMatchObject({ serverAssignor: null, rebalanceTimeoutMs: -1 });
    fail(driver);
    if (driver.snapshot.coordinator === null) driver.answerFindCoordinator();
    driver.runUntil(() => driver.heartbeats().length === 4);
    expect(optionalFields(driver)).toEqual({
      epoch: 1,
      rebalanceTimeoutMs: 300000,
      subscribedTopicNames: ["T1"],
      serverAssignor: "range",
      topicPartitions: [{ topicId: T1_ID, partitions: [0, 1] }],
      instanceId: null,
    });
    driver.answerHeartbeat({ epoch: 1 });
    driver.run(5000);
    expect(optionalFields(driver)).toMatchObject({
      rebalanceTimeoutMs: -1,
      subscribedTopicNames: null,
      serverAssignor: null,
      topicPartitions: null,
    });
  });

  it("sends the server assignor when joining, the instance id always", () => {
    const driver = new ConsumerDriver(testConfig({ consumer: { "group.remote.assignor": "uniform", "group.instance.id": "i-1" } }));
    driver.joinStable([0]);
    driver.run(5000);
    const hbs = driver.heartbeats().map((h) => h.message);
    expect(hbs.map((h) => h.serverAssignor)).toEqual(["uniform", null, null]);
    expect(hbs.map((h) => h.instanceId)).toEqual(["i-1", "i-1", "i-1"]);
  });

  it("sends a changed subscription (sorted) with the next heartbeat", () => {
    const driver = new ConsumerDriver();
    driver.joinStable([0, 1]);
    driver.control("subscribe", { topics: ["T2", "T1"] });
    driver.run(5000);
    expect(optionalFields(driver)).toMatchObject({ subscribedTopicNames: ["T1", "T2"], rebalanceTimeoutMs: -1, topicPartitions: null });
    driver.answerHeartbeat({ epoch: 1 });
    driver.run(5000);
    expect(optionalFields(driver).subscribedTopicNames).toBeNull();
  });

  it("resends TopicPartitions when only the local epoch of the reconciled assignment changed", () => {
    const driver = new ConsumerDriver();
    driver.joinStable([0, 1]);
    driver.run(5000);
    // The target adds a topic the member cannot name: the resolvable part equals what it owns,
    // so it adopts the new local epoch and acknowledges without callbacks.
    driver.answerHeartbeat({ epoch: 2, assignment: { [T1_ID]: [0, 1], "unknown-topic-id-xxxxx": [0] } });
    expect(driver.timeline("member.state").slice(-3)).toEqual([
      "state STABLE->RECONCILING",
      "state RECONCILING->ACKNOWLEDGING",
      "state ACKNOWLEDGING->RECONCILING",
    ]);
    expect(driver.timeline("member.callback").filter((c) => c.includes("start"))).toHaveLength(1);
    expect(driver.heartbeats()).toHaveLength(4);
    expect(optionalFields(driver)).toMatchObject({ epoch: 2, topicPartitions: [{ topicId: T1_ID, partitions: [0, 1] }] });
    // It then waits in RECONCILING for metadata that never names the topic: no heartbeat storm.
    driver.answerHeartbeat({ epoch: 2 });
    driver.run(4999);
    expect(driver.heartbeats()).toHaveLength(4);
    driver.run(1);
    expect(driver.heartbeats()).toHaveLength(5);
    expect(optionalFields(driver).topicPartitions).toBeNull();
    expect(driver.state).toBe("RECONCILING");
    expect(T2_ID).not.toBe(T1_ID);
  });
});
