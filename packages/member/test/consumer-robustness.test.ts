import { ErrorCode, type Micros, type Observation, tpKey } from "@kcsim/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isAllowedTransition, isNotInGroup } from "../src/consumer/member-state.js";
import type { ClientMemberState, RecordsObservation } from "../src/observations.js";
import { ConsumerDriver, isPollTimerRestart, lastWhere, type Sent, T1_ID, T2_ID, testConfig } from "./consumer-test-support.js";

/** One step of a random coordinator/nemesis script. */
type Step =
  | { kind: "advance"; ms: number }
  | { kind: "heartbeat"; outcome: "assign" | "same" | "none" | "error"; partitions: number[]; bump: boolean; error: number }
  | { kind: "find-coordinator"; ok: boolean }
  | { kind: "commit"; error: number }
  | { kind: "offset-fetch"; error: number }
  | { kind: "control"; command: string };

const HEARTBEAT_ERRORS = [
  ErrorCode.NOT_COORDINATOR,
  ErrorCode.COORDINATOR_NOT_AVAILABLE,
  ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
  ErrorCode.UNKNOWN_MEMBER_ID,
  ErrorCode.FENCED_MEMBER_EPOCH,
  ErrorCode.FENCED_MEMBER_EPOCH,
  ErrorCode.UNRELEASED_INSTANCE_ID,
];
const COMMIT_ERRORS = [
  ErrorCode.NONE,
  ErrorCode.NONE,
  ErrorCode.STALE_MEMBER_EPOCH,
  ErrorCode.NOT_COORDINATOR,
  ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
];
const COMMANDS = [
  "pause-app",
  "resume-app",
  "resume-app",
  "resume-app",
  "close",
  "unsubscribe",
  "subscribe",
  "subscribe",
  "commit-sync",
  "commit-sync",
  "set-processing-ms",
];

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant("advance" as const),
      ms: fc.oneof(fc.integer({ min: 0, max: 200 }), fc.integer({ min: 0, max: 8000 })),
    }),
  },
  {
    weight: 10,
    arbitrary: fc.record({
      kind: fc.constant("heartbeat" as const),
      outcome: fc.oneof(
        { weight: 4, arbitrary: fc.constant("assign" as const) },
        { weight: 4, arbitrary: fc.constant("same" as const) },
        { weight: 1, arbitrary: fc.constant("none" as const) },
        { weight: 1, arbitrary: fc.constant("error" as const) },
      ),
      partitions: fc.subarray([0, 1, 2, 3, 4, 5]),
      bump: fc.boolean(),
      error: fc.constantFrom(...HEARTBEAT_ERRORS),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("find-coordinator" as const), ok: fc.constantFrom(true, true, true, false) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("commit" as const), error: fc.constantFrom(...COMMIT_ERRORS) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("offset-fetch" as const),
      error: fc.constantFrom(ErrorCode.NONE, ErrorCode.NONE, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("control" as const), command: fc.constantFrom(...COMMANDS) }) },
);

/** Partitions 0-3 are T1's, 4-5 T2's. */
function assignmentOf(partitions: number[]): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  const t1 = partitions.filter((p) => p < 4);
  const t2 = partitions.filter((p) => p >= 4).map((p) => p - 4);
  if (t1.length > 0) out[T1_ID] = t1;
  if (t2.length > 0) out[T2_ID] = t2;
  return out;
}

/** Answers the newest unanswered request of a type (older ones are answered late, or never). */
class Outstanding {
  readonly #answered = new Set<Sent>();
  constructor(readonly driver: ConsumerDriver) {}
  take(type: Sent["message"]["type"]): Sent | undefined {
    const next = lastWhere(this.driver.ctx.sent, (s) => s.message.type === type && !this.#answered.has(s));
    if (next !== undefined) this.#answered.add(next);
    return next;
  }
}

function play(steps: readonly Step[], staticMember: boolean): ConsumerDriver {
  const driver = new ConsumerDriver(
    testConfig({
      consumer: { "max.poll.interval.ms": 15_000, ...(staticMember ? { "group.instance.id": "s-1" } : {}) },
      app: { revokeCallbackMs: 30, assignCallbackMs: 20, lostCallbackMs: 10 },
      subscription: ["T1", "T2"],
    }),
  );
  const outstanding = new Outstanding(driver);
  let epoch = 1;
  for (const s of steps) {
    switch (s.kind) {
      case "advance":
        driver.run(s.ms);
        break;
      case "heartbeat": {
        const request = outstanding.take("ConsumerGroupHeartbeatRequest");
        if (request?.message.type !== "ConsumerGroupHeartbeatRequest") break;
        if (s.bump) epoch++;
        const reply =
          s.outcome === "error"
            ? { error: s.error }
            : request.message.memberEpoch < 0
              ? { epoch: request.message.memberEpoch }
              : { epoch, ...(s.outcome === "assign" ? { assignment: assignmentOf(s.partitions) } : {}) };
        driver.deliver(request.to, driver.heartbeatResponse(request.message, reply));
        break;
      }
      case "find-coordinator": {
        const request = outstanding.take("FindCoordinatorRequest");
        if (request?.message.type !== "FindCoordinatorRequest") break;
        driver.deliver(request.to, {
          type: "FindCoordinatorResponse",
          correlationId: request.message.correlationId,
          throttleTimeMs: 0,
          coordinators: [
            {
              key: "g1",
              nodeId: 0,
              host: "coordinator-0",
              port: 0,
              errorCode: s.ok ? 0 : ErrorCode.COORDINATOR_NOT_AVAILABLE,
              errorMessage: null,
            },
          ],
        });
        break;
      }
      case "commit": {
        const request = outstanding.take("OffsetCommitRequest");
        if (request?.message.type === "OffsetCommitRequest")
          driver.answerOffsetCommit(s.error, request as Sent & { message: typeof request.message });
        break;
      }
      case "offset-fetch": {
        const request = outstanding.take("OffsetFetchRequest");
        if (request?.message.type !== "OffsetFetchRequest") break;
        driver.deliver(request.to, {
          type: "OffsetFetchResponse",
          correlationId: request.message.correlationId,
          throttleTimeMs: 0,
          groups: [
            {
              groupId: "g1",
              errorCode: s.error,
              topics: (request.message.groups[0]?.topics ?? []).map((t) => ({
                name: t.name,
                partitions: t.partitionIndexes.map((partitionIndex) => ({
                  partitionIndex,
                  committedOffset: 2,
                  committedLeaderEpoch: -1,
                  metadata: null,
                  errorCode: 0,
                })),
              })),
            },
          ],
        });
        break;
      }
      case "control":
        driver.control(s.command, s.command === "subscribe" ? { topics: ["T1"] } : s.command === "set-processing-ms" ? { ms: 3000 } : {});
        break;
    }
    checkSnapshot(driver);
  }
  driver.run(60_000);
  checkSnapshot(driver);
  return driver;
}

/** Out of the group means owning nothing. */
function checkSnapshot(driver: ConsumerDriver): void {
  const state = driver.state as ClientMemberState;
  if (isNotInGroup(state)) expect(driver.snapshot.owned).toEqual({});
}

/** Invariants over the whole history of observations. */
function checkHistory(seen: readonly { at: Micros; observation: Observation }[]): void {
  let state: ClientMemberState = "UNSUBSCRIBED";
  let owned = new Set<string>();
  let running: string | null = null;
  for (const { observation: o } of seen) {
    switch (o.type) {
      case "member.state": {
        expect(o.from).toBe(state);
        expect(isAllowedTransition(o.from as ClientMemberState, o.to as ClientMemberState)).toBe(true);
        state = o.to as ClientMemberState;
        break;
      }
      case "member.owned": {
        const next = new Set(Object.entries(o.owned as Record<string, number[]>).flatMap(([t, ps]) => ps.map((p) => tpKey(t, p))));
        // Ownership only grows when onPartitionsAssigned completes, and only shrinks otherwise.
        if (o.cause === "assigned") for (const key of owned) expect(next.has(key)).toBe(true);
        else for (const key of next) expect(owned.has(key)).toBe(true);
        owned = next;
        break;
      }
      case "member.records":
        // Records only from owned partitions.
        for (const r of (o as unknown as RecordsObservation).ranges) expect(owned.has(tpKey(r.topic, r.partition))).toBe(true);
        break;
      case "member.callback":
        // One callback at a time, each start followed by its end.
        if (o.phase === "start") {
          expect(running).toBeNull();
          running = String(o.callback);
        } else {
          expect(running).toBe(o.callback);
          running = null;
        }
        break;
    }
  }
}

/** request.timeout.ms (the default). */
const REQUEST_TIMEOUT_US = 30_000_000;

/**
 * When a request on the coordinator connection timed out and so closed it
 * (Kafka's NetworkClient.handleTimedOutRequests), failing every request
 * still in flight on it: worked out from what was sent and answered.
 */
function connectionCloses(driver: ConsumerDriver): { to: string; at: Micros }[] {
  const answeredAt = new Map<number, Micros>();
  for (const d of driver.delivered) {
    if ("correlationId" in d.message && !answeredAt.has(d.message.correlationId)) answeredAt.set(d.message.correlationId, d.at);
  }
  const correlationId = (sent: Sent) => ("correlationId" in sent.message ? sent.message.correlationId : -1);
  const answeredBy = (sent: Sent, at: Micros) => (answeredAt.get(correlationId(sent)) ?? Number.POSITIVE_INFINITY) <= at;
  const requests = driver.ctx.sent.filter((sent) => sent.message.type !== "FindCoordinatorRequest");
  const ended = new Set<Sent>();
  const closes: { to: string; at: Micros }[] = [];
  for (const request of [...requests].sort((a, b) => a.at - b.at)) {
    const deadline = request.at + REQUEST_TIMEOUT_US;
    if (ended.has(request) || answeredBy(request, deadline)) continue;
    closes.push({ to: request.to, at: deadline });
    for (const other of requests) if (other.to === request.to && other.at <= deadline && !answeredBy(other, deadline)) ended.add(other);
  }
  return closes;
}

/** Heartbeat invariants over what was sent and answered. */
function checkHeartbeats(driver: ConsumerDriver): void {
  const answeredAt = new Map<number, Micros>();
  for (const d of driver.delivered) if (d.message.type === "ConsumerGroupHeartbeatResponse") answeredAt.set(d.message.correlationId, d.at);
  const timeouts = driver.ctx.seen.filter((s) => s.observation.type === "member.poll-timeout").map((s) => s.at);
  const heartbeats = driver.heartbeats();
  const closes = connectionCloses(driver);
  for (const [i, { at, message }] of heartbeats.entries()) {
    // The coordinator's validation (spec 1.2): a join carries everything; -2 needs the instance id.
    if (message.memberEpoch === 0) {
      expect(message.rebalanceTimeoutMs).toBe(15_000);
      expect(message.topicPartitions).toEqual([]);
      expect(message.subscribedTopicNames).not.toBeNull();
    }
    if (message.memberEpoch === -2) expect(message.instanceId).not.toBeNull();
    expect(message.memberEpoch).toBeGreaterThanOrEqual(-2);
    if (message.memberEpoch < 0) continue;
    // At most one heartbeat in flight: every earlier one was answered or timed out (or its connection
    // closed under it), or a leave heartbeat (which goes regardless, and supersedes it) or a poll
    // timeout came in between.
    for (const [j, earlier] of heartbeats.slice(0, i).entries()) {
      if (earlier.message.memberEpoch < 0) continue;
      const answered = answeredAt.get(earlier.message.correlationId);
      const leftSince = heartbeats.slice(j + 1, i).some((h) => h.message.memberEpoch < 0);
      const settled =
        (answered !== undefined && answered <= at) ||
        earlier.at + REQUEST_TIMEOUT_US <= at ||
        closes.some((close) => close.to === earlier.to && close.at >= earlier.at && close.at <= at) ||
        leftSince ||
        timeouts.some((t) => t >= earlier.at && t <= at);
      expect(settled).toBe(true);
    }
  }
}

describe("robustness under random coordinator answers, faults and commands", () => {
  it("never throws, never breaks the state machine, owns and fetches consistently", () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 10, maxLength: 150, size: "large" }), fc.boolean(), (steps, staticMember) => {
        const driver = play(steps, staticMember);
        checkHistory(driver.ctx.seen);
        checkHeartbeats(driver);
        // Poll timeouts: one per expiry, never before max.poll.interval.ms after the poll timer last restarted.
        const timeouts = driver.ctx.seen.filter((s) => s.observation.type === "member.poll-timeout");
        expect(new Set(timeouts.map((t) => t.observation.lastPollUs)).size).toBe(timeouts.length);
        for (const timeout of timeouts) {
          const { at, observation } = timeout;
          const before = driver.ctx.seen.slice(0, driver.ctx.seen.indexOf(timeout));
          const lastPoll = lastWhere(before, (s) => isPollTimerRestart(s.observation))?.at ?? 0;
          expect(Number(observation.lastPollUs)).toBeGreaterThanOrEqual(lastPoll);
          expect(at - Number(observation.lastPollUs)).toBeGreaterThanOrEqual(15_000_000);
        }
      }),
      { numRuns: 300 },
    );
  });
});
