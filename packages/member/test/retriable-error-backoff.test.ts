import { ErrorCode, ms } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { ClassicDriver, classicConfig } from "./classic-test-support.js";
import { ConsumerDriver, T1_ID, testConfig } from "./consumer-test-support.js";

const noAutoCommit = testConfig({ app: { commit: "none" } });
/** retry.backoff.ms 100 doubling up to retry.backoff.max.ms 1000 (spec 1.7). */
const EXPONENTIAL_MS = [100, 200, 400, 800, 1000, 1000];

/**
 * Fails `times` requests in a row, each answered as soon as it is sent, and
 * returns the wait (ms) from each failure to the next request.
 */
function gapsAfterFailures(driver: ConsumerDriver, count: () => number, fail: () => void, times = EXPONENTIAL_MS.length): number[] {
  const gaps: number[] = [];
  for (let i = 0; i < times; i++) {
    const before = count();
    const failedAt = driver.now;
    fail();
    driver.runUntil(() => count() > before, 5000);
    gaps.push((driver.now - failedAt) / 1000);
  }
  return gaps;
}

describe("retriable errors back off (retry.backoff.ms x2 up to retry.backoff.max.ms), never every round trip", () => {
  it("a JOINING member sends two heartbeats to a coordinator loading for 100 ms (not one per 2 ms round trip)", () => {
    const driver = new ConsumerDriver(noAutoCommit);
    driver.answerFindCoordinator();
    driver.run(0); // the first poll() joins
    const loadedAt = ms(100);
    // The coordinator answers each heartbeat 2 ms after it is sent: COORDINATOR_LOAD_IN_PROGRESS until it has loaded.
    for (;;) {
      const request = driver.lastOf("ConsumerGroupHeartbeatRequest");
      driver.runUntilTime(request.at + ms(2));
      if (driver.now >= loadedAt) break;
      const sent = driver.heartbeats().length;
      driver.answerHeartbeat({ error: ErrorCode.COORDINATOR_LOAD_IN_PROGRESS });
      expect(driver.state).toBe("JOINING");
      driver.runUntil(() => driver.heartbeats().length > sent, 5000);
    }
    driver.answerHeartbeat({ epoch: 1, assignment: { [T1_ID]: [0] } });
    expect(driver.heartbeats().map((h) => h.at / 1000)).toEqual([0, 102]);
    // Both carried every field (a failure resets what was sent).
    expect(driver.heartbeats().every((h) => h.message.subscribedTopicNames !== null && h.message.rebalanceTimeoutMs > 0)).toBe(true);
    driver.runUntil(() => driver.state === "STABLE");
  });

  it("JOINING: COORDINATOR_LOAD_IN_PROGRESS backs off exponentially, as in every other state", () => {
    const driver = new ConsumerDriver(noAutoCommit);
    driver.answerFindCoordinator();
    driver.run(0);
    const gaps = gapsAfterFailures(
      driver,
      () => driver.heartbeats().length,
      () => driver.answerHeartbeat({ error: ErrorCode.COORDINATOR_LOAD_IN_PROGRESS }),
    );
    expect(gaps).toEqual(EXPONENTIAL_MS);
    expect(driver.state).toBe("JOINING");
    // A success resets the backoff: the next failure waits 100 ms again.
    driver.answerHeartbeat({ epoch: 1, assignment: { [T1_ID]: [0] } });
    driver.runUntil(() => driver.state === "STABLE");
    driver.answerHeartbeat({ epoch: 1 });
    driver.runUntil(() => driver.heartbeats().length === 9, 6000);
    expect(
      gapsAfterFailures(
        driver,
        () => driver.heartbeats().length,
        () => driver.answerHeartbeat({ error: ErrorCode.COORDINATOR_LOAD_IN_PROGRESS }),
        1,
      ),
    ).toEqual([100]);
  });

  it("FindCoordinator errors back off exponentially", () => {
    const driver = new ConsumerDriver(noAutoCommit);
    const gaps = gapsAfterFailures(
      driver,
      () => driver.sentOf("FindCoordinatorRequest").length,
      () => driver.answerFindCoordinator("coordinator-0", ErrorCode.COORDINATOR_NOT_AVAILABLE),
    );
    expect(gaps).toEqual(EXPONENTIAL_MS);
  });

  it("OffsetFetch retries back off exponentially", () => {
    const driver = new ConsumerDriver(noAutoCommit);
    driver.answerFindCoordinator();
    driver.run(0);
    driver.answerHeartbeat({ epoch: 1, assignment: { [T1_ID]: [0] } });
    driver.runUntil(() => driver.sentOf("OffsetFetchRequest").length === 1);
    const gaps = gapsAfterFailures(
      driver,
      () => driver.sentOf("OffsetFetchRequest").length,
      () => driver.answerOffsetFetch({}, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS),
    );
    expect(gaps).toEqual(EXPONENTIAL_MS);
  });

  it("commitSync retries back off exponentially", () => {
    const driver = new ConsumerDriver(noAutoCommit);
    driver.joinStable([0]);
    driver.run(500);
    driver.control("commit-sync");
    driver.runUntil(() => driver.sentOf("OffsetCommitRequest").length === 1);
    const gaps = gapsAfterFailures(
      driver,
      () => driver.sentOf("OffsetCommitRequest").length,
      () => driver.answerOffsetCommit(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS),
    );
    expect(gaps).toEqual(EXPONENTIAL_MS);
  });

  it("the commit before a revocation retries with exponential backoff", () => {
    const driver = new ConsumerDriver(testConfig({ consumer: { "auto.commit.interval.ms": 60_000 } }));
    driver.joinStable([0, 1], 2);
    driver.run(5000);
    driver.answerHeartbeat({ epoch: 3, assignment: { [T1_ID]: [1] } });
    driver.runUntil(() => driver.sentOf("OffsetCommitRequest").length === 1);
    const gaps = gapsAfterFailures(
      driver,
      () => driver.sentOf("OffsetCommitRequest").length,
      () => driver.answerOffsetCommit(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS),
    );
    expect(gaps).toEqual(EXPONENTIAL_MS);
    expect(driver.state).toBe("RECONCILING");
  });

  it("classic: failed heartbeats back off exponentially until one is answered (Kafka's Heartbeat.failHeartbeat)", () => {
    const driver = new ClassicDriver(classicConfig());
    driver.joinStableWith({ T1: [0] }, 1);
    driver.runAnswering(() => driver.classicHeartbeats().length === 1, 60_000, true);
    const gaps = gapsAfterFailures(
      driver,
      () => driver.classicHeartbeats().length,
      () => driver.answerClassicHeartbeat(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS),
    );
    expect(gaps).toEqual(EXPONENTIAL_MS);
    // Answered: the next one comes a heartbeat.interval.ms later, and the next failure waits 100 ms again.
    const answeredAt = driver.now;
    driver.answerClassicHeartbeat();
    driver.runUntil(() => driver.classicHeartbeats().length === EXPONENTIAL_MS.length + 2, 5000);
    expect(driver.now - driver.lastOf("HeartbeatRequest").at).toBe(0);
    expect(driver.lastOf("HeartbeatRequest").at - answeredAt).toBeLessThanOrEqual(ms(3000));
    expect(
      gapsAfterFailures(
        driver,
        () => driver.classicHeartbeats().length,
        () => driver.answerClassicHeartbeat(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS),
        1,
      ),
    ).toEqual([100]);
    expect(driver.state).toBe("STABLE");
  });

  it("classic: JoinGroup COORDINATOR_LOAD_IN_PROGRESS waits retry.backoff.ms before every retry (AbstractCoordinator.joinGroupIfNeeded)", () => {
    const driver = new ClassicDriver(classicConfig());
    driver.answerFindCoordinator();
    driver.runUntil(() => driver.joins().length === 1);
    const gaps = gapsAfterFailures(
      driver,
      () => driver.joins().length,
      () => driver.answerJoin({ error: ErrorCode.COORDINATOR_LOAD_IN_PROGRESS }),
      3,
    );
    expect(gaps).toEqual([100, 100, 100]);
  });
});
