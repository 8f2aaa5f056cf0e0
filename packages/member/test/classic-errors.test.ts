import { ErrorCode, errorName, ms } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { ClassicDriver, classicConfig, joinSubscription } from "./classic-test-support.js";

/** A STABLE member (generation 1, id m-1, owning T1 [0, 1]) that was just told to rebalance and sent its JoinGroup. */
function rejoining(config = classicConfig()): ClassicDriver {
  const driver = new ClassicDriver(config);
  driver.joinStableWith({ T1: [0, 1] }, 1);
  const joins = driver.joins().length;
  const heartbeats = driver.classicHeartbeats().length;
  driver.runAnswering(() => driver.classicHeartbeats().length > heartbeats, 60_000, true);
  driver.answerClassicHeartbeat(ErrorCode.REBALANCE_IN_PROGRESS);
  driver.forgetRoutine();
  driver.runAnswering(() => driver.joins().length > joins);
  return driver;
}

/** A member that rejoined and got its JoinGroup answered (generation 2): its SyncGroup is out. */
function syncing(config = classicConfig()): ClassicDriver {
  const driver = rejoining(config);
  const syncs = driver.syncs().length;
  driver.answerJoin({ generation: 2 });
  driver.runUntil(() => driver.syncs().length > syncs);
  return driver;
}

const FATAL_JOIN_ERRORS = [
  ErrorCode.INCONSISTENT_GROUP_PROTOCOL,
  ErrorCode.INVALID_SESSION_TIMEOUT,
  ErrorCode.INVALID_GROUP_ID,
  ErrorCode.GROUP_MAX_SIZE_REACHED,
  ErrorCode.GROUP_AUTHORIZATION_FAILED,
  ErrorCode.FENCED_INSTANCE_ID,
];

describe("JoinGroup errors (spec 4.3)", () => {
  it("UNKNOWN_MEMBER_ID: forget member id and generation, rejoin at once with an empty id", () => {
    const driver = rejoining();
    const joins = driver.joins().length;
    const at = driver.now;
    driver.answerJoin({ error: ErrorCode.UNKNOWN_MEMBER_ID });
    driver.runAnswering(() => driver.joins().length === joins + 1);
    const join = driver.lastOf("JoinGroupRequest");
    expect(join.at).toBe(at);
    expect(join.message).toMatchObject({ memberId: "", reason: "rebalance failed due to UNKNOWN_MEMBER_ID" });
    expect(joinSubscription(join.message, "range").generationId).toBe(-1);
    expect(driver.timeline("member.state").slice(-2)).toEqual([
      "state PREPARING_REBALANCE->UNJOINED",
      "state UNJOINED->PREPARING_REBALANCE",
    ]);
  });

  it("ILLEGAL_GENERATION: rejoin at once keeping the member id, without a generation", () => {
    const driver = rejoining();
    const joins = driver.joins().length;
    driver.answerJoin({ error: ErrorCode.ILLEGAL_GENERATION });
    driver.runAnswering(() => driver.joins().length === joins + 1);
    const join = driver.lastOf("JoinGroupRequest").message;
    expect(join.memberId).toBe("m-1");
    expect(joinSubscription(join, "range").generationId).toBe(-1);
  });

  it("REBALANCE_IN_PROGRESS: rejoin at once, same member id and generation", () => {
    const driver = rejoining();
    const joins = driver.joins().length;
    const at = driver.now;
    driver.answerJoin({ error: ErrorCode.REBALANCE_IN_PROGRESS });
    driver.runAnswering(() => driver.joins().length === joins + 1);
    const join = driver.lastOf("JoinGroupRequest");
    expect(join.at).toBe(at);
    expect(join.message.memberId).toBe("m-1");
    expect(joinSubscription(join.message, "range").generationId).toBe(1);
    expect(driver.state).toBe("PREPARING_REBALANCE");
  });

  it.each([ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.NOT_COORDINATOR])("%s: rediscover the coordinator, then join again", (error) => {
    const driver = rejoining();
    const joins = driver.joins().length;
    const finds = driver.sentOf("FindCoordinatorRequest").length;
    driver.answerJoin({ error });
    driver.runAnswering(() => driver.sentOf("FindCoordinatorRequest").length > finds);
    expect(driver.snapshot.coordinator).toBeNull();
    driver.answerFindCoordinator("coordinator-1");
    driver.runAnswering(() => driver.joins().length === joins + 1);
    expect(driver.lastOf("JoinGroupRequest")).toMatchObject({ to: "coordinator-1", message: { memberId: "m-1" } });
  });

  it("COORDINATOR_LOAD_IN_PROGRESS: join again after retry.backoff.ms", () => {
    const driver = rejoining(classicConfig({ consumer: { "retry.backoff.ms": 250 } }));
    const joins = driver.joins().length;
    const at = driver.now;
    driver.answerJoin({ error: ErrorCode.COORDINATOR_LOAD_IN_PROGRESS });
    driver.runAnswering(() => driver.joins().length === joins + 1);
    expect(driver.lastOf("JoinGroupRequest").at - at).toBe(ms(250));
  });

  it("no answer within the rebalance timeout + 5 s: the coordinator is rediscovered", () => {
    const driver = rejoining(classicConfig({ consumer: { "max.poll.interval.ms": 40_000 } }));
    const finds = driver.sentOf("FindCoordinatorRequest").length;
    const sentAt = driver.lastOf("JoinGroupRequest").at;
    driver.runAnswering(() => driver.sentOf("FindCoordinatorRequest").length > finds);
    expect(driver.now - sentAt).toBe(ms(45_000));
  });

  it.each(FATAL_JOIN_ERRORS)("%s is fatal: no more joins, poll() throws, the owned partitions are lost", (error) => {
    const driver = rejoining(classicConfig({ consumer: { "partition.assignment.strategy": ["cooperative-sticky"] } }));
    expect(driver.owned).toEqual({ T1: [0, 1] }); // cooperative: still owned while rejoining
    const joins = driver.joins().length;
    driver.answerJoin({ error });
    driver.runAnswering(() => driver.state === "FATAL");
    expect(driver.observations("member.fatal")).toEqual([expect.objectContaining({ error: errorName(error), groupId: "g1" })]);
    driver.runAnswering(() => (driver.snapshot.app as { dead: boolean }).dead);
    expect(driver.owned).toEqual({});
    expect(driver.timeline("member.owned", "member.callback").slice(-3)).toEqual([
      "owned {} lost",
      'onPartitionsLost start {"T1":[0,1]}',
      'onPartitionsLost end {"T1":[0,1]}',
    ]);
    const polls = driver.polls().length;
    driver.run(30_000);
    expect(driver.joins()).toHaveLength(joins);
    expect(driver.polls()).toHaveLength(polls);
    expect(driver.classicHeartbeats().filter((h) => h.at > driver.now - ms(20_000))).toEqual([]);
  });

  it("a JoinGroup answer with another protocol type is INCONSISTENT_GROUP_PROTOCOL (fatal)", () => {
    const driver = rejoining();
    driver.answerJoin({ protocolType: "connect" });
    driver.runAnswering(() => driver.state === "FATAL");
    expect(driver.snapshot.fatalError).toBe("INCONSISTENT_GROUP_PROTOCOL");
  });
});

describe("SyncGroup errors", () => {
  it("REBALANCE_IN_PROGRESS: rejoin at once with the same member id", () => {
    const driver = syncing();
    const joins = driver.joins().length;
    driver.answerSync({ error: ErrorCode.REBALANCE_IN_PROGRESS });
    driver.runAnswering(() => driver.joins().length === joins + 1);
    expect(driver.lastOf("JoinGroupRequest").message.memberId).toBe("m-1");
    expect(joinSubscription(driver.lastOf("JoinGroupRequest").message, "range").generationId).toBe(2);
  });

  it.each([
    [ErrorCode.UNKNOWN_MEMBER_ID, ""],
    [ErrorCode.ILLEGAL_GENERATION, "m-1"],
  ])("%s: reset the generation (member id kept only for ILLEGAL_GENERATION) and rejoin at once", (error, memberId) => {
    const driver = syncing();
    const joins = driver.joins().length;
    driver.answerSync({ error });
    expect(driver.state).toBe("UNJOINED");
    driver.runAnswering(() => driver.joins().length === joins + 1);
    expect(driver.lastOf("JoinGroupRequest").message.memberId).toBe(memberId);
    expect(joinSubscription(driver.lastOf("JoinGroupRequest").message, "range").generationId).toBe(-1);
  });

  it("COORDINATOR_NOT_AVAILABLE: rediscover and join again", () => {
    const driver = syncing();
    const joins = driver.joins().length;
    driver.answerSync({ error: ErrorCode.COORDINATOR_NOT_AVAILABLE });
    driver.runAnswering(() => driver.snapshot.coordinator === null);
    driver.answerFindCoordinator();
    driver.runAnswering(() => driver.joins().length === joins + 1);
  });

  it("the coordinator marked unknown meanwhile (heartbeat NOT_COORDINATOR): the SyncGroup out to it fails at once, the member rejoins the new one", () => {
    const driver = syncing();
    const joins = driver.joins().length;
    const heartbeats = driver.classicHeartbeats().length;
    driver.runAnswering(() => driver.classicHeartbeats().length > heartbeats, 60_000, true);
    expect(driver.state).toBe("COMPLETING_REBALANCE");
    driver.answerClassicHeartbeat(ErrorCode.NOT_COORDINATOR);
    expect(driver.snapshot.joinPhase).toBe("failed");
    driver.runAnswering(() => driver.sentOf("FindCoordinatorRequest").length > 1, 60_000, true);
    driver.answerFindCoordinator("coordinator-2");
    driver.runAnswering(() => driver.joins().length === joins + 1, 60_000, true);
    expect(driver.lastOf("JoinGroupRequest")).toMatchObject({ to: "coordinator-2", message: { memberId: "m-1" } });
    // A late answer from the old coordinator changes nothing.
    driver.answerSync({ assignment: { T1: [0] } }, driver.syncs()[driver.syncs().length - 1]);
    expect(driver.state).toBe("PREPARING_REBALANCE");
  });

  it.each([ErrorCode.FENCED_INSTANCE_ID, ErrorCode.GROUP_AUTHORIZATION_FAILED])("%s is fatal", (error) => {
    const driver = syncing();
    driver.answerSync({ error });
    driver.runAnswering(() => driver.state === "FATAL");
    expect(driver.snapshot.fatalError).toBe(errorName(error));
  });

  it("an answer naming another protocol is INCONSISTENT_GROUP_PROTOCOL (fatal)", () => {
    const driver = syncing();
    driver.answerSync({ assignment: { T1: [0] }, protocolName: "roundrobin" });
    driver.runAnswering(() => driver.state === "FATAL");
    expect(driver.snapshot.fatalError).toBe("INCONSISTENT_GROUP_PROTOCOL");
  });

  it("an assignment that does not decode is fatal (Kafka's IllegalStateException out of poll())", () => {
    const driver = syncing();
    driver.answerSync({ rawAssignment: new Uint8Array(0) });
    driver.runAnswering(() => driver.state === "FATAL");
    expect(String(driver.snapshot.fatalError)).toMatch(
      /^IllegalStateException: the assignment from the SyncGroup response does not decode/,
    );
  });
});

describe("Heartbeat errors", () => {
  it("UNKNOWN_MEMBER_ID: the partitions are lost at once; the next poll() runs onPartitionsLost and rejoins with an empty id", () => {
    const driver = new ClassicDriver(classicConfig({ app: { lostCallbackMs: 15 } }));
    driver.joinStableWith({ T1: [0, 1] }, 3);
    const heartbeats = driver.classicHeartbeats().length;
    driver.runAnswering(() => driver.classicHeartbeats().length > heartbeats, 60_000, true);
    const joins = driver.joins().length;
    driver.answerClassicHeartbeat(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(driver.state).toBe("UNJOINED");
    expect(driver.generation).toBe(-1);
    expect(driver.owned).toEqual({});
    driver.forgetRoutine();
    driver.runAnswering(() => driver.joins().length === joins + 1);
    expect(driver.timeline("member.state", "member.owned", "member.callback").slice(-5)).toEqual([
      "state STABLE->UNJOINED",
      "owned {} lost",
      'onPartitionsLost start {"T1":[0,1]}',
      'onPartitionsLost end {"T1":[0,1]}',
      "state UNJOINED->PREPARING_REBALANCE",
    ]);
    const lost = driver.observations("member.owned").at(-1);
    expect(lost).toMatchObject({ memberEpoch: -1, cause: "lost" });
    expect(driver.lastOf("JoinGroupRequest").message.memberId).toBe("");
    // No commit from a member that lost its generation.
    expect(driver.observations("member.commit").filter((c) => c.kind === "revocation")).toEqual([]);
  });

  it("ILLEGAL_GENERATION: lost too, but the member id is kept", () => {
    const driver = new ClassicDriver(classicConfig());
    driver.joinStableWith({ T1: [2] }, 3);
    const heartbeats = driver.classicHeartbeats().length;
    driver.runAnswering(() => driver.classicHeartbeats().length > heartbeats, 60_000, true);
    const joins = driver.joins().length;
    driver.answerClassicHeartbeat(ErrorCode.ILLEGAL_GENERATION);
    driver.forgetRoutine();
    driver.runAnswering(() => driver.joins().length === joins + 1);
    expect(driver.timeline("member.callback").slice(-1)).toEqual(['onPartitionsLost end {"T1":[2]}']);
    expect(driver.lastOf("JoinGroupRequest").message.memberId).toBe("m-1");
  });

  it("an error for a generation the member already left behind is ignored", () => {
    const driver = new ClassicDriver(classicConfig());
    driver.joinStableWith({ T1: [0] }, 1);
    const heartbeats = driver.classicHeartbeats().length;
    driver.runAnswering(() => driver.classicHeartbeats().length > heartbeats, 60_000, true);
    const stale = driver.lastOf("HeartbeatRequest");
    driver.forgetRoutine();
    driver.rebalance({ T1: [0, 1] }, 2);
    driver.answerClassicHeartbeat(ErrorCode.ILLEGAL_GENERATION, stale);
    expect(driver.state).toBe("STABLE");
    expect(driver.generation).toBe(2);
    expect(driver.owned).toEqual({ T1: [0, 1] });
  });

  it("FENCED_INSTANCE_ID (another instance took this group.instance.id) is fatal", () => {
    const driver = new ClassicDriver(classicConfig({ consumer: { "group.instance.id": "i-1" } }));
    driver.answerFindCoordinator();
    driver.runUntil(() => driver.joins().length === 1);
    driver.answerJoin({ memberId: "i-1-a", generation: 1 });
    driver.runUntil(() => driver.syncs().length === 1);
    driver.answerSync({ assignment: { T1: [0] } });
    driver.runAnswering(() => driver.classicHeartbeats().length === 2, 60_000, true);
    driver.answerClassicHeartbeat(ErrorCode.FENCED_INSTANCE_ID);
    expect(driver.state).toBe("FATAL");
    expect(driver.observations("member.fatal")).toEqual([expect.objectContaining({ error: "FENCED_INSTANCE_ID" })]);
  });

  it.each([ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.NOT_COORDINATOR])(
    "%s: rediscover, heartbeat again after the backoff",
    (error) => {
      const driver = new ClassicDriver(classicConfig({ consumer: { "retry.backoff.ms": 200 } }));
      driver.joinStableWith({ T1: [0] }, 1);
      const heartbeats = driver.classicHeartbeats().length;
      driver.runAnswering(() => driver.classicHeartbeats().length > heartbeats, 60_000, true);
      driver.answerClassicHeartbeat(error);
      expect(driver.snapshot.coordinator).toBeNull();
      const failedAt = driver.now;
      driver.answerFindCoordinator();
      driver.runAnswering(() => driver.classicHeartbeats().length > heartbeats + 1, 60_000, true);
      expect(driver.lastOf("HeartbeatRequest").at - failedAt).toBe(ms(200));
      expect(driver.state).toBe("STABLE");
    },
  );

  it("no successful heartbeat for session.timeout.ms: the coordinator is presumed gone and rediscovered (the member stays STABLE)", () => {
    const driver = new ClassicDriver(classicConfig({ consumer: { "session.timeout.ms": 10_000, "heartbeat.interval.ms": 3000 } }));
    driver.joinStableWith({ T1: [0] }, 1);
    const finds = driver.sentOf("FindCoordinatorRequest").length;
    const syncedAt = driver.lastOf("SyncGroupRequest").at;
    driver.runAnswering(() => driver.sentOf("FindCoordinatorRequest").length > finds, 60_000, true);
    // The session restarted when the JoinGroup was answered (at the sync) and never since.
    expect(driver.now - syncedAt).toBeLessThanOrEqual(ms(10_000) + ms(1));
    expect(driver.state).toBe("STABLE");
    expect(driver.owned).toEqual({ T1: [0] });
  });
});
