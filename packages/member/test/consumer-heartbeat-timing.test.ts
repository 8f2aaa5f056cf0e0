import { ErrorCode, ms } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { BROKER, COORDINATOR, ConsumerDriver, T1_ID, testConfig } from "./consumer-test-support.js";

const noAutoCommit = testConfig({ app: { commit: "none" } });

/** Send times of the heartbeats, in ms. */
const heartbeatTimesMs = (driver: ConsumerDriver) => driver.heartbeats().map((h) => h.at / 1000);

describe("coordinator discovery", () => {
  it("finds the coordinator first; no heartbeat goes out before", () => {
    const driver = new ConsumerDriver();
    expect(driver.takeSent().map((s) => [s.to, s.message.type])).toEqual([[BROKER, "FindCoordinatorRequest"]]);
    expect(driver.lastOf("FindCoordinatorRequest").message).toMatchObject({ keyType: 0, coordinatorKeys: ["g1"], apiVersion: 4 });
    driver.run(100);
    expect(driver.state).toBe("JOINING");
    expect(driver.heartbeats()).toHaveLength(0);
    driver.answerFindCoordinator();
    expect(driver.heartbeats()).toHaveLength(1);
    expect(driver.heartbeats()[0]?.to).toBe(COORDINATOR);
  });

  it("retries after request.timeout.ms without an answer, then with exponential backoff, rotating the bootstrap brokers", () => {
    const driver = new ConsumerDriver(testConfig({ bootstrap: ["b0", "b1"] }));
    const first = driver.lastOf("FindCoordinatorRequest");
    driver.run(29_999);
    expect(driver.sentOf("FindCoordinatorRequest")).toHaveLength(1);
    driver.run(1); // transport failure at 30 s, then 100 ms backoff
    driver.run(99);
    expect(driver.sentOf("FindCoordinatorRequest")).toHaveLength(1);
    driver.run(1);
    const second = driver.lastOf("FindCoordinatorRequest");
    expect(second.at).toBe(ms(30_100));
    expect(second.to).not.toBe(first.to);
    // Error answers back off 200, 400, ... ms.
    driver.answerFindCoordinator(COORDINATOR, ErrorCode.COORDINATOR_NOT_AVAILABLE);
    driver.run(200);
    const third = driver.lastOf("FindCoordinatorRequest");
    expect(third.at).toBe(ms(30_300));
    driver.answerFindCoordinator(COORDINATOR, ErrorCode.COORDINATOR_NOT_AVAILABLE);
    driver.run(400);
    expect(driver.lastOf("FindCoordinatorRequest").at).toBe(ms(30_700));
    driver.answerFindCoordinator("coordinator-7");
    expect(driver.snapshot.coordinator).toBe("coordinator-7");
  });
});

describe("heartbeat timing (spec 2.3)", () => {
  it("heartbeats at once when JOINING or ACKNOWLEDGING, then every HeartbeatIntervalMs", () => {
    const driver = new ConsumerDriver(noAutoCommit);
    driver.answerFindCoordinator();
    driver.run(0);
    expect(heartbeatTimesMs(driver)).toEqual([0]);
    driver.run(10);
    driver.answerHeartbeat({ epoch: 1, intervalMs: 3000, assignment: { [T1_ID]: [0] } });
    expect(heartbeatTimesMs(driver)).toEqual([0]);
    driver.run(0); // the application thread runs onPartitionsAssigned (0 ms)
    // ACKNOWLEDGING goes out as soon as the callback ran, whatever the interval.
    expect(heartbeatTimesMs(driver)).toEqual([0, 10]);
    driver.run(20);
    driver.answerHeartbeat({ epoch: 1, intervalMs: 3000 });
    driver.run(2979); // the interval counts from the send at 10 ms
    expect(heartbeatTimesMs(driver)).toEqual([0, 10]);
    driver.run(1);
    expect(heartbeatTimesMs(driver)).toEqual([0, 10, 3010]);
    driver.answerHeartbeat({ epoch: 1, intervalMs: 3000 });
    driver.run(3000);
    expect(heartbeatTimesMs(driver)).toEqual([0, 10, 3010, 6010]);
  });

  it("keeps at most one heartbeat in flight, even when acknowledging", () => {
    const driver = new ConsumerDriver(testConfig({ app: { commit: "none", assignCallbackMs: 2500 } }));
    driver.answerFindCoordinator();
    driver.run(0);
    driver.answerHeartbeat({ epoch: 1, intervalMs: 1000, assignment: { [T1_ID]: [0] } });
    driver.run(1000); // onPartitionsAssigned still running: the interval heartbeat goes
    expect(heartbeatTimesMs(driver)).toEqual([0, 1000]);
    driver.run(20_000); // interval long over, callback done (ACKNOWLEDGING), response still missing
    expect(driver.state).toBe("ACKNOWLEDGING");
    expect(heartbeatTimesMs(driver)).toEqual([0, 1000]);
    driver.answerHeartbeat({ epoch: 1, intervalMs: 1000 });
    expect(heartbeatTimesMs(driver)).toEqual([0, 1000, 21_000]);
    expect(driver.lastOf("ConsumerGroupHeartbeatRequest").message.topicPartitions).toEqual([{ topicId: T1_ID, partitions: [0] }]);
    expect(driver.state).toBe("STABLE");
  });

  it("a new interval in a response counts from the response", () => {
    const driver = new ConsumerDriver(noAutoCommit);
    driver.joinStable([0], 1, 5000);
    driver.run(5000);
    driver.run(100);
    driver.answerHeartbeat({ epoch: 1, intervalMs: 2000 });
    driver.run(2000);
    expect(heartbeatTimesMs(driver).slice(-2)).toEqual([5000, 7100]);
  });

  it("backs off exponentially on COORDINATOR_LOAD_IN_PROGRESS (100, 200, ... up to 1000 ms)", () => {
    const driver = new ConsumerDriver(noAutoCommit);
    driver.joinStable([0], 1, 5000);
    driver.run(5000);
    const gaps: number[] = [];
    for (let i = 0; i < 6; i++) {
      const before = driver.heartbeats().length;
      const failedAt = driver.now;
      driver.answerHeartbeat({ error: ErrorCode.COORDINATOR_LOAD_IN_PROGRESS });
      driver.runUntil(() => driver.heartbeats().length > before, 5000);
      gaps.push((driver.now - failedAt) / 1000);
    }
    expect(gaps).toEqual([100, 200, 400, 800, 1000, 1000]);
    // Success resets the backoff and the interval applies again.
    driver.answerHeartbeat({ epoch: 1, intervalMs: 5000 });
    const at = driver.now;
    driver.runUntil(() => driver.heartbeats().length === 10, 10_000);
    expect(driver.now - at).toBe(ms(5000));
  });

  it("a heartbeat without a response within request.timeout.ms fails: the coordinator is rediscovered and the next heartbeat backs off", () => {
    const driver = new ConsumerDriver(noAutoCommit);
    driver.joinStable([0], 1, 5000);
    driver.run(5000);
    driver.takeSent();
    driver.run(30_000);
    expect(driver.takeSent().map((s) => s.message.type)).toEqual(["FindCoordinatorRequest"]);
    expect(driver.snapshot.coordinator).toBeNull();
    driver.run(50);
    driver.answerFindCoordinator("coordinator-1");
    driver.run(49);
    expect(driver.heartbeats()).toHaveLength(3);
    driver.run(1);
    expect(driver.heartbeats()).toHaveLength(4);
    expect(driver.lastOf("ConsumerGroupHeartbeatRequest").to).toBe("coordinator-1");
  });

  it("sends no heartbeat without a coordinator or while UNSUBSCRIBED", () => {
    const driver = new ConsumerDriver(testConfig({ subscription: [] }));
    driver.answerFindCoordinator();
    driver.run(60_000);
    expect(driver.state).toBe("UNSUBSCRIBED");
    expect(driver.heartbeats()).toHaveLength(0);
    expect(driver.polls()).toHaveLength(0);
  });
});
