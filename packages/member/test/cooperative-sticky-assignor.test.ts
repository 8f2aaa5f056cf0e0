import { describe, expect, it } from "vitest";
import {
  type AssignorSubscription,
  CooperativeStickyAssignor,
  encodeCooperativeUserData,
  encodeStickyUserData,
  validateCooperativeAssignment,
} from "../src/index.js";
import {
  cooperativeBuilders,
  counts,
  isFullyBalanced,
  javaOrder,
  keysByMember,
  runCooperativeRounds,
  sortedKeysByMember,
  subscription,
  tps,
  validityAndBalanceProblems,
} from "./assignor-test-support.js";

const cooperative = new CooperativeStickyAssignor();
const { v2, v1 } = cooperativeBuilders;
const assign = (metadata: Map<string, number>, subscriptions: AssignorSubscription[]) =>
  cooperative.assign(metadata, javaOrder(subscriptions));

describe("CooperativeStickyAssignor: Kafka vectors (CooperativeStickyAssignorTest)", () => {
  it("K4 ...ClaimedByMultipleConsumersInSameGenerationWithEqualPartitionsPerConsumer: topic-0 waits for round 2", () => {
    const metadata = counts({ topic: 3 });
    const subs = [
      v2("consumer1", ["topic"], tps("topic-0", "topic-1"), 1),
      v2("consumer2", ["topic"], tps("topic-0", "topic-2"), 1),
      v2("consumer3", ["topic"], [], 1),
    ];
    const round1 = assign(metadata, subs);
    expect(keysByMember(round1)).toMatchObject({ consumer1: ["topic-1"], consumer2: ["topic-2"], consumer3: [] });
    const final = runCooperativeRounds(cooperative, metadata, javaOrder(subs), round1);
    expect(final.rounds).toBe(1);
    expect(keysByMember(final.assignment)).toMatchObject({ consumer1: ["topic-1"], consumer2: ["topic-2"], consumer3: ["topic-0"] });
    expect(isFullyBalanced(final.assignment)).toBe(true);
  });

  it("...ClaimedByMultipleConsumersInSameGenerationWithUnequalPartitionsPerConsumer", () => {
    const metadata = counts({ topic: 4 });
    const subs = [
      v2("consumer1", ["topic"], tps("topic-0", "topic-1"), 1),
      v2("consumer2", ["topic"], tps("topic-0", "topic-2"), 1),
      v2("consumer3", ["topic"], [], 1),
    ];
    const round1 = assign(metadata, subs);
    expect(keysByMember(round1)).toMatchObject({ consumer1: ["topic-1", "topic-3"], consumer2: ["topic-2"], consumer3: [] });
    const final = runCooperativeRounds(cooperative, metadata, javaOrder(subs), round1);
    expect(validityAndBalanceProblems(final.subscriptions, final.assignment)).toEqual([]);
    expect(isFullyBalanced(final.assignment)).toBe(true);
  });

  it("K6 testAssignorWithOldVersionSubscriptions: v1 members carry their generation in user data", () => {
    const result = assign(counts({ topic1: 3 }), [
      v1("consumer1", ["topic1"], tps("topic1-0"), 1),
      v1("consumer2", ["topic1"], tps("topic1-1"), 1),
      v2("consumer3", ["topic1"], [], 1),
    ]);
    expect(keysByMember(result)).toMatchObject({ consumer1: ["topic1-0"], consumer2: ["topic1-1"], consumer3: ["topic1-2"] });
  });

  it("testEncodeAndDecodeGeneration / testDecodeGeneration", () => {
    const initial = cooperative.subscriptionUserData({ topics: ["topic"], lastAssignment: null, generation: -1 });
    expect(cooperative.memberData(subscription("c", ["topic"], { userData: initial })).generation).toBe(-1);
    const later = cooperative.subscriptionUserData({ topics: ["topic"], lastAssignment: [], generation: 10 });
    expect(cooperative.memberData(subscription("c", ["topic"], { userData: later })).generation).toBe(10);
    expect(cooperative.memberData(subscription("c", ["topic"])).generation).toBeNull();
    expect([...encodeCooperativeUserData(10)]).toEqual([0, 0, 0, 10]);
  });

  it("testMemberData / testMemberDataWithInconsistentData / ...WithEmptyPartitionsAndEqualGeneration / ...AndHigherGeneration", () => {
    const ownedList = tps("topic1-0", "topic2-1");
    expect(cooperative.memberData(v1("c", ["topic"], ownedList, 1))).toEqual({ partitions: ownedList, generation: 1 });
    expect(cooperative.memberData(v2("c", ["topic"], ownedList, 1))).toEqual({ partitions: ownedList, generation: 1 });
    // No generation in the subscription: the owned partitions of the subscription, the generation of the user data.
    const inconsistent = subscription("c", ["topic"], { userData: encodeCooperativeUserData(1), ownedPartitions: tps("topic-0") });
    expect(cooperative.memberData(inconsistent)).toEqual({ partitions: tps("topic-0"), generation: 1 });
    // A generation in the subscription wins over the user data.
    for (const userGeneration of [1, 0]) {
      const s = subscription("c", ["topic"], { userData: encodeCooperativeUserData(userGeneration), generationId: 1 });
      expect(cooperative.memberData(s)).toEqual({ partitions: [], generation: 1 });
    }
    // User data that does not hold a generation reads as -1.
    expect(cooperative.memberData(subscription("c", ["topic"], { userData: Uint8Array.from([1]) })).generation).toBe(-1);
    // Sticky-style user data is not looked at for partitions.
    const stickyStyle = subscription("c", ["topic"], { userData: encodeStickyUserData(ownedList, 3), generationId: 2 });
    expect(cooperative.memberData(stickyStyle)).toEqual({ partitions: [], generation: 2 });
  });

  it("testRackAwareAssignmentWithNonEqualSubscription, all racks matching (non-rack-aware): owned -> intermediate -> final", () => {
    const metadata = counts({ t1: 6, t2: 7, t3: 2 });
    const topicsOf: Record<string, string[]> = { consumer0: ["t1", "t2", "t3"], consumer1: ["t1", "t2", "t3"], consumer2: ["t1", "t3"] };
    const withOwned = (owned: Record<string, string>) =>
      javaOrder(
        Object.entries(topicsOf).map(([c, topics]) => subscription(c, topics, { ownedPartitions: tps(...(owned[c] ?? "").split(", ")) })),
      );
    const joined = (result: ReturnType<typeof cooperative.assign>) =>
      Object.fromEntries(Object.entries(sortedKeysByMember(result)).map(([c, keys]) => [c, keys.join(", ")]));

    const owned = {
      consumer0: "t1-0, t1-1, t1-2, t1-3, t1-4",
      consumer1: "t1-5, t2-0, t2-1, t2-2, t2-3",
      consumer2: "t2-4, t2-5, t2-6, t3-0, t3-1",
    };
    const intermediate = { consumer0: "t1-2, t1-3, t1-4", consumer1: "t2-0, t2-1, t2-2, t2-3", consumer2: "t3-0, t3-1" };
    expect(joined(cooperative.assign(metadata, withOwned(owned)))).toEqual(intermediate);
    expect(joined(cooperative.assign(metadata, withOwned(intermediate)))).toEqual({
      consumer0: "t1-2, t1-3, t1-4, t2-4, t2-5",
      consumer1: "t2-0, t2-1, t2-2, t2-3, t2-6",
      consumer2: "t1-0, t1-1, t1-5, t3-0, t3-1",
    });
  });

  it("never hands a partition over in the round it is revoked (validateCooperativeAssignment passes)", () => {
    const metadata = counts({ topic: 6 });
    const subs = [v2("a", ["topic"], tps("topic-0", "topic-1", "topic-2", "topic-3", "topic-4", "topic-5"), 3), v2("b", ["topic"], [], 3)];
    const round1 = cooperative.assign(metadata, subs);
    expect(sortedKeysByMember(round1)).toEqual({ a: ["topic-0", "topic-1", "topic-2"], b: [] });
    validateCooperativeAssignment(new Map(subs.map((s) => [s.memberId, s.ownedPartitions])), round1);
  });
});
