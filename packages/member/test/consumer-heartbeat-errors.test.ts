import { ErrorCode, errorName } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { ConsumerDriver, T1_ID, testConfig } from "./consumer-test-support.js";

const noAutoCommit = testConfig({ app: { commit: "none" } });

describe("heartbeat error reactions (spec 1.7)", () => {
  it.each([ErrorCode.NOT_COORDINATOR, ErrorCode.COORDINATOR_NOT_AVAILABLE])(
    "%s: rediscover the coordinator and retry without backoff",
    (error) => {
      const driver = new ConsumerDriver(noAutoCommit);
      driver.joinStable([0, 1]);
      driver.run(5000);
      driver.takeSent();
      driver.answerHeartbeat({ error });
      expect(driver.state).toBe("STABLE");
      expect(driver.snapshot.coordinator).toBeNull();
      expect(driver.takeSent().map((s) => s.message.type)).toEqual(["FindCoordinatorRequest"]);
      driver.answerFindCoordinator("coordinator-2");
      const retry = driver.takeSent();
      expect(retry.map((s) => [s.to, s.message.type])).toEqual([["coordinator-2", "ConsumerGroupHeartbeatRequest"]]);
      expect(retry[0]?.at).toBe(driver.now);
      expect(driver.epoch).toBe(1);
    },
  );

  it("COORDINATOR_LOAD_IN_PROGRESS: same coordinator, retry after the backoff", () => {
    const driver = new ConsumerDriver(noAutoCommit);
    driver.joinStable([0, 1]);
    driver.run(5000);
    driver.takeSent();
    driver.answerHeartbeat({ error: ErrorCode.COORDINATOR_LOAD_IN_PROGRESS });
    expect(driver.snapshot.coordinator).not.toBeNull();
    driver.run(99);
    expect(driver.takeSent()).toEqual([]);
    driver.run(1);
    expect(driver.takeSent().map((s) => s.message.type)).toEqual(["ConsumerGroupHeartbeatRequest"]);
    expect(driver.state).toBe("STABLE");
  });

  it.each([ErrorCode.UNKNOWN_MEMBER_ID, ErrorCode.FENCED_MEMBER_EPOCH])(
    "%s: FENCED, partitions lost, rejoin at epoch 0 without backoff",
    (error) => {
      const driver = new ConsumerDriver(testConfig({ app: { commit: "none", lostCallbackMs: 40 } }));
      driver.joinStable([0, 1], 3);
      const memberId = driver.lastOf("ConsumerGroupHeartbeatRequest").message.memberId;
      driver.run(5000);
      driver.answerHeartbeat({ error });
      expect(driver.state).toBe("FENCED");
      expect(driver.snapshot.owned).toEqual({});
      driver.runUntil(() => driver.state === "JOINING");
      const rejoin = driver.lastOf("ConsumerGroupHeartbeatRequest");
      expect(rejoin.message).toMatchObject({ memberEpoch: 0, memberId, topicPartitions: [], rebalanceTimeoutMs: 300000 });
      expect(rejoin.at).toBe(driver.now);
      expect(driver.timeline("member.state", "member.owned", "member.callback").slice(-5)).toEqual([
        "state STABLE->FENCED",
        "owned {} lost",
        'onPartitionsLost start {"T1":[0,1]}',
        'onPartitionsLost end {"T1":[0,1]}',
        "state FENCED->JOINING",
      ]);
      // The lost callback took 40 ms on the application thread; the rejoin followed at once.
      const lostEnd = driver.ctx.seen.find((s) => s.observation.callback === "onPartitionsLost" && s.observation.phase === "end");
      expect(rejoin.at).toBe(lostEnd?.at);
      driver.answerHeartbeat({ epoch: 5, assignment: { [T1_ID]: [2] } });
      driver.runUntil(() => driver.state === "STABLE");
      expect(driver.epoch).toBe(5);
      expect(driver.snapshot.owned).toEqual({ T1: [2] });
    },
  );

  const FATAL = [
    ErrorCode.UNRELEASED_INSTANCE_ID,
    ErrorCode.FENCED_INSTANCE_ID,
    ErrorCode.GROUP_MAX_SIZE_REACHED,
    ErrorCode.UNSUPPORTED_ASSIGNOR,
    ErrorCode.INVALID_REQUEST,
    ErrorCode.UNSUPPORTED_VERSION,
    ErrorCode.GROUP_AUTHORIZATION_FAILED,
    ErrorCode.GROUP_ID_NOT_FOUND,
    ErrorCode.UNKNOWN_SERVER_ERROR,
    ErrorCode.INVALID_REGULAR_EXPRESSION,
  ];

  it.each(FATAL)("%s is fatal: FATAL, member.fatal, no more heartbeats, poll() stops", (error) => {
    const driver = new ConsumerDriver(noAutoCommit);
    driver.joinStable([0, 1]);
    driver.run(5000);
    driver.answerHeartbeat({ error });
    expect(driver.state).toBe("FATAL");
    expect(driver.observations("member.fatal")).toEqual([expect.objectContaining({ error: errorName(error), groupId: "g1" })]);
    expect(driver.snapshot.owned).toEqual({});
    const heartbeats = driver.heartbeats().length;
    const polls = () => driver.polls().length;
    driver.run(2000);
    const pollsAfter = polls();
    driver.run(60_000);
    expect(driver.heartbeats()).toHaveLength(heartbeats);
    expect(polls()).toBe(pollsAfter);
    // The lost callback ran in the last poll, which then threw.
    expect(driver.timeline("member.callback").slice(-2)).toEqual([
      'onPartitionsLost start {"T1":[0,1]}',
      'onPartitionsLost end {"T1":[0,1]}',
    ]);
  });

  it("a fatal error answering the leave heartbeat ends in FATAL without callbacks", () => {
    const driver = new ConsumerDriver(noAutoCommit);
    driver.joinStable([0]);
    driver.control("close");
    driver.runUntil(() => driver.state === "UNSUBSCRIBED");
    const callbacks = driver.timeline("member.callback").length;
    driver.answerHeartbeat({ error: ErrorCode.GROUP_ID_NOT_FOUND });
    expect(driver.state).toBe("FATAL");
    expect(driver.timeline("member.callback")).toHaveLength(callbacks);
  });
});
