import { ErrorCode, type JoinGroupResponseMember, type Micros, type Observation, tpKey } from "@kcsim/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodeCooperativeUserData } from "../src/assignors/sticky/sticky-user-data.js";
import { isAllowedClassicTransition } from "../src/classic/classic-member-state.js";
import type { ClassicMemberState, RecordsObservation } from "../src/observations.js";
import { ClassicDriver, classicConfig, joinSubscription, type PartitionMap, subscriptionBytes } from "./classic-test-support.js";
import { isPollTimerRestart, lastWhere, type Sent } from "./consumer-test-support.js";

/** One step of a random coordinator / nemesis script. */
type Step =
  | { kind: "advance"; ms: number }
  | { kind: "join"; error: number; leader: boolean; others: number; skipAssignment: boolean }
  | { kind: "sync"; error: number; partitions: number[] }
  | { kind: "heartbeat"; error: number }
  | { kind: "find-coordinator"; ok: boolean }
  | { kind: "commit"; error: number }
  | { kind: "offset-fetch"; error: number }
  | { kind: "leave" }
  | { kind: "control"; command: string }
  /** A healthy coordinator for a moment: everything outstanding answered with success, rounds over (ids, generations, `partitions`). */
  | { kind: "serve"; partitions: number[] };

const NONE = ErrorCode.NONE;
const JOIN_ERRORS = [
  NONE,
  NONE,
  NONE,
  NONE,
  ErrorCode.MEMBER_ID_REQUIRED,
  ErrorCode.UNKNOWN_MEMBER_ID,
  ErrorCode.ILLEGAL_GENERATION,
  ErrorCode.REBALANCE_IN_PROGRESS,
  ErrorCode.COORDINATOR_NOT_AVAILABLE,
  ErrorCode.NOT_COORDINATOR,
  ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
];
const SYNC_ERRORS = [
  NONE,
  NONE,
  NONE,
  NONE,
  ErrorCode.REBALANCE_IN_PROGRESS,
  ErrorCode.UNKNOWN_MEMBER_ID,
  ErrorCode.ILLEGAL_GENERATION,
  ErrorCode.NOT_COORDINATOR,
];
const HEARTBEAT_ERRORS = [
  NONE,
  NONE,
  NONE,
  NONE,
  ErrorCode.REBALANCE_IN_PROGRESS,
  ErrorCode.REBALANCE_IN_PROGRESS,
  ErrorCode.ILLEGAL_GENERATION,
  ErrorCode.UNKNOWN_MEMBER_ID,
  ErrorCode.NOT_COORDINATOR,
  ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
];
const COMMIT_ERRORS = [
  NONE,
  NONE,
  NONE,
  ErrorCode.ILLEGAL_GENERATION,
  ErrorCode.UNKNOWN_MEMBER_ID,
  ErrorCode.REBALANCE_IN_PROGRESS,
  ErrorCode.NOT_COORDINATOR,
  ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
];
/** Rare fatal answers, so most runs stay alive long enough to be interesting. */
const FATAL_ERRORS = [ErrorCode.GROUP_MAX_SIZE_REACHED, ErrorCode.FENCED_INSTANCE_ID, ErrorCode.INCONSISTENT_GROUP_PROTOCOL];
const COMMANDS = [
  "pause-app",
  "resume-app",
  "resume-app",
  "close",
  "unsubscribe",
  "subscribe",
  "subscribe",
  "commit-sync",
  "set-processing-ms",
];

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("advance" as const),
      ms: fc.oneof(fc.integer({ min: 0, max: 200 }), fc.integer({ min: 0, max: 8000 })),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant("join" as const),
      error: fc.oneof(
        { weight: 30, arbitrary: fc.constantFrom(...JOIN_ERRORS) },
        { weight: 1, arbitrary: fc.constantFrom(...FATAL_ERRORS) },
      ),
      leader: fc.boolean(),
      others: fc.integer({ min: 0, max: 2 }),
      skipAssignment: fc.constantFrom(false, false, false, true),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant("sync" as const),
      error: fc.constantFrom(...SYNC_ERRORS),
      partitions: fc.subarray([0, 1, 2, 3, 4, 5]),
    }),
  },
  { weight: 6, arbitrary: fc.record({ kind: fc.constant("heartbeat" as const), error: fc.constantFrom(...HEARTBEAT_ERRORS) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("find-coordinator" as const), ok: fc.constantFrom(true, true, true, false) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("commit" as const), error: fc.constantFrom(...COMMIT_ERRORS) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("offset-fetch" as const),
      error: fc.constantFrom(NONE, NONE, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("leave" as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("control" as const), command: fc.constantFrom(...COMMANDS) }) },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant("serve" as const), partitions: fc.subarray([0, 1, 2, 3, 4, 5], { minLength: 1 }) }),
  },
);

/** Partitions 0-3 are T1's, 4-5 T2's. */
function assignmentOf(partitions: number[]): PartitionMap {
  const t1 = partitions.filter((p) => p < 4);
  const t2 = partitions.filter((p) => p >= 4).map((p) => p - 4);
  return { ...(t1.length > 0 ? { T1: t1 } : {}), ...(t2.length > 0 ? { T2: t2 } : {}) };
}

/** Answers the newest unanswered request of a type (older ones are answered late, or never). */
class Outstanding {
  readonly #answered = new Set<Sent>();
  constructor(readonly driver: ClassicDriver) {}
  take(type: Sent["message"]["type"]): Sent | undefined {
    const next = lastWhere(this.driver.ctx.sent, (s) => s.message.type === type && !this.#answered.has(s));
    if (next !== undefined) this.#answered.add(next);
    return next;
  }
}

interface Variant {
  readonly assignor: "range" | "cooperative-sticky";
  readonly staticMember: boolean;
}

function play(steps: readonly Step[], variant: Variant): ClassicDriver {
  const driver = new ClassicDriver(
    classicConfig({
      consumer: {
        "max.poll.interval.ms": 15_000,
        "partition.assignment.strategy": [variant.assignor],
        ...(variant.staticMember ? { "group.instance.id": "s-1" } : {}),
      },
      app: { revokeCallbackMs: 30, assignCallbackMs: 20, lostCallbackMs: 10 },
      subscription: ["T1", "T2"],
    }),
  );
  const outstanding = new Outstanding(driver);
  let generation = 0;
  let nextMemberId = 1;
  const answer = (s: Step): boolean => {
    switch (s.kind) {
      case "advance":
        driver.run(s.ms);
        return true;
      case "serve": {
        let answered = false;
        for (let round = 0; round < 6; round++) {
          const any = [
            answer({ kind: "find-coordinator", ok: true }),
            answer({ kind: "join", error: NONE, leader: false, others: 0, skipAssignment: false }),
            answer({ kind: "sync", error: NONE, partitions: s.partitions }),
            answer({ kind: "heartbeat", error: NONE }),
            answer({ kind: "commit", error: NONE }),
            answer({ kind: "offset-fetch", error: NONE }),
            answer({ kind: "leave" }),
          ].some((x) => x);
          if (!any) break;
          answered = true;
          driver.run(0);
        }
        return answered;
      }
      case "join": {
        const request = outstanding.take("JoinGroupRequest");
        if (request?.message.type !== "JoinGroupRequest") return false;
        const memberId = request.message.memberId === "" ? `m-${nextMemberId++}` : request.message.memberId;
        // A coordinator asks for a member id only from a member that has none (KIP-394).
        const error = s.error === ErrorCode.MEMBER_ID_REQUIRED && request.message.memberId !== "" ? NONE : s.error;
        if (error === NONE) generation++;
        const own = request.message.protocols[0]?.metadata ?? new Uint8Array();
        const members: JoinGroupResponseMember[] = [{ memberId, groupInstanceId: request.message.groupInstanceId, metadata: own }];
        for (let i = 0; i < s.others; i++) {
          const userData = variant.assignor === "cooperative-sticky" ? encodeCooperativeUserData(generation - 1) : null;
          members.push({
            memberId: `other-${i}`,
            groupInstanceId: null,
            metadata: subscriptionBytes(["T1", "T2"], {}, generation - 1, userData),
          });
        }
        driver.answerJoin(
          {
            error,
            memberId,
            generation: error === NONE ? generation : -1,
            leader: s.leader ? memberId : "other-0",
            members: s.leader ? members : [],
            skipAssignment: s.leader && s.skipAssignment,
          },
          request as Sent & { message: typeof request.message },
        );
        return true;
      }
      case "sync": {
        const request = outstanding.take("SyncGroupRequest");
        if (request?.message.type !== "SyncGroupRequest") return false;
        driver.answerSync(
          { error: s.error, assignment: assignmentOf(s.partitions) },
          request as Sent & { message: typeof request.message },
        );
        return true;
      }
      case "heartbeat": {
        const request = outstanding.take("HeartbeatRequest");
        if (request?.message.type !== "HeartbeatRequest") return false;
        driver.answerClassicHeartbeat(s.error, request as Sent & { message: typeof request.message });
        return true;
      }
      case "find-coordinator": {
        const request = outstanding.take("FindCoordinatorRequest");
        if (request?.message.type !== "FindCoordinatorRequest") return false;
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
        return true;
      }
      case "commit": {
        const request = outstanding.take("OffsetCommitRequest");
        if (request?.message.type !== "OffsetCommitRequest") return false;
        driver.answerOffsetCommit(s.error, request as Sent & { message: typeof request.message });
        return true;
      }
      case "offset-fetch": {
        const request = outstanding.take("OffsetFetchRequest");
        if (request === undefined) return false;
        driver.answerOffsetFetchOf(request);
        return true;
      }
      case "leave": {
        const request = outstanding.take("LeaveGroupRequest");
        if (request?.message.type !== "LeaveGroupRequest") return false;
        driver.deliver(request.to, {
          type: "LeaveGroupResponse",
          correlationId: request.message.correlationId,
          throttleTimeMs: 0,
          errorCode: NONE,
          members: [],
        });
        return true;
      }
      case "control":
        driver.control(
          s.command,
          s.command === "subscribe"
            ? { topics: generation % 2 === 0 ? ["T1"] : ["T1", "T2"] }
            : s.command === "set-processing-ms"
              ? { ms: 3000 }
              : {},
        );
        return true;
    }
  };
  for (const s of steps) {
    answer(s);
    // What the answer sets off at once (a waiting poll() wakes at the same instant).
    if (s.kind !== "advance") driver.run(0);
    checkSnapshot(driver, variant);
  }
  driver.run(60_000);
  checkSnapshot(driver, variant);
  return driver;
}

/**
 * Out of the group (or failed) means owning nothing, except in the zombie
 * window (see `checkHistory`): then exactly what the dead generation's
 * onJoinComplete installed. EAGER owns nothing while rebalancing.
 */
function checkSnapshot(driver: ClassicDriver, variant: Variant): void {
  const state = driver.state as ClassicMemberState;
  const zombie = zombieInstall(driver.ctx.seen);
  if (state === "FATAL") expect(driver.owned).toEqual({});
  if (state === "UNJOINED") expect(driver.owned).toEqual(zombie?.owned ?? {});
  if (variant.assignor === "range" && (state === "PREPARING_REBALANCE" || state === "COMPLETING_REBALANCE"))
    expect(driver.owned).toEqual({});
  if (JSON.stringify(driver.owned) !== "{}" && zombie === undefined) expect(driver.generation).toBeGreaterThan(0);
}

/** The newest `member.owned`, when it is a zombie install (assigned under the reset generation, epoch -1), which nothing has ended yet. */
function zombieInstall(seen: readonly { observation: Observation }[]): Observation | undefined {
  const last = lastWhere(seen, (s) => s.observation.type === "member.owned")?.observation;
  return last?.cause === "assigned" && last.memberEpoch === -1 ? last : undefined;
}

function keysOf(partitions: Record<string, number[]>): Set<string> {
  return new Set(Object.entries(partitions).flatMap(([t, ps]) => ps.map((p) => tpKey(t, p))));
}

/** Invariants over the whole history of observations. */
function checkHistory(seen: readonly { at: Micros; observation: Observation }[]): void {
  let state: ClassicMemberState = "UNJOINED";
  let owned = new Set<string>();
  /** Partitions installed under a reset generation and not yet given up (see "member.owned"). */
  let zombie = new Set<string>();
  let lastAssigned = new Set<string>();
  let running: string | null = null;
  let fatal = false;
  for (const { observation: o } of seen) {
    switch (o.type) {
      case "member.state": {
        expect(o.protocol).toBe("classic");
        expect(o.from).toBe(state);
        expect(isAllowedClassicTransition(o.from as ClassicMemberState, o.to as ClassicMemberState)).toBe(true);
        state = o.to as ClassicMemberState;
        if (state === "COMPLETING_REBALANCE" || state === "STABLE") expect(Number(o.memberEpoch)).toBeGreaterThan(0);
        if (state === "UNJOINED") expect(o.memberEpoch).toBe(-1);
        break;
      }
      case "member.owned": {
        const next = keysOf(o.owned as Record<string, number[]>);
        if (o.cause === "assigned") {
          // Ownership grows only when onPartitionsAssigned completed for exactly those partitions.
          for (const key of owned) expect(next.has(key)).toBe(true);
          for (const key of next) if (!owned.has(key)) expect(lastAssigned.has(key)).toBe(true);
          if (state === "UNJOINED") {
            // The zombie window, as in Kafka: the heartbeat thread reset the generation while onJoinComplete's
            // callbacks ran, and ConsumerCoordinator installs the dead generation's assignment anyway. It lasts
            // until the next onJoinPrepare gives it up as lost; no position is fetched, so no record is handed out.
            expect(o.memberEpoch).toBe(-1);
            zombie = next;
          } else {
            expect(state).toBe("STABLE");
            expect(Number(o.memberEpoch)).toBeGreaterThan(0);
          }
        } else {
          for (const key of next) expect(owned.has(key)).toBe(true);
          zombie = new Set();
        }
        owned = next;
        break;
      }
      case "member.records":
        for (const r of (o as unknown as RecordsObservation).ranges) {
          expect(owned.has(tpKey(r.topic, r.partition))).toBe(true);
          expect(zombie.has(tpKey(r.topic, r.partition))).toBe(false);
        }
        break;
      case "member.callback":
        if (o.phase === "start") {
          expect(running).toBeNull();
          running = String(o.callback);
          // Partitions stop being owned before they are revoked or declared lost.
          if (o.callback !== "onPartitionsAssigned")
            for (const key of keysOf(o.partitions as Record<string, number[]>)) expect(owned.has(key)).toBe(false);
        } else {
          expect(running).toBe(o.callback);
          running = null;
          if (o.callback === "onPartitionsAssigned") lastAssigned = keysOf(o.partitions as Record<string, number[]>);
        }
        break;
      case "member.fatal":
        expect(fatal).toBe(false);
        fatal = true;
        break;
    }
  }
}

/** What the member sent: joined with an id it was given, heartbeats and commits only with a generation, nothing after a fatal error. */
function checkRequests(driver: ClassicDriver, variant: Variant): void {
  const fatalAt = driver.ctx.seen.find((s) => s.observation.type === "member.fatal")?.at;
  for (const { at, message } of driver.ctx.sent) {
    // A failed consumer sends nothing more.
    if (fatalAt !== undefined) expect(at <= fatalAt ? "" : message.type).toBe("");
    switch (message.type) {
      case "JoinGroupRequest": {
        expect(message.rebalanceTimeoutMs).toBe(15_000);
        expect(message.groupInstanceId).toBe(variant.staticMember ? "s-1" : null);
        const subscription = joinSubscription(message, variant.assignor);
        // EAGER revokes everything before joining.
        if (variant.assignor === "range") expect(subscription.ownedPartitions).toEqual([]);
        if (message.memberId !== "") expect(message.memberId).toMatch(/^m-\d+$/);
        break;
      }
      case "HeartbeatRequest":
      case "SyncGroupRequest":
        expect(message.generationId).toBeGreaterThan(0);
        expect(message.memberId).not.toBe("");
        break;
      case "OffsetCommitRequest":
        expect(message.generationIdOrMemberEpoch).toBeGreaterThan(0);
        expect(message.memberId).not.toBe("");
        break;
      case "LeaveGroupRequest":
        expect(variant.staticMember).toBe(false);
        break;
    }
  }
}

function checkPollTimeouts(driver: ClassicDriver): void {
  const timeouts = driver.ctx.seen.filter((s) => s.observation.type === "member.poll-timeout");
  expect(new Set(timeouts.map((t) => t.observation.lastPollUs)).size).toBe(timeouts.length);
  for (const timeout of timeouts) {
    const before = driver.ctx.seen.slice(0, driver.ctx.seen.indexOf(timeout));
    const lastPoll = lastWhere(before, (s) => isPollTimerRestart(s.observation))?.at ?? 0;
    // The top of the last pass of poll()'s loop (or a JoinGroup answered) before the expiry: where the timer last restarted.
    expect(Number(timeout.observation.lastPollUs)).toBeGreaterThanOrEqual(lastPoll);
    expect(timeout.at - Number(timeout.observation.lastPollUs)).toBeGreaterThanOrEqual(15_000_000);
  }
}

/**
 * Found by the property (seed -1630278536): a REBALANCE_IN_PROGRESS heartbeat, a second generation that takes
 * T2-0 away and gives T1-3, and the application paused inside onPartitionsRevoked until its poll timer expires
 * (the heartbeat thread leaves and resets the generation); onJoinComplete then installs T1-3 under the reset
 * generation, as Kafka's does, and the next onJoinPrepare gives it up as lost.
 */
const RESET_DURING_PAUSED_REVOKE: Step[] = [
  { kind: "serve", partitions: [4] },
  { kind: "advance", ms: 3000 },
  { kind: "heartbeat", error: ErrorCode.REBALANCE_IN_PROGRESS },
  { kind: "serve", partitions: [3] },
  { kind: "control", command: "pause-app" },
  { kind: "advance", ms: 14_971 },
  { kind: "heartbeat", error: NONE },
  { kind: "commit", error: NONE },
  { kind: "control", command: "resume-app" },
  { kind: "serve", partitions: [5] },
];

function checkAll(steps: readonly Step[], variant: Variant): ClassicDriver {
  const driver = play(steps, variant);
  checkHistory(driver.ctx.seen);
  checkRequests(driver, variant);
  checkPollTimeouts(driver);
  return driver;
}

describe("classic consumer under random coordinator answers, faults and commands", () => {
  it("never throws, keeps its state machine legal, and owns partitions only as the contract says", () => {
    fc.assert(
      fc.property(
        fc.array(step, { minLength: 10, maxLength: 150, size: "large" }),
        fc.constantFrom<"range" | "cooperative-sticky">("range", "cooperative-sticky"),
        fc.boolean(),
        (steps, assignor, staticMember) => {
          checkAll(steps, { assignor, staticMember });
        },
      ),
      { numRuns: 300, examples: [[RESET_DURING_PAUSED_REVOKE, "cooperative-sticky", false]] },
    );
  });

  it("a poll expiry inside a paused onPartitionsRevoked: the dead generation's assignment is installed, then lost, and never fetched", () => {
    const driver = checkAll(RESET_DURING_PAUSED_REVOKE, { assignor: "cooperative-sticky", staticMember: false });
    const owned = driver.ctx.seen.filter((s) => s.observation.type === "member.owned").map((s) => s.observation);
    const zombieAt = owned.findIndex((o) => o.cause === "assigned" && o.memberEpoch === -1);
    expect(owned[zombieAt]).toMatchObject({ owned: { T1: [3] } });
    expect(owned[zombieAt + 1]).toMatchObject({ owned: {}, cause: "lost" });
    expect(driver.ctx.seen.some((s) => s.observation.type === "member.poll-timeout")).toBe(true);
  });
});
