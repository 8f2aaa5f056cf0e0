import { ErrorCode, ms } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import type { CoordinatorObservation } from "../src/observations.js";
import { ClassicDriver, classicConfig } from "./classic-test-support.js";
import { ConsumerDriver, testConfig } from "./consumer-test-support.js";

const noAutoCommit = testConfig({ app: { commit: "none" } });

function coordinators(driver: ConsumerDriver): (string | null)[] {
  return (driver.observations("member.coordinator") as unknown as CoordinatorObservation[]).map((o) => o.coordinator);
}

describe("member.coordinator: every change of the coordinator the member knows", () => {
  it("KIP-848: found, marked unknown (NOT_COORDINATOR, no response), found again; nothing at start", () => {
    const driver = new ConsumerDriver(noAutoCommit);
    expect(coordinators(driver)).toEqual([]);
    driver.joinStable([0]);
    expect(driver.observations("member.coordinator")).toEqual([
      {
        type: "member.coordinator",
        groupId: "g1",
        memberId: driver.lastOf("ConsumerGroupHeartbeatRequest").message.memberId,
        coordinator: "coordinator-0",
      },
    ]);
    driver.run(5000);
    driver.answerHeartbeat({ error: ErrorCode.NOT_COORDINATOR });
    expect(coordinators(driver)).toEqual(["coordinator-0", null]);
    driver.answerFindCoordinator("coordinator-2");
    expect(coordinators(driver)).toEqual(["coordinator-0", null, "coordinator-2"]);
    // A heartbeat that gets no answer within request.timeout.ms.
    driver.run(30_000);
    expect(coordinators(driver)).toEqual(["coordinator-0", null, "coordinator-2", null]);
    // A failed lookup changes nothing: the coordinator was already unknown.
    driver.answerFindCoordinator("coordinator-2", ErrorCode.COORDINATOR_NOT_AVAILABLE);
    expect(coordinators(driver)).toHaveLength(4);
  });

  it("classic: found, lost to a session timeout, found again", () => {
    const driver = new ClassicDriver(classicConfig({ consumer: { "session.timeout.ms": 10_000, "heartbeat.interval.ms": 3000 } }));
    driver.joinStableWith({ T1: [0] }, 1);
    expect(driver.observations("member.coordinator")).toEqual([
      { type: "member.coordinator", groupId: "g1", memberId: "", coordinator: "coordinator-0" },
    ]);
    driver.runUntil(() => driver.snapshot.coordinator === null, 20_000);
    expect(driver.observations("member.coordinator").at(-1)).toEqual({
      type: "member.coordinator",
      groupId: "g1",
      memberId: "m-1",
      coordinator: null,
    });
    driver.runUntil(() => driver.sentOf("FindCoordinatorRequest").length === 2, 1000);
    driver.answerFindCoordinator("coordinator-1");
    expect(coordinators(driver)).toEqual(["coordinator-0", null, "coordinator-1"]);
  });

  it("KIP-848: the poll timer is checked only while a coordinator is known: the expiry comes right after it is found", () => {
    const driver = new ConsumerDriver(testConfig({ consumer: { "max.poll.interval.ms": 20_000 }, app: { commit: "none" } }));
    driver.joinStable([0]);
    driver.control("pause-app");
    driver.run(5000);
    driver.answerHeartbeat({ error: ErrorCode.NOT_COORDINATOR });
    const lastPoll = driver.polls().length;
    // FindCoordinator goes unanswered (the member retries after each request.timeout.ms) far past the poll timer.
    driver.run(50_000);
    expect(driver.observations("member.poll-timeout")).toEqual([]);
    expect(driver.polls()).toHaveLength(lastPoll);
    driver.answerFindCoordinator();
    expect(driver.timeline("member.coordinator", "member.poll-timeout", "member.state").slice(-5)).toEqual([
      "member.coordinator",
      "member.poll-timeout",
      "state STABLE->PREPARE_LEAVING",
      "state PREPARE_LEAVING->LEAVING",
      "state LEAVING->STALE",
    ]);
  });

  it("classic: the poll timer is checked only while a coordinator is known", () => {
    const driver = new ClassicDriver(classicConfig({ consumer: { "max.poll.interval.ms": 20_000 } }));
    driver.joinStableWith({ T1: [0] }, 1);
    driver.control("pause-app");
    driver.runAnswering(() => driver.classicHeartbeats().length > 0, 60_000, true);
    driver.answerClassicHeartbeat(ErrorCode.NOT_COORDINATOR);
    expect(driver.snapshot.coordinator).toBeNull();
    driver.run(50_000);
    expect(driver.observations("member.poll-timeout")).toEqual([]);
    driver.answerFindCoordinator();
    expect(driver.timeline("member.coordinator", "member.poll-timeout").slice(-2)).toEqual(["member.coordinator", "member.poll-timeout"]);
    expect(driver.now).toBeGreaterThan(ms(50_000));
  });
});
