import { topicIdFor } from "@kcsim/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type AssignmentMemberSpec,
  type GroupAssignment,
  RangeAssignor,
  SubscribedTopicDescriber,
  type TopicIdPartitions,
  UniformAssignor,
} from "../src/index.js";

const uniform = new UniformAssignor();
const range = new RangeAssignor();

const topicsArbitrary = fc
  .array(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 6 })
  .map(
    (counts) =>
      new SubscribedTopicDescriber(counts.map((numPartitions, i) => ({ topicId: topicIdFor(`t${i}`), name: `t${i}`, numPartitions }))),
  );

function key(topicId: string, partition: number): string {
  return `${topicId}:${partition}`;
}

function size(partitions: readonly TopicIdPartitions[]): number {
  return partitions.reduce((sum, entry) => sum + entry.partitions.length, 0);
}

/** Every partition of a subscribed topic assigned exactly once, only to subscribers. */
function expectValid(members: readonly AssignmentMemberSpec[], topics: SubscribedTopicDescriber, result: GroupAssignment): void {
  expect(result.members.map((m) => m.memberId)).toEqual(members.map((m) => m.memberId));
  const owner = new Map<string, string>();
  result.members.forEach((assignment, i) => {
    const subscribed = new Set(members[i]?.subscribedTopicIds);
    for (const entry of assignment.partitions) {
      expect(subscribed.has(entry.topicId)).toBe(true);
      for (const partition of entry.partitions) {
        const k = key(entry.topicId, partition);
        expect(owner.has(k)).toBe(false);
        owner.set(k, assignment.memberId);
      }
    }
  });
  const subscribedByAnyone = new Set(members.flatMap((m) => m.subscribedTopicIds));
  for (const topic of topics.topics) {
    if (!subscribedByAnyone.has(topic.topicId)) continue;
    for (let p = 0; p < topic.numPartitions; p++) expect(owner.has(key(topic.topicId, p))).toBe(true);
  }
}

function withCurrent(members: readonly AssignmentMemberSpec[], result: GroupAssignment): AssignmentMemberSpec[] {
  return members.map((member, i) => ({ ...member, currentAssignment: result.members[i]?.partitions ?? [] }));
}

/** Homogeneous groups: n members, all subscribed to every topic, with a random previous target. */
const homogeneousGroup = topicsArbitrary.chain((topics) =>
  fc.integer({ min: 1, max: 25 }).chain((memberCount) => {
    const all = topics.topics.map((t) => t.topicId);
    const partitions = topics.topics.flatMap((t) => Array.from({ length: t.numPartitions }, (_, p) => ({ topicId: t.topicId, p })));
    // For each partition: -1 (nobody) or a member index.
    return fc
      .array(fc.integer({ min: -1, max: memberCount - 1 }), { minLength: partitions.length, maxLength: partitions.length })
      .map((owners) => {
        const current: TopicIdPartitions[][] = Array.from({ length: memberCount }, () => []);
        partitions.forEach(({ topicId, p }, i) => {
          const o = owners[i] ?? -1;
          if (o < 0) return;
          const list = current[o] as TopicIdPartitions[];
          const entry = list.find((e) => e.topicId === topicId);
          if (entry === undefined) list.push({ topicId, partitions: [p] });
          else (entry.partitions as number[]).push(p);
        });
        const members: AssignmentMemberSpec[] = current.map((currentAssignment, i) => ({
          memberId: `m${i}`,
          instanceId: null,
          subscribedTopicIds: all,
          currentAssignment,
        }));
        return { topics, members };
      });
  }),
);

describe("uniform homogeneous properties", () => {
  it("assigns every partition exactly once and balances members within one", () => {
    fc.assert(
      fc.property(homogeneousGroup, ({ topics, members }) => {
        const result = uniform.assign({ members }, topics);
        expectValid(members, topics, result);
        const sizes = result.members.map((m) => size(m.partitions));
        expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
      }),
    );
  });

  it("moves nothing when the group is balanced and nothing changed", () => {
    fc.assert(
      fc.property(homogeneousGroup, ({ topics, members }) => {
        const balanced = withCurrent(members, uniform.assign({ members }, topics));
        const again = uniform.assign({ members: balanced }, topics);
        for (const [i, m] of again.members.entries()) expect(m.partitions).toBe(balanced[i]?.currentAssignment);
      }),
    );
  });

  it("moves only the partitions above the new quotas when one member joins", () => {
    fc.assert(
      fc.property(homogeneousGroup, ({ topics, members }) => {
        const before = withCurrent(members, uniform.assign({ members }, topics));
        const all = topics.topics.map((t) => t.topicId);
        const joined = [...before, { memberId: "joiner", instanceId: null, subscribedTopicIds: all, currentAssignment: [] }];
        const after = uniform.assign({ members: joined }, topics);
        expectValid(joined, topics, after);
        const total = topics.totalPartitions;
        const n = joined.length;
        let extra = total % n;
        let expectedMoves = 0;
        let moved = 0;
        before.forEach((member, i) => {
          const quota = Math.floor(total / n) + (extra-- > 0 ? 1 : 0);
          expectedMoves += Math.max(0, size(member.currentAssignment) - quota);
          const now = new Set((after.members[i]?.partitions ?? []).flatMap((e) => e.partitions.map((p) => key(e.topicId, p))));
          const previous = member.currentAssignment.flatMap((e) => e.partitions.map((p) => key(e.topicId, p)));
          // Old members only give partitions up.
          expect(now.size).toBeLessThanOrEqual(previous.length);
          for (const k of now) expect(previous).toContain(k);
          moved += previous.length - now.size;
        });
        expect(moved).toBe(expectedMoves);
        // ... and the joiner gets exactly those: the least a balanced assignment must give it.
        expect(size(after.members[n - 1]?.partitions ?? [])).toBe(moved);
        expect(moved).toBe(Math.floor(total / n));
      }),
    );
  });
});

/** Heterogeneous groups: random subscriptions (each member to a random subset of topics). */
const heterogeneousGroup = topicsArbitrary.chain((topics) =>
  fc.array(fc.subarray(topics.topics.map((t) => t.topicId)), { minLength: 1, maxLength: 20 }).map((subscriptions) => ({
    topics,
    members: subscriptions.map(
      (subscribedTopicIds, i): AssignmentMemberSpec => ({ memberId: `m${i}`, instanceId: null, subscribedTopicIds, currentAssignment: [] }),
    ),
  })),
);

function topicImbalance(members: readonly AssignmentMemberSpec[], result: GroupAssignment): number {
  const sizes = result.members.map((m) => size(m.partitions));
  let worst = 0;
  const topicIds = new Set(members.flatMap((m) => m.subscribedTopicIds));
  for (const topicId of topicIds) {
    const subscriberSizes = members.flatMap((m, i) => (m.subscribedTopicIds.includes(topicId) ? [sizes[i] ?? 0] : []));
    worst = Math.max(worst, Math.max(...subscriberSizes) - Math.min(...subscriberSizes));
  }
  return worst;
}

describe("uniform heterogeneous properties", () => {
  it("assigns every subscribed partition exactly once, only to subscribers", () => {
    fc.assert(
      fc.property(heterogeneousGroup, ({ topics, members }) => {
        expectValid(members, topics, uniform.assign({ members, subscriptionType: "heterogeneous" }, topics));
      }),
    );
  });

  it("moves nothing when every topic's subscribers are balanced and nothing changed", () => {
    fc.assert(
      fc.property(heterogeneousGroup, ({ topics, members }) => {
        const first = uniform.assign({ members, subscriptionType: "heterogeneous" }, topics);
        fc.pre(topicImbalance(members, first) <= 1);
        const balanced = withCurrent(members, first);
        const again = uniform.assign({ members: balanced, subscriptionType: "heterogeneous" }, topics);
        for (const [i, m] of again.members.entries()) expect(m.partitions).toBe(balanced[i]?.currentAssignment);
      }),
    );
  });

  it("is a fixed point: re-running on its own output moves nothing", () => {
    fc.assert(
      fc.property(heterogeneousGroup, ({ topics, members }) => {
        const balanced = withCurrent(members, uniform.assign({ members, subscriptionType: "heterogeneous" }, topics));
        const again = uniform.assign({ members: balanced, subscriptionType: "heterogeneous" }, topics);
        for (const [i, m] of again.members.entries()) expect(m.partitions).toBe(balanced[i]?.currentAssignment);
      }),
    );
  });
});

describe("range properties", () => {
  it("is valid, contiguous per topic, balanced per topic, and co-partitioned when homogeneous", () => {
    fc.assert(
      fc.property(heterogeneousGroup, fc.boolean(), ({ topics, members }, homogeneous) => {
        const group = homogeneous ? members.map((m) => ({ ...m, subscribedTopicIds: topics.topics.map((t) => t.topicId) })) : members;
        const result = range.assign({ members: group }, topics);
        expectValid(group, topics, result);
        const perTopicSizes = new Map<string, number[]>();
        result.members.forEach((m, i) => {
          for (const topicId of group[i]?.subscribedTopicIds ?? []) {
            const entry = m.partitions.find((e) => e.topicId === topicId);
            const partitions = [...(entry?.partitions ?? [])].sort((a, b) => a - b);
            for (const [j, p] of partitions.entries()) expect(p).toBe((partitions[0] ?? 0) + j);
            perTopicSizes.set(topicId, [...(perTopicSizes.get(topicId) ?? []), partitions.length]);
          }
        });
        for (const sizes of perTopicSizes.values()) expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
        if (homogeneous) {
          const counts = new Set(topics.topics.map((t) => t.numPartitions));
          if (counts.size === 1) {
            for (const m of result.members) {
              const lists = topics.topics.map((t) => JSON.stringify(m.partitions.find((e) => e.topicId === t.topicId)?.partitions ?? []));
              expect(new Set(lists).size).toBe(1);
            }
          }
        }
      }),
    );
  });
});
