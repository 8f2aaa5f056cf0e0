import { ErrorCode, ms } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { ClassicDriver, classicConfig } from "./classic-test-support.js";
import { isPollTimerRestart, lastWhere, pollAcrossBackwardStep, pollTimeouts } from "./consumer-test-support.js";

const isPollTimerRestartSeen = (s: { observation: Parameters<typeof isPollTimerRestart>[0] }) => isPollTimerRestart(s.observation);

const MAX_POLL_MS = 20_000;

describe("classic close() and unsubscribe()", () => {
  it("close() of a dynamic member: commit, give up, onPartitionsRevoked, LeaveGroup, then nothing more", () => {
    const driver = new ClassicDriver(classicConfig({ app: { revokeCallbackMs: 15 } }));
    driver.joinStableWith({ T1: [0, 1] }, 4);
    driver.runAnswering(() => driver.recordRanges().length > 2);
    const before = driver.ctx.seen.length;
    driver.control("close");
    driver.runAnswering(() => (driver.snapshot.app as { activity: string }).activity === "closed");
    const commit = driver.lastOf("OffsetCommitRequest");
    expect(commit.message).toMatchObject({ generationIdOrMemberEpoch: 4, memberId: "m-1" });
    const leave = driver.lastOf("LeaveGroupRequest");
    expect(leave.message).toMatchObject({
      apiVersion: 5,
      groupId: "g1",
      members: [{ memberId: "m-1", groupInstanceId: null, reason: "the consumer is being closed" }],
    });
    expect(driver.timeline("member.state", "member.owned", "member.callback", "member.commit").slice(-5)).toEqual([
      "commit close NONE",
      "owned {} leave",
      'onPartitionsRevoked start {"T1":[0,1]}',
      'onPartitionsRevoked end {"T1":[0,1]}',
      "state STABLE->UNJOINED",
    ]);
    expect(driver.ctx.seen.length).toBeGreaterThan(before);
    expect(leave.at).toBeGreaterThan(commit.at);
    const sent = driver.ctx.sent.length;
    driver.answerLeave();
    driver.run(60_000);
    expect(driver.ctx.sent).toHaveLength(sent);
    expect(driver.snapshot).toMatchObject({ state: "UNJOINED", owned: {}, assigned: {}, memberId: "" });
  });

  it("close() of a static member commits and revokes but sends no LeaveGroup", () => {
    const driver = new ClassicDriver(classicConfig({ consumer: { "group.instance.id": "inst-1" } }));
    driver.answerFindCoordinator();
    driver.runUntil(() => driver.joins().length === 1);
    driver.answerJoin({ memberId: "inst-1-x", generation: 2 });
    driver.runUntil(() => driver.syncs().length === 1);
    driver.answerSync({ assignment: { T1: [3] } });
    driver.runAnswering(() => driver.recordRanges().length > 1);
    driver.control("close");
    driver.runAnswering(() => (driver.snapshot.app as { activity: string }).activity === "closed");
    expect(driver.sentOf("LeaveGroupRequest")).toEqual([]);
    expect(driver.timeline("member.callback", "member.commit").slice(-3)).toEqual([
      "commit close NONE",
      'onPartitionsRevoked start {"T1":[3]}',
      'onPartitionsRevoked end {"T1":[3]}',
    ]);
    expect(driver.state).toBe("UNJOINED");
  });

  it("close() while rebalancing: the commit fails locally (REBALANCE_IN_PROGRESS) and the partitions count as lost", () => {
    const driver = new ClassicDriver(classicConfig({ consumer: { "partition.assignment.strategy": ["cooperative-sticky"] } }));
    driver.joinStableWith({ T1: [0, 1] }, 1);
    const heartbeats = driver.classicHeartbeats().length;
    driver.runAnswering(() => driver.classicHeartbeats().length > heartbeats, 60_000, true);
    driver.answerClassicHeartbeat(ErrorCode.REBALANCE_IN_PROGRESS);
    driver.forgetRoutine();
    driver.runAnswering(() => driver.joins().length === 3);
    const commits = driver.sentOf("OffsetCommitRequest").length;
    driver.control("close");
    driver.runAnswering(() => (driver.snapshot.app as { activity: string }).activity === "closed");
    expect(driver.sentOf("OffsetCommitRequest")).toHaveLength(commits);
    expect(driver.observations("member.commit").at(-1)).toMatchObject({ kind: "close", result: "REBALANCE_IN_PROGRESS" });
    expect(driver.timeline("member.callback").slice(-1)).toEqual(['onPartitionsLost end {"T1":[0,1]}']);
    expect(driver.lastOf("LeaveGroupRequest").message.members[0]?.memberId).toBe("m-1");
  });

  it("unsubscribe(): no commit, onPartitionsRevoked, LeaveGroup; subscribe() then joins afresh with an empty member id", () => {
    const driver = new ClassicDriver(classicConfig());
    driver.joinStableWith({ T1: [0] }, 2);
    const commits = driver.sentOf("OffsetCommitRequest").length;
    driver.control("unsubscribe");
    driver.runUntil(() => driver.sentOf("LeaveGroupRequest").length === 1);
    expect(driver.sentOf("OffsetCommitRequest")).toHaveLength(commits);
    expect(driver.lastOf("LeaveGroupRequest").message.members[0]?.reason).toBe("the consumer unsubscribed from all topics");
    expect(driver.state).toBe("UNJOINED");
    const polls = driver.polls().length;
    const joins = driver.joins().length;
    driver.run(10_000);
    expect(driver.polls()).toHaveLength(polls);
    expect(driver.joins()).toHaveLength(joins);
    driver.control("subscribe", { topics: ["T2"] });
    driver.runUntil(() => driver.joins().length === joins + 1);
    expect(driver.lastOf("JoinGroupRequest").message).toMatchObject({ memberId: "" });
  });
});

describe("classic poll timeout (max.poll.interval.ms)", () => {
  it("a dynamic member sends LeaveGroup exactly max.poll.interval.ms after its poll timer last restarted, loses its partitions, and rejoins on its next poll", () => {
    const driver = new ClassicDriver(classicConfig({ consumer: { "max.poll.interval.ms": MAX_POLL_MS }, app: { lostCallbackMs: 10 } }));
    driver.joinStableWith({ T1: [0, 1] }, 3);
    driver.runAnswering(() => driver.recordRanges().length > 2);
    driver.control("pause-app");
    const lastPoll = lastWhere(driver.ctx.seen, (s) => isPollTimerRestart(s.observation))?.at ?? -1;
    driver.runAnswering(() => driver.sentOf("LeaveGroupRequest").length === 1);
    const timeouts = driver.ctx.seen.filter((s) => s.observation.type === "member.poll-timeout");
    expect(timeouts).toHaveLength(1);
    expect(timeouts[0]?.at).toBe(lastPoll + ms(MAX_POLL_MS));
    expect(timeouts[0]?.observation).toMatchObject({ lastPollUs: lastPoll, maxPollIntervalMs: MAX_POLL_MS, memberId: "m-1" });
    expect(driver.lastOf("LeaveGroupRequest")).toMatchObject({
      at: lastPoll + ms(MAX_POLL_MS),
      message: { members: [{ memberId: "m-1", groupInstanceId: null, reason: "consumer poll timeout has expired." }] },
    });
    expect(driver.timeline("member.state", "member.owned").slice(-2)).toEqual(["state STABLE->UNJOINED", "owned {} lost"]);
    driver.answerLeave();
    // Unjoined: no heartbeats, no second expiry.
    const leftAt = driver.now;
    driver.run(3 * MAX_POLL_MS);
    expect(driver.classicHeartbeats().filter((h) => h.at > leftAt)).toEqual([]);
    expect(driver.observations("member.poll-timeout")).toHaveLength(1);
    expect(driver.timeline("member.callback").filter((c) => c.startsWith("onPartitionsLost"))).toEqual([]);

    // The next poll(): onPartitionsLost on the application thread, then a fresh JoinGroup.
    const joins = driver.joins().length;
    driver.control("resume-app");
    driver.runAnswering(() => driver.joins().length === joins + 1);
    expect(driver.timeline("member.callback", "member.state").slice(-3)).toEqual([
      'onPartitionsLost start {"T1":[0,1]}',
      'onPartitionsLost end {"T1":[0,1]}',
      "state UNJOINED->PREPARING_REBALANCE",
    ]);
    expect(driver.lastOf("JoinGroupRequest").message.memberId).toBe("");
  });

  it("the heartbeat thread's timers read the member's own clock and never go back (Heartbeat.update): a clock stepped back makes polls until it catches up restart the poll timer from its high-water mark", () => {
    // Slow processing, one record a poll: a backlog builds, so poll() still returns records after the step.
    const driver = new ClassicDriver(
      classicConfig({ consumer: { "max.poll.interval.ms": MAX_POLL_MS, "max.poll.records": 1 }, app: { processingMsPerRecord: 100 } }),
    );
    driver.joinStableWith({ T1: [0, 1] }, 3);
    driver.runAnswering(() => driver.polls().length > 100);
    const { highWater, lastPoll } = pollAcrossBackwardStep(driver, 3000, 3, (done) => driver.runAnswering(done));
    expect(lastPoll).toBeGreaterThan(highWater);
    driver.runAnswering(() => driver.sentOf("LeaveGroupRequest").length === 1);
    expect(pollTimeouts(driver)).toEqual([[highWater + ms(MAX_POLL_MS + 3000), highWater]]);
  });

  it("a static member just stops heartbeating: no LeaveGroup; it rejoins with its instance id on its next poll", () => {
    const driver = new ClassicDriver(classicConfig({ consumer: { "max.poll.interval.ms": MAX_POLL_MS, "group.instance.id": "inst-2" } }));
    driver.answerFindCoordinator();
    driver.runUntil(() => driver.joins().length === 1);
    driver.answerJoin({ memberId: "inst-2-a", generation: 1 });
    driver.runUntil(() => driver.syncs().length === 1);
    driver.answerSync({ assignment: { T1: [0] } });
    driver.runAnswering(() => driver.recordRanges().length > 1);
    driver.control("pause-app");
    const lastPoll = lastWhere(driver.ctx.seen, (s) => isPollTimerRestart(s.observation))?.at ?? -1;
    driver.runAnswering(() => driver.observations("member.poll-timeout").length === 1);
    expect(driver.now).toBe(lastPoll + ms(MAX_POLL_MS));
    expect(driver.state).toBe("UNJOINED");
    const expiredAt = driver.now;
    driver.run(2 * MAX_POLL_MS);
    expect(driver.sentOf("LeaveGroupRequest")).toEqual([]);
    expect(driver.classicHeartbeats().filter((h) => h.at > expiredAt)).toEqual([]);
    const joins = driver.joins().length;
    driver.control("resume-app");
    driver.runAnswering(() => driver.joins().length === joins + 1);
    expect(driver.lastOf("JoinGroupRequest").message).toMatchObject({ memberId: "", groupInstanceId: "inst-2" });
  });

  it("a batch that takes longer than max.poll.interval.ms expires the member too", () => {
    const driver = new ClassicDriver(
      classicConfig({ consumer: { "max.poll.interval.ms": MAX_POLL_MS, "max.poll.records": 1 }, app: { commit: "none" } }),
    );
    driver.joinStableWith({ T1: [0] }, 1);
    driver.runAnswering(() => driver.recordRanges().length > 0);
    driver.control("set-processing-ms", { ms: 30_000 });
    driver.runAnswering(() => driver.observations("member.poll-timeout").length === 1);
    const timeout = driver.observations("member.poll-timeout")[0];
    expect(driver.now - Number(timeout?.lastPollUs)).toBe(ms(MAX_POLL_MS));
    expect(driver.sentOf("LeaveGroupRequest")).toHaveLength(1);
  });

  it("one expiry per poll gap, even when the member rejoins inside the poll() that was due", () => {
    // onPartitionsRevoked takes 25 s inside poll(): the timer, restarted at the top of that pass, runs out in it.
    const driver = new ClassicDriver(
      classicConfig({ consumer: { "max.poll.interval.ms": MAX_POLL_MS }, app: { revokeCallbackMs: 25_000 } }),
    );
    driver.joinStableWith({ T1: [0] }, 1);
    const heartbeats = driver.classicHeartbeats().length;
    driver.runAnswering(() => driver.classicHeartbeats().length > heartbeats, 60_000, true);
    driver.answerClassicHeartbeat(ErrorCode.REBALANCE_IN_PROGRESS);
    driver.forgetRoutine();
    driver.runAnswering(() => driver.observations("member.poll-timeout").length === 1);
    const expiredAt = driver.now;
    const lastRestart = lastWhere(driver.ctx.seen, (s) => isPollTimerRestart(s.observation) && s.at < expiredAt)?.at ?? -1;
    expect(expiredAt).toBe(lastRestart + ms(MAX_POLL_MS));
    expect(driver.timeline("member.callback").slice(-1)).toEqual(['onPartitionsRevoked start {"T1":[0]}']);
    driver.answerLeave();
    // The callback over, the same poll() joins again, with no pass begun since: its JoinGroup is out with the
    // deadline still passed, but the heartbeat thread checks nothing before the member has joined.
    const joins = driver.joins().length;
    driver.runAnswering(() => driver.joins().length === joins + 1);
    expect(lastWhere(driver.ctx.seen, isPollTimerRestartSeen)?.at).toBe(lastRestart);
    driver.run(5000);
    expect(driver.observations("member.poll-timeout")).toHaveLength(1);
    // Its JoinGroup answered, the poll timer starts over (Heartbeat.resetTimeouts), and a new gap begins.
    driver.answerJoin({ generation: 2 });
    expect(lastWhere(driver.ctx.seen, isPollTimerRestartSeen)?.at).toBe(driver.now);
  });

  it("a poll() within the interval never expires the member", () => {
    const driver = new ClassicDriver(classicConfig({ consumer: { "max.poll.interval.ms": MAX_POLL_MS }, app: { pollTimeoutMs: 5000 } }));
    driver.joinStableWith({ T1: [0, 1] }, 1);
    driver.runAnswering(() => driver.now > ms(5 * MAX_POLL_MS));
    expect(driver.observations("member.poll-timeout")).toEqual([]);
    expect(driver.state).toBe("STABLE");
  });

  it("a poll() waiting longer than max.poll.interval.ms on an idle topic never expires: each pass of its loop restarts the timer", () => {
    // poll(60 s), max.poll.interval.ms 20 s, no records: ConsumerCoordinator.poll restarts the timer at the top of
    // every pass, and a pass waits at most until the next heartbeat (timeToNextPoll: 3 s here).
    const driver = new ClassicDriver(
      classicConfig({
        consumer: { "max.poll.interval.ms": MAX_POLL_MS },
        app: { pollTimeoutMs: 60_000 },
        source: { recordsPerSecondPerPartition: 0 },
      }),
    );
    driver.joinStableWith({ T1: [0, 1] }, 1);
    const from = driver.now;
    driver.runAnswering(() => driver.now > from + ms(5 * MAX_POLL_MS));
    expect(driver.observations("member.poll-timeout")).toEqual([]);
    expect(driver.state).toBe("STABLE");
    const restarts = driver.ctx.seen.filter((s) => isPollTimerRestart(s.observation) && s.at >= from).map((s) => s.at);
    expect(Math.max(...restarts.slice(1).map((t, i) => t - (restarts[i] as number)))).toBeLessThanOrEqual(ms(3000));
  });

  it("while its JoinGroup is out (PREPARING_REBALANCE) nothing expires; the answer restarts the poll timer", () => {
    const driver = new ClassicDriver(classicConfig({ consumer: { "max.poll.interval.ms": MAX_POLL_MS } }));
    driver.joinStableWith({ T1: [0] }, 1);
    const heartbeats = driver.classicHeartbeats().length;
    driver.runAnswering(() => driver.classicHeartbeats().length > heartbeats, 60_000, true);
    driver.answerClassicHeartbeat(ErrorCode.REBALANCE_IN_PROGRESS);
    driver.forgetRoutine();
    driver.runAnswering(() => driver.joins().length === 3);
    driver.control("pause-app");
    // Longer than max.poll.interval.ms, within the JoinGroup's own timeout (the rebalance timeout + 5 s).
    driver.run(MAX_POLL_MS + 2000);
    // Kafka's heartbeat thread disables itself while the member has not joined (hasNotJoinedGroup): no expiry.
    expect(driver.observations("member.poll-timeout")).toEqual([]);
    expect(driver.sentOf("LeaveGroupRequest")).toEqual([]);
    expect(driver.state).toBe("PREPARING_REBALANCE");
    // The answer waits for the frozen application thread, which runs the join (Kafka's foreground thread); taken
    // up, it enables the heartbeat thread and restarts the poll timer (Heartbeat.resetTimeouts), expired or not.
    driver.answerJoin({ generation: 2 });
    driver.run(MAX_POLL_MS);
    expect(driver.state).toBe("PREPARING_REBALANCE");
    driver.control("resume-app");
    driver.runUntil(() => driver.state === "COMPLETING_REBALANCE");
    expect(lastWhere(driver.ctx.seen, isPollTimerRestartSeen)?.at).toBe(driver.now);
    expect(driver.observations("member.poll-timeout")).toEqual([]);
  });
});
