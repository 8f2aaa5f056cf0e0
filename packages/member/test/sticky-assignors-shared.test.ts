import { describe, expect, it } from "vitest";
import {
  type AssignorSubscription,
  type ConsumerPartitionAssignor,
  CooperativeStickyAssignor,
  type MemberAssignment,
  StickyAssignor,
} from "../src/index.js";
import {
  cooperativeBuilders,
  counts,
  isFullyBalanced,
  javaOrder,
  keysByMember,
  runCooperativeRounds,
  type StickySubscriptionBuilders,
  sortedKeysByMember,
  stickyBuilders,
  tps,
  validityAndBalanceProblems,
} from "./assignor-test-support.js";

/**
 * AbstractStickyAssignorTest, which Kafka runs for both StickyAssignor and
 * CooperativeStickyAssignor. Subscriptions go in the order Kafka's HashMap
 * iterates them (javaOrder). As in Kafka, `verify` checks validity and
 * balance; for the cooperative assignor it first runs the follow-up
 * rebalances until nothing is revoked and returns that final assignment.
 */
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

describe.each(variants)("AbstractStickyAssignorTest vectors ($name)", ({ create, build, cooperative }) => {
  const assignor = create();
  const assign = (metadata: Map<string, number>, subscriptions: AssignorSubscription[]) =>
    assignor.assign(metadata, javaOrder(subscriptions));
  const verify = (metadata: Map<string, number>, subscriptions: AssignorSubscription[], assignment: Map<string, MemberAssignment>) => {
    const final = cooperative
      ? runCooperativeRounds(assignor, metadata, javaOrder(subscriptions), assignment)
      : { subscriptions, assignment };
    expect(validityAndBalanceProblems(final.subscriptions, final.assignment)).toEqual([]);
    return final.assignment;
  };
  const owned = (assignment: Map<string, MemberAssignment>, member: string) => assignment.get(member)?.partitions ?? [];
  const { fresh, v2 } = build;

  it("testOneConsumerNoTopic / testOneConsumerNonexistentTopic", () => {
    expect(keysByMember(assign(counts({}), [fresh("consumer", [])]))).toEqual({ consumer: [] });
    expect(keysByMember(assign(counts({ topic: 0 }), [fresh("consumer", ["topic"])]))).toEqual({ consumer: [] });
  });

  it("testOneConsumerOneTopic / testOneConsumerMultipleTopics", () => {
    expect(keysByMember(assign(counts({ topic: 3 }), [fresh("consumer", ["topic"])]))).toEqual({
      consumer: ["topic-0", "topic-1", "topic-2"],
    });
    expect(keysByMember(assign(counts({ topic1: 1, topic2: 2 }), [fresh("consumer", ["topic1", "topic2"])]))).toEqual({
      consumer: ["topic1-0", "topic2-0", "topic2-1"],
    });
  });

  it("testOnlyAssignsPartitionsFromSubscribedTopics: owned partitions of other topics are dropped", () => {
    const subs = [v2("consumer", ["topic"], tps("topic-0", "topic-1", "other-0", "other-1"), 1)];
    expect(keysByMember(assign(counts({ topic: 2 }), subs))).toEqual({ consumer: ["topic-0", "topic-1"] });
  });

  it("testTwoConsumersOneTopicOnePartition / testTwoConsumersOneTopicTwoPartitions", () => {
    const subs = [fresh("consumer1", ["topic"]), fresh("consumer2", ["topic"])];
    const one = assign(counts({ topic: 1 }), subs);
    verify(counts({ topic: 1 }), subs, one);
    expect(isFullyBalanced(one)).toBe(true);
    expect(keysByMember(assign(counts({ topic: 2 }), subs))).toMatchObject({ consumer1: ["topic-0"], consumer2: ["topic-1"] });
  });

  it("testMultipleConsumersMixedTopicSubscriptions (general path)", () => {
    const metadata = counts({ topic1: 3, topic2: 2 });
    const subs = [fresh("consumer1", ["topic1"]), fresh("consumer2", ["topic1", "topic2"]), fresh("consumer3", ["topic1"])];
    const result = assign(metadata, subs);
    expect(keysByMember(result)).toMatchObject({
      consumer1: ["topic1-0", "topic1-2"],
      consumer2: ["topic2-0", "topic2-1"],
      consumer3: ["topic1-1"],
    });
    verify(metadata, subs, result);
  });

  it("testTwoConsumersTwoTopicsSixPartitions", () => {
    const result = assign(counts({ topic1: 3, topic2: 3 }), [
      fresh("consumer1", ["topic1", "topic2"]),
      fresh("consumer2", ["topic1", "topic2"]),
    ]);
    expect(keysByMember(result)).toMatchObject({
      consumer1: ["topic1-0", "topic1-2", "topic2-1"],
      consumer2: ["topic1-1", "topic2-0", "topic2-2"],
    });
  });

  it("testConsumerOwningMinQuotaExpectedMaxQuota", () => {
    const topics = ["topic1", "topic2"];
    const result = assign(counts({ topic1: 2, topic2: 3 }), [
      v2("consumer1", topics, tps("topic1-0", "topic2-1"), 1),
      v2("consumer2", topics, tps("topic1-1", "topic2-2"), 1),
    ]);
    expect(keysByMember(result)).toMatchObject({ consumer1: ["topic1-0", "topic2-1", "topic2-0"], consumer2: ["topic1-1", "topic2-2"] });
  });

  it("testMaxQuotaConsumerMoreThanNumExpectedMaxCapacityMembers (Java member order decides who keeps max)", () => {
    const topics = ["topic1", "topic2"];
    const metadata = counts({ topic1: 2, topic2: 2 });
    const subs = [
      v2("consumer1", topics, tps("topic1-0", "topic2-0"), 1),
      v2("consumer2", topics, tps("topic1-1", "topic2-1"), 1),
      v2("consumer3", topics, [], 1),
    ];
    const first = assign(metadata, subs);
    // topic2-0 changes owner: the cooperative assignor withholds it this round.
    expect(keysByMember(first).consumer3).toEqual(cooperative ? [] : ["topic2-0"]);
    expect(keysByMember(verify(metadata, subs, first))).toMatchObject({
      consumer1: ["topic1-0"],
      consumer2: ["topic1-1", "topic2-1"],
      consumer3: ["topic2-0"],
    });
  });

  it("testAllConsumersAreUnderMinQuota", () => {
    const topics = ["topic1", "topic2"];
    const metadata = counts({ topic1: 2, topic2: 3 });
    const subs = [v2("consumer1", topics, tps("topic1-0"), 1), v2("consumer2", topics, tps("topic1-1"), 1), v2("consumer3", topics, [], 1)];
    const result = verify(metadata, subs, assign(metadata, subs));
    expect(keysByMember(result)).toMatchObject({
      consumer1: ["topic1-0", "topic2-1"],
      consumer2: ["topic1-1", "topic2-2"],
      consumer3: ["topic2-0"],
    });
  });

  it("testAddRemoveConsumerOneTopic", () => {
    const metadata = counts({ topic: 3 });
    const r1 = assign(metadata, [fresh("consumer1", ["topic"])]);
    expect(keysByMember(r1)).toEqual({ consumer1: ["topic-0", "topic-1", "topic-2"] });
    const subs2 = [v2("consumer1", ["topic"], owned(r1, "consumer1"), 1), v2("consumer2", ["topic"], [], 1)];
    const r2 = verify(metadata, subs2, assign(metadata, subs2));
    expect(keysByMember(r2)).toMatchObject({ consumer1: ["topic-0", "topic-1"], consumer2: ["topic-2"] });
    const r3 = assign(metadata, [v2("consumer2", ["topic"], owned(r2, "consumer2"), 1)]);
    expect(sortedKeysByMember(r3)).toEqual({ consumer2: ["topic-0", "topic-1", "topic-2"] });
  });

  it("testTopicBalanceAfterReassignment", () => {
    const all = ["topic1", "topic2"];
    const metadata = counts({ topic1: 12, topic2: 12 });
    const perTopic = (result: Map<string, MemberAssignment>, n: number) => {
      for (const { partitions } of result.values()) {
        expect(partitions.filter((tp) => tp.topic === "topic1")).toHaveLength(n);
        expect(partitions.filter((tp) => tp.topic === "topic2")).toHaveLength(n);
      }
    };
    const r1 = assign(metadata, [fresh("consumer1", all)]);
    perTopic(r1, 12);
    const s2 = [v2("consumer1", all, owned(r1, "consumer1"), 1), v2("consumer2", all, [], 1)];
    const r2 = verify(metadata, s2, assign(metadata, s2));
    perTopic(r2, 6);
    const s3 = [
      v2("consumer1", all, owned(r2, "consumer1"), 1),
      v2("consumer2", all, owned(r2, "consumer2"), 1),
      v2("consumer3", all, [], 1),
      v2("consumer4", all, [], 1),
    ];
    const r3 = verify(metadata, s3, assign(metadata, s3));
    perTopic(r3, 3);
    const s4 = [v2("consumer3", all, owned(r3, "consumer3"), 1), v2("consumer4", all, owned(r3, "consumer4"), 1)];
    const r4 = verify(metadata, s4, assign(metadata, s4));
    perTopic(r4, 6);
  });

  it("testAddRemoveTwoConsumersTwoTopics (exact lists, in Kafka's order)", () => {
    const all = ["topic1", "topic2"];
    const metadata = counts({ topic1: 3, topic2: 4 });
    const r1 = assign(metadata, [fresh("consumer1", all), fresh("consumer2", all)]);
    expect(keysByMember(r1)).toEqual({
      consumer1: ["topic1-0", "topic1-2", "topic2-1", "topic2-3"],
      consumer2: ["topic1-1", "topic2-0", "topic2-2"],
    });
    const s2 = [
      v2("consumer1", all, owned(r1, "consumer1"), 1),
      v2("consumer2", all, owned(r1, "consumer2"), 1),
      v2("consumer3", all, [], 1),
      v2("consumer4", all, [], 1),
    ];
    const first = assign(metadata, s2);
    if (cooperative) expect(keysByMember(first)).toMatchObject({ consumer3: [], consumer4: [] });
    const r2 = verify(metadata, s2, first);
    expect(keysByMember(r2)).toMatchObject({
      consumer1: ["topic1-0", "topic2-1"],
      consumer2: ["topic2-0", "topic1-1"],
      consumer3: ["topic1-2", "topic2-3"],
      consumer4: ["topic2-2"],
    });
    const s3 = [v2("consumer3", all, owned(r2, "consumer3"), 1), v2("consumer4", all, owned(r2, "consumer4"), 1)];
    expect(keysByMember(assign(metadata, s3))).toEqual({
      consumer3: ["topic1-2", "topic2-3", "topic1-0", "topic2-1"],
      consumer4: ["topic2-2", "topic1-1", "topic2-0"],
    });
  });

  it("testPoorRoundRobinAssignmentScenario", () => {
    const metadata = counts({ topic1: 2, topic2: 1, topic3: 2, topic4: 1, topic5: 2 });
    const allFive = ["topic1", "topic2", "topic3", "topic4", "topic5"];
    const odd = ["topic1", "topic3", "topic5"];
    const subs = [fresh("consumer1", allFive), fresh("consumer2", odd), fresh("consumer3", odd), fresh("consumer4", allFive)];
    const result = verify(metadata, subs, assign(metadata, subs));
    expect(isFullyBalanced(result)).toBe(true);
  });

  it("testAddRemoveTopicTwoConsumers", () => {
    const metadata = counts({ topic: 3 });
    const r1 = assign(metadata, [fresh("consumer1", ["topic"]), fresh("consumer2", ["topic"])]);
    const sizes1 = [owned(r1, "consumer1").length, owned(r1, "consumer2").length].sort();
    expect(sizes1).toEqual([1, 2]);
    metadata.set("topic2", 3);
    const s2 = [
      v2("consumer1", ["topic", "topic2"], owned(r1, "consumer1"), 1),
      v2("consumer2", ["topic", "topic2"], owned(r1, "consumer2"), 1),
    ];
    const r2 = verify(metadata, s2, assign(metadata, s2));
    expect(owned(r2, "consumer1")).toHaveLength(3);
    expect(owned(r2, "consumer2")).toHaveLength(3);
    expect(owned(r2, "consumer1")).toEqual(expect.arrayContaining([...owned(r1, "consumer1")]));
    expect(owned(r2, "consumer2")).toEqual(expect.arrayContaining([...owned(r1, "consumer2")]));
    metadata.delete("topic");
    const s3 = [v2("consumer1", ["topic2"], owned(r2, "consumer1"), 1), v2("consumer2", ["topic2"], owned(r2, "consumer2"), 1)];
    const r3 = verify(metadata, s3, assign(metadata, s3));
    expect([owned(r3, "consumer1").length, owned(r3, "consumer2").length].sort()).toEqual([1, 2]);
    expect(owned(r2, "consumer1")).toEqual(expect.arrayContaining([...owned(r3, "consumer1")]));
    expect(owned(r2, "consumer2")).toEqual(expect.arrayContaining([...owned(r3, "consumer2")]));
  });

  it("testReassignmentAfterOneConsumerLeaves (nested subscriptions, general path)", () => {
    const pad = (i: number) => String(i).padStart(2, "0");
    const metadata = new Map(Array.from({ length: 19 }, (_, k) => [`t${pad(k + 1)}`, k + 1]));
    const subs = Array.from({ length: 19 }, (_, k) =>
      fresh(
        `c${pad(k + 1)}`,
        Array.from({ length: k + 1 }, (_, j) => `t${pad(j + 1)}`),
      ),
    );
    const r1 = verify(metadata, subs, assign(metadata, subs));
    const s2 = subs.filter((s) => s.memberId !== "c10").map((s) => v2(s.memberId, s.topics, owned(r1, s.memberId), 1));
    verify(metadata, s2, assign(metadata, s2));
  });

  it("testReassignmentAfterOneConsumerAdded / testSameSubscriptions", () => {
    const metadata = counts({ topic: 20 });
    const subs = Array.from({ length: 9 }, (_, k) => fresh(`c0${k + 1}`, ["topic"]));
    verify(metadata, subs, assign(metadata, subs));
    const more = [...subs, fresh("c10", ["topic"])];
    verify(metadata, more, assign(metadata, more));

    const many = new Map(Array.from({ length: 14 }, (_, k) => [`t${String(k + 1).padStart(2, "0")}`, k + 1]));
    const same = Array.from({ length: 8 }, (_, k) => fresh(`c${k + 1}`, [...many.keys()]));
    const r1 = verify(many, same, assign(many, same));
    const s2 = same.filter((s) => s.memberId !== "c5").map((s) => v2(s.memberId, s.topics, owned(r1, s.memberId), 1));
    verify(many, s2, assign(many, s2));
  });

  it("testMoveExistingAssignments", () => {
    const metadata = counts({ topic1: 1, topic2: 1, topic3: 1, topic4: 1, topic5: 1, topic6: 1 });
    const subs = [
      v2("consumer1", ["topic1", "topic2"], tps("topic1-0"), 1),
      v2("consumer2", ["topic1", "topic2", "topic3", "topic4"], tps("topic2-0", "topic3-0"), 1),
      v2("consumer3", ["topic2", "topic3", "topic4", "topic5", "topic6"], tps("topic4-0", "topic5-0", "topic6-0"), 1),
    ];
    verify(metadata, subs, assign(metadata, subs));
  });

  it("testStickiness: removing a member keeps everyone else's partition", () => {
    const metadata = counts({ topic1: 3 });
    const subs = [1, 2, 3, 4].map((i) => fresh(`consumer${i}`, ["topic1"]));
    const r1 = assign(metadata, subs);
    for (const a of r1.values()) expect(a.partitions.length).toBeLessThanOrEqual(1);
    const s2 = [2, 3, 4].map((i) => v2(`consumer${i}`, ["topic1"], owned(r1, `consumer${i}`), 1));
    const r2 = verify(metadata, s2, assign(metadata, s2));
    for (const s of s2) {
      expect(owned(r2, s.memberId)).toHaveLength(1);
      expect(owned(r2, s.memberId)).toEqual(expect.arrayContaining([...owned(r1, s.memberId)]));
    }
  });

  it("testAssignmentUpdatedForDeletedTopic / testNoExceptionThrownWhenOnlySubscribedTopicDeleted", () => {
    const result = assign(counts({ topic1: 1, topic3: 100 }), [fresh("consumer", ["topic1", "topic2", "topic3"])]);
    expect(owned(result, "consumer")).toHaveLength(101);
    const r1 = assign(counts({ topic: 3 }), [fresh("consumer", ["topic"])]);
    expect(keysByMember(assign(counts({}), [v2("consumer", ["topic"], owned(r1, "consumer"), 1)]))).toEqual({ consumer: [] });
  });

  it("testSubscriptionNotEqualAndAssignSamePartitionWith3Generation", () => {
    const metadata = counts({ topic: 6, topic1: 1 });
    for (const [g1, g2, g3] of [
      [1, 2, 3],
      [1, 3, 2],
      [2, 1, 3],
      [2, 3, 1],
      [3, 1, 2],
      [3, 2, 1],
    ] as const) {
      const result = assign(metadata, [
        v2("consumer1", ["topic"], tps("topic-0", "topic-2"), g1),
        v2("consumer2", ["topic"], tps("topic-1", "topic-2", "topic-3"), g2),
        v2("consumer3", ["topic"], tps("topic-2", "topic-4", "topic-5"), g3),
        v2("consumer4", ["topic1"], tps("topic1-0"), 2),
      ]);
      const all = [...result.values()].flatMap((a) => a.partitions.map((tp) => `${tp.topic}-${tp.partition}`));
      expect(new Set(all).size).toBe(all.length);
      for (const a of result.values()) expect(a.partitions.length >= 1 && a.partitions.length <= 2).toBe(true);
    }
  });

  it("testAllConsumersReachExpectedQuotaAndAreConsideredFilled", () => {
    const result = assign(counts({ topic: 4 }), [
      v2("consumer1", ["topic"], tps("topic-0", "topic-1"), 1),
      v2("consumer2", ["topic"], tps("topic-2"), 1),
      v2("consumer3", ["topic"], [], 1),
    ]);
    expect(keysByMember(result)).toMatchObject({ consumer1: ["topic-0", "topic-1"], consumer2: ["topic-2"], consumer3: ["topic-3"] });
  });

  it("testOwnedPartitionsAreInvalidatedForConsumerWithStaleGeneration / ...WithNoGeneration", () => {
    const metadata = counts({ topic: 3, topic2: 3 });
    for (const staleGeneration of [9, -1]) {
      const subs = [
        v2("consumer1", ["topic", "topic2"], tps("topic-0", "topic-2", "topic2-1"), 10),
        v2("consumer2", ["topic", "topic2"], tps("topic-0", "topic-2", "topic2-1"), staleGeneration),
      ];
      const result = assign(metadata, subs);
      expect(sortedKeysByMember(result)).toMatchObject({
        consumer1: ["topic-0", "topic-2", "topic2-1"],
        consumer2: ["topic-1", "topic2-0", "topic2-2"],
      });
      verify(metadata, subs, result);
    }
  });

  it("testPartitionsTransferringOwnershipIncludeThePartitionClaimedByMultipleConsumersInSameGeneration", () => {
    const metadata = counts({ topic: 3 });
    const subs = [
      v2("consumer1", ["topic"], tps("topic-0", "topic-1"), 1),
      v2("consumer2", ["topic"], tps("topic-0", "topic-2"), 1),
      v2("consumer3", ["topic"], [], 1),
    ];
    const result = verify(metadata, subs, assign(metadata, subs));
    expect(keysByMember(result)).toMatchObject({ consumer1: ["topic-1"], consumer2: ["topic-2"], consumer3: ["topic-0"] });
  });

  it("testEnsurePartitionsAssignedToHighestGeneration", () => {
    const all = ["topic", "topic2", "topic3"];
    const result = assign(counts({ topic: 3, topic2: 3, topic3: 3 }), [
      v2("consumer1", all, tps("topic-0", "topic2-0", "topic3-0"), 10),
      v2("consumer2", all, tps("topic-1", "topic2-1", "topic3-1"), 9),
      v2("consumer3", all, tps("topic2-1", "topic3-0", "topic3-2"), 8),
    ]);
    expect(sortedKeysByMember(result)).toEqual({
      consumer1: ["topic-0", "topic2-0", "topic3-0"],
      consumer2: ["topic-1", "topic2-1", "topic3-1"],
      consumer3: ["topic-2", "topic2-2", "topic3-2"],
    });
  });

  it("testNoReassignmentOnCurrentMembers", () => {
    const all = ["topic", "topic2", "topic3", "topic1"];
    const result = assign(counts({ topic: 3, topic1: 3, topic2: 3, topic3: 3 }), [
      v2("consumer1", all, [], -1),
      v2("consumer2", all, tps("topic-0", "topic2-0", "topic1-0"), 9),
      v2("consumer3", all, tps("topic3-2", "topic2-2", "topic1-1"), 8),
      v2("consumer4", all, tps("topic3-1", "topic-1", "topic-2"), 7),
    ]);
    expect(sortedKeysByMember(result).consumer1).toEqual(["topic1-2", "topic2-1", "topic3-0"]);
  });

  it("testOwnedPartitionsAreInvalidatedForConsumerWithMultipleGeneration", () => {
    const result = assign(counts({ topic: 3, topic2: 3 }), [
      v2("consumer1", ["topic", "topic2"], tps("topic-0", "topic2-1", "topic-1"), 10),
      v2("consumer2", ["topic", "topic2"], tps("topic-0", "topic2-1", "topic2-2"), 8),
    ]);
    expect(sortedKeysByMember(result)).toEqual({
      consumer1: ["topic-0", "topic-1", "topic2-1"],
      consumer2: ["topic-2", "topic2-0", "topic2-2"],
    });
  });

  it("testRackAwareAssignmentWithUniformSubscription, non-rack-aware expectation (fresh, then owned as expected)", () => {
    const metadata = counts({ t1: 6, t2: 7, t3: 2 });
    const all = ["t1", "t2", "t3"];
    const expected = {
      consumer0: ["t1-0", "t1-3", "t2-0", "t2-3", "t2-6"],
      consumer1: ["t1-1", "t1-4", "t2-1", "t2-4", "t3-0"],
      consumer2: ["t1-2", "t1-5", "t2-2", "t2-5", "t3-1"],
    };
    const freshSubs = ["consumer0", "consumer1", "consumer2"].map((c) => fresh(c, all));
    expect(sortedKeysByMember(assign(metadata, freshSubs))).toEqual(expected);
    // verifyRackAssignment passes owned partitions with no generation and no user data.
    const ownedSubs = Object.entries(expected).map(([c, keys]) => ({ ...fresh(c, all), ownedPartitions: tps(...keys) }));
    expect(sortedKeysByMember(assign(metadata, ownedSubs))).toEqual(expected);
  });

  it("testRackAwareAssignmentWithNonEqualSubscription, non-rack-aware expectation (general path)", () => {
    const metadata = counts({ t1: 6, t2: 7, t3: 2 });
    const expected = {
      consumer0: ["t1-5", "t2-0", "t2-2", "t2-4", "t2-6"],
      consumer1: ["t1-3", "t2-1", "t2-3", "t2-5", "t3-0"],
      consumer2: ["t1-0", "t1-1", "t1-2", "t1-4", "t3-1"],
    };
    const topicsOf = { consumer0: ["t1", "t2", "t3"], consumer1: ["t1", "t2", "t3"], consumer2: ["t1", "t3"] };
    const freshSubs = Object.entries(topicsOf).map(([c, topics]) => fresh(c, topics));
    expect(sortedKeysByMember(assign(metadata, freshSubs))).toEqual(expected);
    const ownedSubs = Object.entries(expected).map(([c, keys]) => ({
      ...fresh(c, topicsOf[c as keyof typeof topicsOf]),
      ownedPartitions: tps(...keys),
    }));
    expect(sortedKeysByMember(assign(metadata, ownedSubs))).toEqual(expected);
  });
});
