import { topicIdFor } from "@kcsim/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PartitionHoldings } from "../src/assignors/partition-holdings.js";
import {
  type AssignmentMemberSpec,
  changedAssignments,
  SubscribedTopicDescriber,
  type TopicIdPartitions,
  UniformAssignor,
} from "../src/index.js";

const uniform = new UniformAssignor();
const UNKNOWN_TOPIC = topicIdFor("not-described");

/**
 * The homogeneous uniform assignment as spec 3 states it, with sets and no
 * state kept between calls: the reference the builder (which keeps the
 * holdings of each describer from one build to the next) must match.
 */
function reference(members: readonly AssignmentMemberSpec[], topics: SubscribedTopicDescriber): (readonly TopicIdPartitions[])[] {
  const subscribed = new Set(members[0]?.subscribedTopicIds ?? []);
  const described = topics.topics;
  const countOf = (topicId: string) => described.find((t) => t.topicId === topicId)?.numPartitions ?? -1;
  const held = new Set<string>();
  for (const { currentAssignment } of members) {
    for (const { topicId, partitions } of currentAssignment) {
      for (const p of partitions) if (p >= 0 && p < countOf(topicId)) held.add(`${topicId}:${p}`);
    }
  }
  const unassigned: [string, number][] = [];
  let total = 0;
  for (const { topicId, numPartitions } of described) {
    if (!subscribed.has(topicId)) continue;
    total += numPartitions;
    for (let p = 0; p < numPartitions; p++) if (!held.has(`${topicId}:${p}`)) unassigned.push([topicId, p]);
  }
  let extra = total % members.length;
  const kept: [string, number][][] = [];
  const changed: boolean[] = [];
  const room: number[] = [];
  for (const { currentAssignment } of members) {
    let quota = Math.floor(total / members.length) + (extra-- > 0 ? 1 : 0);
    const keep: [string, number][] = [];
    let moved = false;
    for (const { topicId, partitions } of currentAssignment) {
      if (!subscribed.has(topicId) || countOf(topicId) < 0) {
        moved = true;
        continue;
      }
      const whole = partitions.length <= quota;
      if (whole) quota -= partitions.length;
      for (const p of partitions) {
        if (p < 0 || p >= countOf(topicId)) moved = true;
        else if (whole) keep.push([topicId, p]);
        else if (quota > 0) {
          quota--;
          keep.push([topicId, p]);
        } else {
          unassigned.push([topicId, p]);
          moved = true;
        }
      }
    }
    kept.push(keep);
    changed.push(moved);
    room.push(quota);
  }
  const order = new Map(described.map((t, i) => [t.topicId, i]));
  let cursor = 0;
  const result = members.map((member, m) => {
    const gets = unassigned.slice(cursor, cursor + (room[m] ?? 0));
    cursor += gets.length;
    if (!changed[m] && gets.length === 0) return member.currentAssignment;
    const all = [...(kept[m] ?? []), ...gets].sort(([a, p], [b, q]) => (order.get(a) ?? 0) - (order.get(b) ?? 0) || p - q);
    const out: { topicId: string; partitions: number[] }[] = [];
    for (const [topicId, p] of all) {
      const last = out[out.length - 1];
      if (last?.topicId === topicId) last.partitions.push(p);
      else out.push({ topicId, partitions: [p] });
    }
    return out;
  });
  // Targets that overlap (two members keep the same partition) can leave more to deal than there is room for.
  if (cursor < unassigned.length) throw new Error("Partitions were left unassigned");
  return result;
}

/** A random target over the described topics, sometimes with an unknown topic or a partition out of range. */
function targetArbitrary(topicIds: readonly string[]): fc.Arbitrary<TopicIdPartitions[]> {
  const entry = fc.record({
    topicId: fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...topicIds) }, { weight: 1, arbitrary: fc.constant(UNKNOWN_TOPIC) }),
    partitions: fc.uniqueArray(fc.integer({ min: -1, max: 13 }), { maxLength: 5 }),
  });
  return fc.uniqueArray(entry, { maxLength: 3, selector: (e) => e.topicId });
}

/** What happens to the group between two assignments. */
type Step =
  | { readonly kind: "join" }
  | { readonly kind: "leave"; readonly at: number }
  | { readonly kind: "retarget"; readonly at: number; readonly target: TopicIdPartitions[] }
  | { readonly kind: "duplicate"; readonly at: number }
  | { readonly kind: "resubscribe"; readonly topics: readonly string[] };

const scenario = fc
  .array(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 5 })
  .map((counts) => counts.map((numPartitions, i) => ({ topicId: topicIdFor(`t${i}`), name: `t${i}`, numPartitions })))
  .chain((topics) => {
    const ids = topics.map((t) => t.topicId);
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.constant({ kind: "join" as const }),
      fc.record({ kind: fc.constant("leave" as const), at: fc.nat() }),
      fc.record({ kind: fc.constant("retarget" as const), at: fc.nat(), target: targetArbitrary(ids) }),
      fc.record({ kind: fc.constant("duplicate" as const), at: fc.nat() }),
      fc.record({ kind: fc.constant("resubscribe" as const), topics: fc.subarray(ids, { minLength: 1 }) }),
    );
    return fc.record({
      topics: fc.constant(topics),
      subscription: fc.subarray(ids, { minLength: 1 }),
      initial: fc.array(targetArbitrary(ids), { minLength: 1, maxLength: 8 }),
      steps: fc.array(step, { maxLength: 12 }),
    });
  });

describe("the homogeneous uniform builder's holdings", () => {
  it("give, build after build on one describer, what the reference computes afresh", () => {
    fc.assert(
      fc.property(scenario, ({ topics, subscription, initial, steps }) => {
        const describer = new SubscribedTopicDescriber(topics);
        let subscribed: readonly string[] = subscription;
        let nextId = initial.length;
        let members: AssignmentMemberSpec[] = initial.map((currentAssignment, i) => ({
          memberId: `m${i}`,
          instanceId: null,
          subscribedTopicIds: subscribed,
          currentAssignment,
        }));
        for (const step of [null, ...steps]) {
          switch (step?.kind) {
            case "join":
              members.push({ memberId: `m${nextId++}`, instanceId: null, subscribedTopicIds: subscribed, currentAssignment: [] });
              break;
            case "leave":
              if (members.length > 1) members.splice(step.at % members.length, 1);
              break;
            case "retarget": {
              const at = step.at % members.length;
              members[at] = { ...(members[at] as AssignmentMemberSpec), currentAssignment: step.target };
              break;
            }
            case "duplicate":
              members.push({ ...(members[step.at % members.length] as AssignmentMemberSpec) });
              break;
            case "resubscribe":
              subscribed = step.topics;
              members = members.map((m) => ({ ...m, subscribedTopicIds: subscribed }));
              break;
          }
          const expected = attempt(() => reference(members, describer));
          const result = attempt(() =>
            uniform.assign({ members, subscriptionType: "homogeneous" }, describer).members.map((m) => m.partitions),
          );
          if (expected === null || result === null) {
            expect(result).toBe(expected); // both failed
            members = withoutDuplicates(members);
            continue;
          }
          expect(result).toEqual(expected);
          result.forEach((partitions, i) => {
            if (partitions === members[i]?.currentAssignment) expect(expected[i]).toBe(partitions);
          });
          // The coordinator's way in: only the changed members, exactly the entries `assign` changed.
          const changes = changedAssignments(uniform, { members, subscriptionType: "homogeneous" }, describer);
          const changedIndexes = result.flatMap((partitions, i) => (partitions === members[i]?.currentAssignment ? [] : [i]));
          expect(changes.map((change) => change.index)).toEqual(changedIndexes);
          for (const change of changes) {
            expect(change.memberId).toBe(members[change.index]?.memberId);
            expect(change.partitions).toEqual(result[change.index]);
          }
          // The coordinator's way: the new targets are the next current ones; duplicates go away.
          members = withoutDuplicates(members.map((m, i) => ({ ...m, currentAssignment: result[i] ?? [] })));
        }
      }),
      { numRuns: 300 },
    );
  });
});

/** What `run` returns, or null if it throws. */
function attempt<T>(run: () => T): T | null {
  try {
    return run();
  } catch {
    return null;
  }
}

function withoutDuplicates(members: readonly AssignmentMemberSpec[]): AssignmentMemberSpec[] {
  return members.filter((m, i) => members.findIndex((o) => o.memberId === m.memberId) === i);
}

describe("PartitionHoldings", () => {
  const topics = new SubscribedTopicDescriber([
    { topicId: "A", name: "a", numPartitions: 3 },
    { topicId: "B", name: "b", numPartitions: 2 },
  ]);
  const held = (holdings: PartitionHoldings) =>
    Array.from({ length: topics.totalPartitions }, (_, i) => (holdings.isHeld(i) ? 1 : 0)).join("");

  it("counts each partition once per target that lists it, valid partitions only, and follows changes by member", () => {
    const holdings = new PartitionHoldings(topics);
    const x = [{ topicId: "A", partitions: [0, 2] }];
    const y = [
      { topicId: "A", partitions: [2, 7] },
      { topicId: "Z", partitions: [0] },
    ];
    holdings.update([
      { memberId: "x", currentAssignment: x },
      { memberId: "y", currentAssignment: y },
    ]);
    expect(held(holdings)).toBe("10100");
    expect([holdings.heldInTopic(0), holdings.heldInTopic(1)]).toEqual([2, 0]);
    expect(holdings.countedAt(0)).toMatchObject({ target: x, total: 2, valid: true });
    expect(holdings.countedAt(1)).toMatchObject({ target: y, total: 3, valid: false });
    expect(holdings.listedPartitions).toBe(5);
    expect([...holdings.validTotals().subarray(0, 2)]).toEqual([2, -1]);

    // y leaves: partition 2 is still x's; x takes B-1.
    const x2 = [
      { topicId: "A", partitions: [0, 2] },
      { topicId: "B", partitions: [1] },
    ];
    holdings.update([{ memberId: "x", currentAssignment: x2 }]);
    expect(held(holdings)).toBe("10101");
    expect([holdings.heldInTopic(0), holdings.heldInTopic(1)]).toEqual([2, 1]);
    expect(holdings.listedPartitions).toBe(3);
    expect(holdings.validTotals()[0]).toBe(3);

    // A member id twice: counted as given, then the next update starts over.
    holdings.update([
      { memberId: "x", currentAssignment: x },
      { memberId: "x", currentAssignment: [{ topicId: "B", partitions: [0] }] },
    ]);
    expect(held(holdings)).toBe("10110");
    expect(holdings.listedPartitions).toBe(3);
    expect([...holdings.validTotals().subarray(0, 2)]).toEqual([2, 1]);
    holdings.update([{ memberId: "z", currentAssignment: [{ topicId: "A", partitions: [1] }] }]);
    expect(held(holdings)).toBe("01000");
    expect([holdings.heldInTopic(0), holdings.heldInTopic(1)]).toEqual([1, 0]);
    expect(holdings.listedPartitions).toBe(1);
  });

  it("keep the listed total and each position's valid total equal to a recount, update after update", () => {
    const target = targetArbitrary(["A", "B"]);
    const update = fc.array(fc.record({ memberId: fc.constantFrom("p", "q", "r", "s"), currentAssignment: target }), { maxLength: 5 });
    fc.assert(
      fc.property(fc.array(update, { minLength: 1, maxLength: 8 }), (updates) => {
        const holdings = new PartitionHoldings(topics);
        for (const members of updates) {
          holdings.update(members);
          const counted = members.map((_, m) => holdings.countedAt(m));
          expect(holdings.listedPartitions).toBe(counted.reduce((sum, c) => sum + c.total, 0));
          expect([...holdings.validTotals().subarray(0, members.length)]).toEqual(counted.map((c) => (c.valid ? c.total : -1)));
        }
      }),
      { numRuns: 300 },
    );
  });
});
