import { type TopicPartition, tpKey } from "@kcsim/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type AssignorSubscription,
  type ConsumerPartitionAssignor,
  CooperativeStickyAssignor,
  encodeCooperativeUserData,
  type MemberAssignment,
  StickyAssignor,
  validateCooperativeAssignment,
} from "../src/index.js";
import {
  cooperativeBuilders,
  isFullyBalanced,
  runCooperativeRounds,
  type StickySubscriptionBuilders,
  stickyBuilders,
  subscription,
  validityAndBalanceProblems,
} from "./assignor-test-support.js";

const MEMBER_IDS = ["a", "b", "c", "d", "e", "f", "g"];

interface Group {
  readonly metadata: Map<string, number>;
  readonly topics: string[];
  readonly members: string[];
}

/** 1-3 topics of 0-9 partitions, 1-6 members in a random (iteration) order. */
const groupArb: fc.Arbitrary<Group> = fc
  .record({
    partitionCounts: fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 1, maxLength: 3 }),
    members: fc.shuffledSubarray(MEMBER_IDS, { minLength: 1, maxLength: 6 }),
  })
  .map(({ partitionCounts, members }) => {
    const topics = partitionCounts.map((_, i) => `t${i}`);
    return { metadata: new Map(topics.map((t, i) => [t, partitionCounts[i] ?? 0])), topics, members };
  });

const allPartitions = (group: Group): TopicPartition[] =>
  group.topics.flatMap((topic) => Array.from({ length: group.metadata.get(topic) ?? 0 }, (_, partition) => ({ topic, partition })));

const keySet = (partitions: readonly TopicPartition[]) => new Set(partitions.map((tp) => tpKey(tp.topic, tp.partition)));

/** A balanced assignment of every partition: P mod N random members get one more, partitions in random places. */
const balancedOwnershipArb = (group: Group): fc.Arbitrary<Map<string, TopicPartition[]>> => {
  const partitions = allPartitions(group);
  return fc
    .record({
      order: fc.shuffledSubarray(partitions, { minLength: partitions.length, maxLength: partitions.length }),
      members: fc.shuffledSubarray(group.members, { minLength: group.members.length, maxLength: group.members.length }),
    })
    .map(({ order, members }) => {
      const quota = Math.floor(order.length / members.length);
      const extra = order.length % members.length;
      const owned = new Map<string, TopicPartition[]>();
      let next = 0;
      members.forEach((member, i) => {
        const size = quota + (i < extra ? 1 : 0);
        owned.set(member, order.slice(next, next + size));
        next += size;
      });
      return owned;
    });
};

/** Arbitrary (possibly overlapping, possibly stale) claims: each member claims a random subset, with a random generation. */
const claimsArb = (group: Group) =>
  fc.tuple(
    ...group.members.map(() =>
      fc.record({
        owned: fc.subarray(allPartitions(group)),
        generation: fc.constantFrom(-1, 1, 2, 3),
        viaUserData: fc.boolean(), // v1 subscription: the generation only in user data
        topicMask: fc.nat(7),
      }),
    ),
  );

interface Variant {
  readonly name: string;
  readonly create: () => ConsumerPartitionAssignor;
  readonly build: StickySubscriptionBuilders;
  readonly cooperative: boolean;
}

const variants: Variant[] = [
  { name: "sticky", create: () => new StickyAssignor(), build: stickyBuilders, cooperative: false },
  { name: "cooperative-sticky", create: () => new CooperativeStickyAssignor(), build: cooperativeBuilders, cooperative: true },
];

describe.each(variants)("$name: properties", ({ create, build, cooperative }) => {
  const assignor = create();
  /** The assignment the group settles on: for cooperative, after the follow-up rebalances. */
  const settle = (
    group: Group,
    subscriptions: AssignorSubscription[],
  ): { subs: AssignorSubscription[]; assignment: Map<string, MemberAssignment> } => {
    const first = assignor.assign(group.metadata, subscriptions);
    if (!cooperative) return { subs: subscriptions, assignment: first };
    const final = runCooperativeRounds(assignor, group.metadata, subscriptions, first);
    return { subs: final.subscriptions, assignment: final.assignment };
  };

  it("equal subscriptions, any previous claims: valid, every partition assigned, loads differ by at most one", () => {
    fc.assert(
      fc.property(
        groupArb.chain((group) => fc.tuple(fc.constant(group), claimsArb(group))),
        ([group, claims]) => {
          const subs = group.members.map((m, i) => {
            const claim = claims[i];
            return claim === undefined ? build.fresh(m, group.topics) : build.v2(m, group.topics, claim.owned, claim.generation);
          });
          const { subs: finalSubs, assignment } = settle(group, subs);
          expect(validityAndBalanceProblems(finalSubs, assignment)).toEqual([]);
          expect(isFullyBalanced(assignment)).toBe(true);
          const assigned = [...assignment.values()].flatMap((a) => a.partitions);
          expect(keySet(assigned)).toEqual(keySet(allPartitions(group)));
        },
      ),
    );
  });

  it("stickiness: a balanced assignment with no change in the group moves nothing", () => {
    fc.assert(
      fc.property(
        groupArb.chain((group) => fc.tuple(fc.constant(group), balancedOwnershipArb(group))),
        ([group, owned]) => {
          const subs = group.members.map((m) => build.v2(m, group.topics, owned.get(m) ?? [], 4));
          const result = assignor.assign(group.metadata, subs);
          for (const m of group.members) expect(keySet(result.get(m)?.partitions ?? [])).toEqual(keySet(owned.get(m) ?? []));
        },
      ),
    );
  });

  it("stickiness: reassigning its own output moves nothing (equal or unequal subscriptions)", () => {
    fc.assert(
      fc.property(
        groupArb.chain((group) => fc.tuple(fc.constant(group), fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 6, maxLength: 6 }))),
        ([group, masks]) => {
          const topicsOf = (i: number) => group.topics.filter((_, t) => ((masks[i] ?? 7) >> t) & 1);
          const { subs, assignment } = settle(
            group,
            group.members.map((m, i) => build.fresh(m, topicsOf(i))),
          );
          const again = assignor.assign(
            group.metadata,
            subs.map((s) => build.v2(s.memberId, s.topics, assignment.get(s.memberId)?.partitions ?? [], 2)),
          );
          for (const m of group.members)
            expect(keySet(again.get(m)?.partitions ?? [])).toEqual(keySet(assignment.get(m)?.partitions ?? []));
        },
      ),
    );
  });

  it("equal subscriptions: when a member leaves a balanced group, nobody else loses a partition", () => {
    fc.assert(
      fc.property(
        groupArb
          .filter((group) => group.members.length >= 2)
          .chain((group) => fc.tuple(fc.constant(group), balancedOwnershipArb(group), fc.nat(group.members.length - 1))),
        ([group, owned, leaverIndex]) => {
          const leaver = group.members[leaverIndex];
          const stayers = group.members.filter((m) => m !== leaver);
          const result = assignor.assign(
            group.metadata,
            stayers.map((m) => build.v2(m, group.topics, owned.get(m) ?? [], 4)),
          );
          for (const m of stayers) {
            const now = keySet(result.get(m)?.partitions ?? []);
            for (const key of keySet(owned.get(m) ?? [])) expect(now.has(key)).toBe(true);
          }
          expect(isFullyBalanced(result)).toBe(true);
          expect([...result.values()].reduce((n, a) => n + a.partitions.length, 0)).toBe(allPartitions(group).length);
        },
      ),
    );
  });

  it("unequal subscriptions, any previous claims: valid and balanced in Kafka's sense", () => {
    fc.assert(
      fc.property(
        groupArb.chain((group) => fc.tuple(fc.constant(group), claimsArb(group))),
        ([group, claims]) => {
          const subs = group.members.map((m, i) => {
            const claim = claims[i];
            const topics = group.topics.filter((_, t) => ((claim?.topicMask ?? 7) >> t) & 1);
            return claim === undefined ? build.fresh(m, topics) : build.v2(m, topics, claim.owned, claim.generation);
          });
          const { subs: finalSubs, assignment } = settle(group, subs);
          expect(validityAndBalanceProblems(finalSubs, assignment)).toEqual([]);
        },
      ),
    );
  });
});

describe("cooperative-sticky: never hands a partition to a new owner in the round it is revoked", () => {
  const cooperative = new CooperativeStickyAssignor();

  it("validateCooperativeAssignment passes for arbitrary subscriptions, claims and generations (v1 and v2)", () => {
    fc.assert(
      fc.property(
        groupArb.chain((group) => fc.tuple(fc.constant(group), claimsArb(group))),
        ([group, claims]) => {
          const subs = group.members.map((m, i) => {
            const claim = claims[i];
            if (claim === undefined) return subscription(m, group.topics);
            const topics = group.topics.filter((_, t) => (claim.topicMask >> t) & 1);
            return claim.viaUserData
              ? subscription(m, topics, { userData: encodeCooperativeUserData(claim.generation), ownedPartitions: claim.owned })
              : subscription(m, topics, {
                  userData: encodeCooperativeUserData(-1),
                  ownedPartitions: claim.owned,
                  generationId: claim.generation,
                });
          });
          const result = cooperative.assign(group.metadata, subs);
          validateCooperativeAssignment(new Map(subs.map((s) => [s.memberId, s.ownedPartitions])), result);
        },
      ),
      { numRuns: 300 },
    );
  });
});
