import { ms } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import {
  ConsumerDriver,
  isPollTimerRestart,
  lastWhere,
  pollAcrossBackwardStep,
  pollTimeouts,
  testConfig,
} from "./consumer-test-support.js";

const MAX_POLL_MS = 20_000;

describe("max.poll.interval.ms (STALE, spec 2.2)", () => {
  it("a paused application thread leaves the group once per expiry, and rejoins on its next poll()", () => {
    const driver = new ConsumerDriver(testConfig({ consumer: { "max.poll.interval.ms": MAX_POLL_MS }, app: { lostCallbackMs: 25 } }));
    driver.joinStable([0, 1]);
    driver.run(1000);
    driver.control("pause-app");
    // The application froze inside poll(): its timer last restarted at the top of that poll()'s last pass.
    const lastPoll = lastWhere(driver.ctx.seen, (s) => isPollTimerRestart(s.observation))?.at ?? -1;
    driver.runWithCoordinator(3 * MAX_POLL_MS);

    // Exactly one expiry, exactly max.poll.interval.ms after that restart.
    const timeouts = driver.ctx.seen.filter((s) => s.observation.type === "member.poll-timeout");
    expect(timeouts).toHaveLength(1);
    expect(timeouts[0]?.observation).toMatchObject({ lastPollUs: lastPoll, maxPollIntervalMs: MAX_POLL_MS, groupId: "g1" });
    expect(timeouts[0]?.at).toBe(lastPoll + ms(MAX_POLL_MS));
    // The leave heartbeat goes out at the expiry; then nothing while STALE.
    const leave = driver.heartbeats().find((h) => h.message.memberEpoch === -1);
    expect(leave?.at).toBe(timeouts[0]?.at);
    expect(leave?.message.topicPartitions).toEqual([]);
    expect(driver.heartbeats().filter((h) => h.at > (leave?.at ?? 0))).toHaveLength(0);
    expect(driver.state).toBe("STALE");
    // Ownership ended at once; onPartitionsLost waits for the application thread.
    expect(driver.snapshot.owned).toEqual({});
    expect(driver.timeline("member.state", "member.owned").slice(-4)).toEqual([
      "state STABLE->PREPARE_LEAVING",
      "state PREPARE_LEAVING->LEAVING",
      "state LEAVING->STALE",
      "owned {} lost",
    ]);
    expect(driver.timeline("member.callback").filter((c) => c.startsWith("onPartitionsLost"))).toEqual([]);

    driver.control("resume-app");
    driver.runUntil(() => driver.state === "JOINING");
    expect(driver.timeline("member.callback", "member.state").slice(-3)).toEqual([
      'onPartitionsLost start {"T1":[0,1]}',
      'onPartitionsLost end {"T1":[0,1]}',
      "state STALE->JOINING",
    ]);
    expect(driver.lastOf("ConsumerGroupHeartbeatRequest").message).toMatchObject({ memberEpoch: 0, topicPartitions: [] });

    // Back in the group; a second pause is a second expiry.
    driver.runWithCoordinator(5000);
    expect(driver.state).toBe("STABLE");
    driver.control("pause-app");
    driver.runWithCoordinator(2 * MAX_POLL_MS);
    expect(driver.observations("member.poll-timeout")).toHaveLength(2);
  });

  it("a poll() waiting longer than max.poll.interval.ms on an idle topic never expires: each pass of its loop restarts the timer", () => {
    // poll(60 s) with max.poll.interval.ms 20 s and no records: Kafka's PollEvent at the top of every pass of
    // poll()'s loop restarts the timer, and a pass waits at most until the next heartbeat (5 s here).
    const driver = new ConsumerDriver(
      testConfig({
        consumer: { "max.poll.interval.ms": MAX_POLL_MS },
        app: { pollTimeoutMs: 60_000 },
        source: { recordsPerSecondPerPartition: 0 },
      }),
    );
    driver.joinStable([0, 1]);
    const from = driver.now;
    driver.runWithCoordinator(5 * MAX_POLL_MS);
    expect(driver.observations("member.poll-timeout")).toEqual([]);
    expect(driver.state).toBe("STABLE");
    const restarts = driver.ctx.seen.filter((s) => isPollTimerRestart(s.observation) && s.at >= from).map((s) => s.at);
    const gaps = restarts.slice(1).map((t, i) => t - (restarts[i] as number));
    expect(Math.max(...gaps)).toBeLessThanOrEqual(ms(5000));
    // Each poll() returns once its 60 s are up, with nothing.
    expect(driver.polls().filter((p) => p.type === "member.poll").length).toBe(Math.floor((5 * MAX_POLL_MS) / 60_000));
  });

  it("the timer restarts at the top of a pass, not when poll() returns: records that end a pass's wait restart nothing", () => {
    // A record every 2 s across the two partitions: each poll() waits for it within one pass, then returns it.
    const driver = new ConsumerDriver(
      testConfig({ consumer: { "max.poll.interval.ms": MAX_POLL_MS }, source: { recordsPerSecondPerPartition: 0.25 } }),
    );
    driver.joinStable([0, 1]);
    driver.runWithCoordinator(10_000);
    // Paused as the next poll() returns its record: it returned after waiting for it since the top of its pass.
    const records = driver.observations("member.records").length;
    driver.runUntil(() => driver.observations("member.records").length > records);
    driver.control("pause-app");
    const returned = lastWhere(driver.ctx.seen, (s) => s.observation.type === "member.records")?.at ?? -1;
    const restarted = lastWhere(driver.ctx.seen, (s) => isPollTimerRestart(s.observation))?.at ?? -1;
    expect(restarted).toBeLessThan(returned);
    driver.runWithCoordinator(2 * MAX_POLL_MS);
    expect(pollTimeouts(driver)).toEqual([[restarted + ms(MAX_POLL_MS), restarted]]);
  });

  it("the poll timer reads the member's own clock: a clock stepped forward expires it early, by exactly the step", () => {
    const driver = new ConsumerDriver(testConfig({ consumer: { "max.poll.interval.ms": MAX_POLL_MS } }));
    driver.joinStable([0, 1]);
    driver.run(1000);
    driver.control("pause-app");
    const lastPoll = lastWhere(driver.ctx.seen, (s) => isPollTimerRestart(s.observation))?.at ?? -1;
    driver.run(2000);
    driver.ctx.stepClock(ms(5000));
    driver.runWithCoordinator(2 * MAX_POLL_MS);
    // Its clock read the poll's virtual time at the poll (no step yet), and reads 5 s ahead from the step on.
    expect(pollTimeouts(driver)).toEqual([[lastPoll + ms(MAX_POLL_MS - 5000), lastPoll]]);
  });

  it("a clock stepped back does not move the poll timer back (Kafka's Timer.update keeps the largest reading): polls until it catches up restart the timer from there", () => {
    // Slow processing, one record a poll: a backlog builds, so poll() still returns records after the step.
    const driver = new ConsumerDriver(
      testConfig({
        consumer: { "max.poll.interval.ms": MAX_POLL_MS, "max.poll.records": 1 },
        app: { processingMsPerRecord: 100, commit: "none" },
      }),
    );
    driver.joinStable([0, 1]);
    driver.run(10_000);
    const { highWater, lastPoll } = pollAcrossBackwardStep(driver, 3000, 3, (done) => driver.runUntil(done));
    expect(lastPoll).toBeGreaterThan(highWater);
    driver.runWithCoordinator(2 * MAX_POLL_MS);
    // Not lastPoll - 3 s (the clock's own reading then), but the timer's time: the high-water mark. It expires when
    // the clock reads highWater + max.poll.interval.ms, 3 s of virtual time later than that.
    expect(pollTimeouts(driver)).toEqual([[highWater + ms(MAX_POLL_MS + 3000), highWater]]);
  });

  it("a batch that takes longer than max.poll.interval.ms makes the member stale too", () => {
    const driver = new ConsumerDriver(
      testConfig({ consumer: { "max.poll.interval.ms": MAX_POLL_MS, "max.poll.records": 1 }, app: { commit: "none" } }),
    );
    driver.joinStable([0, 1]);
    driver.run(500);
    driver.control("set-processing-ms", { ms: 30_000 });
    driver.runWithCoordinator(2 * MAX_POLL_MS);
    const timeouts = driver.ctx.seen.filter((s) => s.observation.type === "member.poll-timeout");
    expect(timeouts).toHaveLength(1);
    // The last poll handed out the slow batch (its timer restarted at the top of its last pass); the member left
    // while processing it ...
    const slowPoll = lastWhere(driver.ctx.seen, (s) => isPollTimerRestart(s.observation) && s.at < (timeouts[0]?.at ?? 0));
    expect(timeouts[0]?.observation.lastPollUs).toBe(slowPoll?.at);
    expect(timeouts[0]?.at).toBe((slowPoll?.at ?? 0) + ms(MAX_POLL_MS));
    // ... and rejoined with the poll() after it.
    expect(driver.timeline("member.state")).toContain("state STALE->JOINING");
    const rejoin = driver.heartbeats().find((h) => h.at > (timeouts[0]?.at ?? 0) && h.message.memberEpoch === 0);
    expect(rejoin?.at).toBeGreaterThanOrEqual((slowPoll?.at ?? 0) + ms(30_000));
  });

  it("set-processing-ms applies to the batch in progress: the stale member rejoins once processing is fast again", () => {
    const driver = new ConsumerDriver(
      testConfig({ consumer: { "max.poll.interval.ms": MAX_POLL_MS, "max.poll.records": 10 }, app: { commit: "none" } }),
    );
    driver.joinStable([0, 1]);
    driver.runWithCoordinator(1000);
    driver.control("set-processing-ms", { ms: 40_000 });
    driver.runWithCoordinator(60_000); // the current batch now takes 40 s per record
    expect(driver.state).toBe("STALE");
    expect(driver.observations("member.poll-timeout")).toHaveLength(1);
    const fastAt = driver.now;
    driver.control("set-processing-ms", { ms: 1 });
    driver.runWithCoordinator(100);
    // What was left of the batch took (left / 40 s) ms: the next poll() rejoined at once.
    expect(driver.state).not.toBe("STALE");
    const rejoin = driver.heartbeats().find((h) => h.at >= fastAt && h.message.memberEpoch === 0);
    expect(rejoin).toBeDefined();
    expect((rejoin?.at ?? 0) - fastAt).toBeLessThan(ms(20));
    driver.runWithCoordinator(120_000);
    expect(driver.observations("member.poll-timeout")).toHaveLength(1);
  });

  it("a static member leaves with epoch -2 on a poll timeout", () => {
    const driver = new ConsumerDriver(testConfig({ consumer: { "max.poll.interval.ms": MAX_POLL_MS, "group.instance.id": "static-1" } }));
    driver.joinStable([0, 1]);
    driver.control("pause-app");
    driver.runWithCoordinator(MAX_POLL_MS + 1000);
    expect(driver.state).toBe("STALE");
    expect(driver.lastOf("ConsumerGroupHeartbeatRequest").message).toMatchObject({ memberEpoch: -2, instanceId: "static-1" });
  });
});
