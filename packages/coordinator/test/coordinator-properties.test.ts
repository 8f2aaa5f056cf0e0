import { ErrorCode, type Observation } from "@kcsim/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  CoordinatorUnderTest,
  coordinatorConfig,
  doubleHeld,
  epochViolations,
  heartbeatRequest,
  revokeBeforeReassignViolations,
  SimulatedMember,
  T1,
  T2,
} from "./coordinator-test-kit.js";

type Action =
  | { readonly kind: "heartbeat"; readonly member: number }
  | { readonly kind: "lost-response"; readonly member: number }
  | { readonly kind: "stubborn"; readonly member: number }
  | { readonly kind: "leave"; readonly member: number }
  | { readonly kind: "tick"; readonly ms: number }
  | { readonly kind: "add-partitions"; readonly topic: "T1" | "T2" }
  | { readonly kind: "restart" };

const MEMBERS = 5;
const member = fc.integer({ min: 0, max: MEMBERS - 1 });
const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 10, arbitrary: member.map((m) => ({ kind: "heartbeat" as const, member: m })) },
  { weight: 3, arbitrary: member.map((m) => ({ kind: "lost-response" as const, member: m })) },
  { weight: 2, arbitrary: member.map((m) => ({ kind: "stubborn" as const, member: m })) },
  { weight: 1, arbitrary: member.map((m) => ({ kind: "leave" as const, member: m })) },
  { weight: 2, arbitrary: fc.integer({ min: 1000, max: 40000 }).map((ms) => ({ kind: "tick" as const, ms })) },
  { weight: 1, arbitrary: fc.constantFrom("T1" as const, "T2" as const).map((topic) => ({ kind: "add-partitions" as const, topic })) },
  { weight: 1, arbitrary: fc.constant({ kind: "restart" as const }) },
);

/**
 * Member i: dynamic or static, subscribed to T1, T2 or both, with a 20 s
 * rebalance timeout (below the 45 s session); a restart of the process gets
 * a new member id.
 */
function simulatedMember(i: number, incarnation: number): SimulatedMember {
  const topics = [["T1"], ["T2"], ["T1", "T2"]][i % 3] ?? ["T1"];
  const instanceId = i % 2 === 1 ? `instance-${i}` : null;
  return new SimulatedMember(`m${i}-${incarnation}`, topics, instanceId, "g", 20000);
}

/** What the runs went through, to check the generator reaches the interesting paths. */
const seen = new Map<string, number>();
function count(what: string): void {
  seen.set(what, (seen.get(what) ?? 0) + 1);
}

function run(actions: readonly Action[]): void {
  const gc = new CoordinatorUnderTest(
    coordinatorConfig({
      topics: [
        { ...T1, partitions: 7 },
        { ...T2, partitions: 5 },
      ],
    }),
  );
  const partitions = { T1: 7, T2: 5 };
  const incarnations = Array.from({ length: MEMBERS }, () => 0);
  const members = Array.from({ length: MEMBERS }, (_, i) => simulatedMember(i, 0));
  const observed: Observation[] = [];
  const memberAt = (i: number) => members[i] as SimulatedMember;

  for (const step of actions) {
    switch (step.kind) {
      case "heartbeat": {
        const m = memberAt(step.member);
        const response = m.heartbeat(gc);
        // A static member whose id was taken over starts afresh as a new process.
        if (response.errorCode === ErrorCode.FENCED_INSTANCE_ID) {
          incarnations[step.member] = (incarnations[step.member] ?? 0) + 1;
          members[step.member] = simulatedMember(step.member, incarnations[step.member] ?? 0);
        }
        break;
      }
      case "lost-response": {
        const m = memberAt(step.member);
        gc.heartbeat(m.request(), m.memberId);
        m.onLost();
        break;
      }
      case "stubborn": {
        // A heartbeat that does not report what the member owns (so it does not count as a revocation),
        // whose answer the member has not processed yet.
        const m = memberAt(step.member);
        if (m.epoch <= 0) break;
        const response = gc.heartbeat(
          heartbeatRequest({ memberId: m.memberId, memberEpoch: m.epoch, instanceId: m.instanceId }),
          m.memberId,
        );
        if (response.errorCode !== 0) m.onResponse(response);
        else m.onLost();
        break;
      }
      case "leave": {
        const m = memberAt(step.member);
        if (m.epoch <= 0) break;
        // Static members leave for now (-2) and come back as a new process; dynamic ones leave (-1).
        const epoch = m.instanceId === null ? -1 : -2;
        gc.heartbeat(heartbeatRequest({ memberId: m.memberId, memberEpoch: epoch, instanceId: m.instanceId }), m.memberId);
        incarnations[step.member] = (incarnations[step.member] ?? 0) + 1;
        members[step.member] = simulatedMember(step.member, incarnations[step.member] ?? 0);
        break;
      }
      case "tick":
        gc.advanceMs(step.ms);
        break;
      case "add-partitions":
        partitions[step.topic] += 1;
        gc.actor.control?.({ command: "add-partitions", topic: step.topic, partitions: partitions[step.topic] }, gc.ctx);
        break;
      case "restart":
        observed.push(...gc.ctx.observed);
        gc.restart();
        break;
    }
    const group = gc.snapshot().groups.find((g) => g.groupId === "g");
    if (group !== undefined && group.protocol === "consumer") {
      expect(doubleHeld(group)).toEqual([]);
      expect(group.groupEpoch).toBeGreaterThanOrEqual(group.assignmentEpoch);
    }
  }
  observed.push(...gc.ctx.observed);
  for (const o of observed) {
    if (o.type === "gc.member-removed") count(`removed:${o.reason}`);
    if (o.type === "gc.member") count(`member:${o.state}`);
    if (o.type === "gc.loaded") count("loaded");
  }
  expect(revokeBeforeReassignViolations(observed)).toEqual([]);
  expect(epochViolations(observed)).toEqual([]);
}

describe("random heartbeat sequences", () => {
  it("never let two members hold a partition and never decrease epochs", () => {
    fc.assert(
      fc.property(fc.array(action, { minLength: 1, maxLength: 80 }), (actions) => {
        run(actions);
      }),
      { numRuns: 300, seed: Number(process.env.KCSIM_PROPERTY_SEED ?? 848) },
    );
    for (const path of [
      "removed:leave",
      "removed:session-timeout",
      "removed:rebalance-timeout",
      "removed:static-replaced",
      "member:UNREVOKED_PARTITIONS",
      "member:UNRELEASED_PARTITIONS",
      "loaded",
    ]) {
      expect(seen.get(path) ?? 0, path).toBeGreaterThan(0);
    }
  });

  it("converge once the members keep heartbeating", () => {
    fc.assert(
      fc.property(fc.array(action, { maxLength: 40 }), (actions) => {
        const gc = new CoordinatorUnderTest(
          coordinatorConfig({
            topics: [
              { ...T1, partitions: 7 },
              { ...T2, partitions: 5 },
            ],
          }),
        );
        const members = Array.from({ length: MEMBERS }, (_, i) => simulatedMember(i, 0));
        for (const step of actions) {
          if (step.kind === "heartbeat") members[step.member]?.heartbeat(gc);
          else if (step.kind === "lost-response") {
            const m = members[step.member];
            if (m !== undefined) {
              gc.heartbeat(m.request(), m.memberId);
              m.onLost();
            }
          }
        }
        // Healing: everyone heartbeats every 5 s. A static member whose join response was lost gets
        // UNRELEASED_INSTANCE_ID until its own stale registration's session expires (spec 9.6).
        for (let round = 0; round < 14; round++) {
          for (const m of members) m.heartbeat(gc);
          gc.advanceMs(5000);
        }
        for (let round = 0; round < 4; round++) for (const m of members) m.heartbeat(gc);
        const group = gc.snapshot().groups.find((g) => g.groupId === "g");
        expect(group?.state).toBe("STABLE");
        const held = group?.members.reduce((sum, m) => sum + Object.values(m.assigned).flat().length, 0);
        expect(held).toBe(12);
      }),
      { numRuns: 100, seed: 4 },
    );
  });
});
