import type { OffsetResetStrategy, PolledRecords, PositionProblem, RecordSource } from "@kcsim/fetch";
import {
  type ActorId,
  type Context,
  ErrorCode,
  type Message,
  type Micros,
  ms,
  type SimDisconnect,
  type TopicPartition,
} from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { SyntheticRecordSource } from "../src/consumer/synthetic-record-source.js";
import { ClassicDriver, classicConfig } from "./classic-test-support.js";
import { BROKER, COORDINATOR, ConsumerDriver, T1_ID, testConfig } from "./consumer-test-support.js";

const RESET: SimDisconnect = { type: "SimDisconnect", reason: "crashed", connection: "*" };

/** A synthetic source that records the messages it is handed (and what the member had done by then). */
class RecordingSource implements RecordSource {
  readonly #inner = new SyntheticRecordSource({ kind: "synthetic", recordsPerSecondPerPartition: 10, recordBytes: 100 });
  readonly received: { from: ActorId; type: string; at: Micros }[] = [];
  /** Called with each message before the source takes it. */
  onReceive: (() => void) | undefined;

  assign(partitions: readonly TopicPartition[], ctx: Context): void {
    this.#inner.assign(partitions, ctx);
  }
  setFetchable(partitions: readonly TopicPartition[], fetchable: boolean, ctx: Context): void {
    this.#inner.setFetchable(partitions, fetchable, ctx);
  }
  seek(partition: TopicPartition, offset: number, ctx: Context): void {
    this.#inner.seek(partition, offset, ctx);
  }
  resetPosition(partition: TopicPartition, strategy: OffsetResetStrategy, ctx: Context): void {
    this.#inner.resetPosition(partition, strategy, ctx);
  }
  position(partition: TopicPartition): number | null {
    return this.#inner.position(partition);
  }
  poll(maxRecords: number, ctx: Context): PolledRecords {
    return this.#inner.poll(maxRecords, ctx);
  }
  hasRecords(): boolean {
    return this.#inner.hasRecords();
  }
  takePositionProblems(): PositionProblem[] {
    return this.#inner.takePositionProblems();
  }
  lag(partition: TopicPartition): number | null {
    return this.#inner.lag(partition);
  }
  receive(from: ActorId, message: Message, ctx: Context): boolean {
    this.onReceive?.();
    this.received.push({ from, type: message.type, at: ctx.now() });
    return false;
  }
  fire(): boolean {
    return false;
  }
  nextReadyAt(now: Micros): Micros | null {
    return this.#inner.nextReadyAt(now);
  }
}

const noAutoCommit = testConfig({ app: { commit: "none" } });

describe("connection resets (SimDisconnect), as Kafka's NetworkClient handles a disconnect", () => {
  it("KIP-848: every request in flight to the coordinator fails at once; rediscovery, then full heartbeat and OffsetFetch after their backoff", () => {
    const source = new RecordingSource();
    const driver = new ConsumerDriver(noAutoCommit, { recordSource: source });
    driver.answerFindCoordinator();
    driver.run(0);
    driver.answerHeartbeat({ epoch: 1, intervalMs: 5000, assignment: { [T1_ID]: [0] } });
    driver.run(0);
    // In flight: the OffsetFetch for the new partition and the acknowledging heartbeat.
    expect(
      driver
        .takeSent()
        .slice(-2)
        .map((s) => s.message.type),
    ).toEqual(["OffsetFetchRequest", "ConsumerGroupHeartbeatRequest"]);
    driver.run(200); // past the pause after the last FindCoordinator answer
    driver.takeSent();
    const failedHeartbeat = driver.lastOf("ConsumerGroupHeartbeatRequest");
    let coordinatorWhenHandedOn: unknown;
    source.onReceive = () => {
      coordinatorWhenHandedOn = driver.snapshot.coordinator;
    };
    const resetAt = driver.now;
    driver.deliver(COORDINATOR, RESET);

    // The member failed its own requests first, then handed the reset to the RecordSource.
    expect(source.received).toEqual([{ from: COORDINATOR, type: "SimDisconnect", at: resetAt }]);
    expect(coordinatorWhenHandedOn).toBeNull();
    expect(driver.observations("member.coordinator").at(-1)).toMatchObject({ coordinator: null });
    expect(driver.takeSent().map((s) => [s.to, s.message.type])).toEqual([[BROKER, "FindCoordinatorRequest"]]);
    driver.answerFindCoordinator();
    expect(driver.takeSent()).toEqual([]);
    driver.run(100);
    const retried = driver.takeSent();
    expect(retried.map((s) => [s.at - resetAt, s.message.type])).toEqual([
      [ms(100), "ConsumerGroupHeartbeatRequest"],
      [ms(100), "OffsetFetchRequest"],
    ]);
    // The heartbeat after a failure carries every field.
    expect(driver.lastOf("ConsumerGroupHeartbeatRequest").message).toMatchObject({
      memberEpoch: 1,
      rebalanceTimeoutMs: 300000,
      subscribedTopicNames: ["T1"],
      topicPartitions: [{ topicId: T1_ID, partitions: [0] }],
    });
    // A late answer to a failed request is dropped.
    driver.deliver(COORDINATOR, driver.heartbeatResponse(failedHeartbeat.message, { error: ErrorCode.FENCED_MEMBER_EPOCH }));
    expect(driver.state).toBe("STABLE");
  });

  it("KIP-848: a reset from a peer with nothing in flight to it changes nothing (and still reaches the RecordSource)", () => {
    const source = new RecordingSource();
    const driver = new ConsumerDriver(noAutoCommit, { recordSource: source });
    driver.joinStable([0]);
    driver.run(5000); // a heartbeat to the coordinator is in flight
    driver.takeSent();
    const seen = driver.ctx.seen.length;
    driver.deliver("broker-7", RESET);
    expect(source.received.map((r) => [r.from, r.type])).toEqual([["broker-7", "SimDisconnect"]]);
    expect(driver.takeSent()).toEqual([]);
    expect(
      driver.ctx.seen.slice(seen).filter((s) => s.observation.type !== "member.poll" && s.observation.type !== "member.records"),
    ).toEqual([]);
    expect(driver.snapshot.coordinator).toBe(COORDINATOR);
    // The heartbeat to the coordinator is still waited for.
    driver.answerHeartbeat({ epoch: 1 });
    driver.run(4999);
    expect(driver.takeSent().filter((s) => s.message.type === "ConsumerGroupHeartbeatRequest")).toEqual([]);
    driver.run(1);
    expect(driver.takeSent().map((s) => s.message.type)).toContain("ConsumerGroupHeartbeatRequest");
  });

  it("KIP-848: a commit in flight fails as NETWORK_EXCEPTION and is retried by its policy", () => {
    const driver = new ConsumerDriver(noAutoCommit);
    driver.joinStable([0]);
    driver.run(500);
    driver.control("commit-sync");
    driver.runUntil(() => driver.sentOf("OffsetCommitRequest").length === 1);
    driver.deliver(COORDINATOR, RESET);
    expect(driver.timeline("member.commit")).toEqual(["commit sync NETWORK_EXCEPTION"]);
    driver.answerFindCoordinator();
    driver.runUntil(() => driver.sentOf("OffsetCommitRequest").length === 2, 200);
    driver.answerOffsetCommit();
    expect(driver.timeline("member.commit")).toEqual(["commit sync NETWORK_EXCEPTION", "commit sync NONE"]);
  });

  it("KIP-848: a request that times out closes its connection, failing every other request in flight on it", () => {
    const driver = new ConsumerDriver(noAutoCommit);
    driver.joinStable([0]);
    driver.run(500);
    driver.control("commit-sync");
    driver.runUntil(() => driver.sentOf("OffsetCommitRequest").length === 1);
    const commitAt = driver.lastOf("OffsetCommitRequest").at;
    driver.runUntil(() => driver.heartbeats().length === 3); // the 5 s heartbeat, also unanswered
    driver.runUntilTime(commitAt + ms(30_000) - 1);
    expect(driver.snapshot.coordinator).toBe(COORDINATOR);
    driver.run(0.001);
    // The commit timed out; the heartbeat sent 4.5 s later failed with it.
    expect(driver.timeline("member.commit")).toEqual(["commit sync TIMEOUT"]);
    expect(driver.snapshot.coordinator).toBeNull();
    driver.answerFindCoordinator();
    driver.runUntil(() => driver.heartbeats().length === 4, 200);
    expect(driver.lastOf("ConsumerGroupHeartbeatRequest").at - commitAt).toBe(ms(30_100));
    expect(driver.lastOf("ConsumerGroupHeartbeatRequest").message.subscribedTopicNames).toEqual(["T1"]);
  });

  it("classic: a JoinGroup in flight fails at once (not after the rebalance timeout); rediscovery, then JoinGroup after retry.backoff.ms", () => {
    const source = new RecordingSource();
    const driver = new ClassicDriver(classicConfig(), { recordSource: source });
    driver.answerFindCoordinator();
    driver.runUntil(() => driver.joins().length === 1);
    driver.run(200); // past the pause after the last FindCoordinator answer
    const resetAt = driver.now;
    driver.deliver(COORDINATOR, RESET);
    expect(source.received.map((r) => r.type)).toEqual(["SimDisconnect"]);
    driver.run(0); // the join loop takes the failure inside poll()
    expect(driver.snapshot.coordinator).toBeNull();
    expect(driver.observations("member.coordinator").at(-1)).toMatchObject({ coordinator: null });
    driver.runUntil(() => driver.sentOf("FindCoordinatorRequest").length === 2, 10);
    driver.answerFindCoordinator();
    driver.runUntil(() => driver.joins().length === 2, 1000);
    expect(driver.lastOf("JoinGroupRequest").at - resetAt).toBe(ms(100));
  });

  it("classic: a heartbeat in flight fails at once: the coordinator is rediscovered, the next heartbeat follows the backoff", () => {
    const driver = new ClassicDriver(classicConfig());
    driver.joinStableWith({ T1: [0] }, 1);
    driver.runAnswering(() => driver.classicHeartbeats().length === 1, 60_000, true);
    const resetAt = driver.now;
    driver.deliver(COORDINATOR, RESET);
    expect(driver.snapshot.coordinator).toBeNull();
    driver.runUntil(() => driver.sentOf("FindCoordinatorRequest").length === 2, 10);
    driver.answerFindCoordinator();
    driver.runUntil(() => driver.classicHeartbeats().length === 2, 1000);
    expect(driver.lastOf("HeartbeatRequest").at - resetAt).toBe(ms(100));
    expect(driver.state).toBe("STABLE");
  });

  it("classic: a commit in flight fails as NETWORK_EXCEPTION", () => {
    const driver = new ClassicDriver(classicConfig({ app: { commit: "none" }, consumer: { "enable.auto.commit": false } }));
    driver.joinStableWith({ T1: [0] }, 1);
    driver.run(500);
    driver.control("commit-sync");
    driver.runUntil(() => driver.sentOf("OffsetCommitRequest").length === 1);
    driver.deliver(COORDINATOR, RESET);
    expect(driver.timeline("member.commit")).toEqual(["commit sync NETWORK_EXCEPTION"]);
    expect(driver.snapshot.coordinator).toBeNull();
    driver.runUntil(() => driver.sentOf("FindCoordinatorRequest").length === 2, 10);
    driver.answerFindCoordinator();
    driver.runUntil(() => driver.sentOf("OffsetCommitRequest").length === 2, 1000);
    driver.answerOffsetCommit(ErrorCode.NONE);
    expect(driver.timeline("member.commit")).toEqual(["commit sync NETWORK_EXCEPTION", "commit sync NONE"]);
  });
});
