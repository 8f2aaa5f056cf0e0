import { describe, expect, it } from "vitest";
import {
  type AssignorSubscription,
  decodeStickyUserData,
  encodeStickyUserData,
  encodeStickyUserDataV0,
  type MemberAssignment,
  StickyAssignor,
} from "../src/index.js";
import {
  counts,
  isFullyBalanced,
  javaOrder,
  keysByMember,
  sortedKeysByMember,
  stickyBuilders,
  subscription,
  tps,
  validityAndBalanceProblems,
} from "./assignor-test-support.js";

const sticky = new StickyAssignor();
const { fresh, v2, v1 } = stickyBuilders;
const assign = (metadata: Map<string, number>, subscriptions: AssignorSubscription[]) => sticky.assign(metadata, javaOrder(subscriptions));
const owned = (assignment: Map<string, MemberAssignment>, member: string) => assignment.get(member)?.partitions ?? [];
const expectValidAndBalanced = (subscriptions: AssignorSubscription[], assignment: Map<string, MemberAssignment>) => {
  expect(validityAndBalanceProblems(subscriptions, assignment)).toEqual([]);
  expect(isFullyBalanced(assignment)).toBe(true);
};

describe("StickyAssignor: Kafka vectors (StickyAssignorTest)", () => {
  it("...ClaimedByMultipleConsumersInSameGenerationWithEqualPartitionsPerConsumer: the doubly claimed partition moves", () => {
    const result = assign(counts({ topic: 3 }), [
      v2("consumer1", ["topic"], tps("topic-0", "topic-1"), 1),
      v2("consumer2", ["topic"], tps("topic-0", "topic-2"), 1),
      v2("consumer3", ["topic"], [], 1),
    ]);
    expect(keysByMember(result)).toEqual({ consumer3: ["topic-0"], consumer2: ["topic-2"], consumer1: ["topic-1"] });
  });

  it("...ClaimedByMultipleConsumersInSameGenerationWithUnequalPartitionsPerConsumer", () => {
    const result = assign(counts({ topic: 4 }), [
      v2("consumer1", ["topic"], tps("topic-0", "topic-1"), 1),
      v2("consumer2", ["topic"], tps("topic-0", "topic-2"), 1),
      v2("consumer3", ["topic"], [], 1),
    ]);
    expect(keysByMember(result)).toMatchObject({ consumer1: ["topic-1", "topic-3"], consumer2: ["topic-2"], consumer3: ["topic-0"] });
  });

  it("testAssignorWithOldVersionSubscriptions: v0, v1 and v2 subscriptions mix", () => {
    const v0 = subscription("consumer1", ["topic1"], { userData: encodeStickyUserData(tps("topic1-0"), 1) });
    const result = assign(counts({ topic1: 3 }), [v0, v1("consumer2", ["topic1"], tps("topic1-1"), 1), v2("consumer3", ["topic1"], [], 1)]);
    expect(keysByMember(result)).toMatchObject({ consumer1: ["topic1-0"], consumer2: ["topic1-1"], consumer3: ["topic1-2"] });
  });

  it("testSchemaBackwardCompatibility: user data of the V0 schema (no generation) still counts", () => {
    const subs = [
      v2("consumer1", ["topic"], tps("topic-0", "topic-2"), 1),
      subscription("consumer2", ["topic"], { userData: encodeStickyUserDataV0(tps("topic-1")) }),
      fresh("consumer3", ["topic"]),
    ];
    const result = assign(counts({ topic: 3 }), subs);
    expect(keysByMember(result)).toMatchObject({ consumer1: ["topic-0"], consumer2: ["topic-1"], consumer3: ["topic-2"] });
    expectValidAndBalanced(subs, result);
  });

  it("testMemberData / testMemberDataWithInconsistentData / testMemberDataWillHonorUserData: user data wins", () => {
    const ownedList = tps("topic1-0", "topic2-1");
    for (const s of [
      subscription("c", ["topic"], { userData: encodeStickyUserData(ownedList, 1) }),
      v1("c", ["topic"], ownedList, 1),
      v2("c", ["topic"], ownedList, 1),
    ]) {
      expect(sticky.memberData(s)).toEqual({ partitions: ownedList, generation: 1 });
    }
    const userData = sticky.subscriptionUserData({ topics: ["topic"], lastAssignment: tps("topic-1"), generation: 1 });
    expect(sticky.memberData(subscription("c", ["topic"], { userData, ownedPartitions: tps("topic-0") }))).toEqual({
      partitions: tps("topic-1"),
      generation: 1,
    });
    const older = subscription("c", ["topic"], { userData: encodeStickyUserData(ownedList, 0), generationId: 1 });
    expect(sticky.memberData(older)).toEqual({ partitions: ownedList, generation: 0 });
  });

  it("subscriptionUserData: none before the first assignment, then the assignment and its generation", () => {
    expect(sticky.subscriptionUserData({ topics: ["t"], lastAssignment: null, generation: -1 })).toBeNull();
    const bytes = sticky.subscriptionUserData({ topics: ["t"], lastAssignment: tps("t-2", "u-0", "t-5"), generation: 7 });
    expect(decodeStickyUserData(bytes)).toEqual({ partitions: expect.arrayContaining(tps("t-2", "u-0", "t-5")), generation: 7 });
  });

  it("user data decoding: empty means nothing, V0 has no generation, unreadable bytes mean generation -1", () => {
    expect(decodeStickyUserData(null)).toEqual({ partitions: [], generation: null });
    expect(decodeStickyUserData(new Uint8Array(0))).toEqual({ partitions: [], generation: null });
    expect(decodeStickyUserData(encodeStickyUserDataV0(tps("a-1")))).toEqual({ partitions: tps("a-1"), generation: null });
    expect(decodeStickyUserData(Uint8Array.from([0, 0, 0, 9]))).toEqual({ partitions: [], generation: -1 });
    // Kafka's STICKY_ASSIGNOR_USER_DATA_V1 bytes: [{topic "t", partitions [3]}], generation 2.
    expect([...encodeStickyUserData(tps("t-3"), 2)]).toEqual([0, 0, 0, 1, 0, 1, 116, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0, 2]);
  });

  it("testAssignmentWithMultipleGenerations1 (equal and unequal subscriptions)", () => {
    for (const allEqual of [true, false]) {
      const all = ["topic", "topic2"];
      const c2Topics = allEqual ? all : ["topic"];
      const metadata = counts({ topic: 6, topic2: 6 });
      const s1 = [fresh("consumer1", all), fresh("consumer2", c2Topics), fresh("consumer3", all)];
      const r1 = assign(metadata, s1);
      for (const c of ["consumer1", "consumer2", "consumer3"]) expect(owned(r1, c)).toHaveLength(4);
      expectValidAndBalanced(s1, r1);

      const s2 = [v2("consumer1", all, owned(r1, "consumer1"), 1), v2("consumer2", c2Topics, owned(r1, "consumer2"), 1)];
      const r2 = assign(metadata, s2);
      expect(owned(r2, "consumer1")).toHaveLength(6);
      expect(owned(r2, "consumer2")).toHaveLength(6);
      if (allEqual) expect(owned(r2, "consumer1")).toEqual(expect.arrayContaining([...owned(r1, "consumer1")]));
      expect(owned(r2, "consumer2")).toEqual(expect.arrayContaining([...owned(r1, "consumer2")]));
      expectValidAndBalanced(s2, r2);
      const r1c3 = new Set(owned(r1, "consumer3").map((tp) => `${tp.topic}-${tp.partition}`));
      expect(owned(r2, "consumer2").some((tp) => r1c3.has(`${tp.topic}-${tp.partition}`))).toBe(true);

      const s3 = [v2("consumer2", c2Topics, owned(r2, "consumer2"), 2), v2("consumer3", all, owned(r1, "consumer3"), 1)];
      const r3 = assign(metadata, s3);
      expect(owned(r3, "consumer2")).toHaveLength(6);
      expect(owned(r3, "consumer3")).toHaveLength(6);
      expectValidAndBalanced(s3, r3);
    }
  });

  it("testAssignmentWithMultipleGenerations2 (equal and unequal subscriptions)", () => {
    for (const allEqual of [true, false]) {
      const all = ["topic", "topic2", "topic3"];
      const c1Topics = allEqual ? all : ["topic"];
      const c3Topics = allEqual ? all : ["topic", "topic2"];
      const metadata = counts({ topic: 4, topic2: 4, topic3: 4 });
      const s1 = [fresh("consumer1", c1Topics), fresh("consumer2", all), fresh("consumer3", c3Topics)];
      const r1 = assign(metadata, s1);
      for (const c of ["consumer1", "consumer2", "consumer3"]) expect(owned(r1, c)).toHaveLength(4);
      expectValidAndBalanced(s1, r1);

      const r2 = assign(metadata, [v2("consumer2", all, owned(r1, "consumer2"), 1)]);
      expect(owned(r2, "consumer2")).toHaveLength(12);

      const s3 = [
        v2("consumer1", c1Topics, owned(r1, "consumer1"), 1),
        v2("consumer2", all, owned(r2, "consumer2"), 2),
        v2("consumer3", c3Topics, owned(r1, "consumer3"), 1),
      ];
      const r3 = assign(metadata, s3);
      for (const c of ["consumer1", "consumer2", "consumer3"]) expect(owned(r3, c)).toHaveLength(4);
      expectValidAndBalanced(s3, r3);
    }
  });

  it("testAssignmentWithConflictingPreviousGenerations (equal and unequal subscriptions)", () => {
    for (const allEqual of [true, false]) {
      const all = ["topic", "topic2", "topic3"];
      const c1Topics = allEqual ? all : ["topic"];
      const c2Topics = allEqual ? all : ["topic", "topic2"];
      const c1Owned = allEqual
        ? tps("topic-0", "topic-1", "topic-2", "topic2-2", "topic2-3", "topic3-0")
        : tps("topic-0", "topic-1", "topic-2", "topic-3");
      const c2Owned = tps("topic-0", "topic-1", "topic2-0", "topic2-1", "topic2-2", "topic2-3");
      const c3Owned = tps("topic-2", "topic-3", "topic3-0", "topic3-1", "topic3-2", "topic3-3");
      const subs = [v2("consumer1", c1Topics, c1Owned, 1), v2("consumer2", c2Topics, c2Owned, 2), v2("consumer3", all, c3Owned, 2)];
      const result = assign(counts({ topic: 4, topic2: 4, topic3: 4 }), subs);
      const keys = sortedKeysByMember(result);
      for (const c of ["consumer1", "consumer2", "consumer3"]) expect(keys[c]).toHaveLength(4);
      expect(c2Owned.map((tp) => `${tp.topic}-${tp.partition}`)).toEqual(expect.arrayContaining(keys.consumer2 ?? []));
      expect(c3Owned.map((tp) => `${tp.topic}-${tp.partition}`)).toEqual(expect.arrayContaining(keys.consumer3 ?? []));
      expectValidAndBalanced(subs, result);
    }
  });

  it("StickyAssignor javadoc example 1: a fresh assignment, then C1 leaves and nothing else moves", () => {
    const all = ["t0", "t1", "t2", "t3"];
    const metadata = counts({ t0: 2, t1: 2, t2: 2, t3: 2 });
    const r1 = assign(metadata, [fresh("C0", all), fresh("C1", all), fresh("C2", all)]);
    expect(keysByMember(r1)).toMatchObject({ C0: ["t0-0", "t1-1", "t3-0"], C1: ["t0-1", "t2-0", "t3-1"], C2: ["t1-0", "t2-1"] });
    const r2 = assign(metadata, [v2("C0", all, owned(r1, "C0"), 1), v2("C2", all, owned(r1, "C2"), 1)]);
    expect(owned(r2, "C0")).toEqual(expect.arrayContaining([...owned(r1, "C0")]));
    expect(owned(r2, "C2")).toEqual(expect.arrayContaining([...owned(r1, "C2")]));
    expect(isFullyBalanced(r2)).toBe(true);
  });

  it("StickyAssignor javadoc example 2: nested subscriptions stay balanced and sticky when C0 leaves", () => {
    const metadata = counts({ t0: 1, t1: 2, t2: 3 });
    const r1 = assign(metadata, [fresh("C0", ["t0"]), fresh("C1", ["t0", "t1"]), fresh("C2", ["t0", "t1", "t2"])]);
    expect(sortedKeysByMember(r1)).toEqual({ C0: ["t0-0"], C1: ["t1-0", "t1-1"], C2: ["t2-0", "t2-1", "t2-2"] });
    const r2 = assign(metadata, [v2("C1", ["t0", "t1"], owned(r1, "C1"), 1), v2("C2", ["t0", "t1", "t2"], owned(r1, "C2"), 1)]);
    expect(sortedKeysByMember(r2)).toEqual({ C1: ["t0-0", "t1-0", "t1-1"], C2: ["t2-0", "t2-1", "t2-2"] });
  });
});

describe("StickyAssignor: the sticky-leave case", () => {
  it("5 partitions, 3 consumers; when C3 leaves only the partitions C3 owned move", () => {
    const metadata = counts({ topic: 5 });
    const r1 = sticky.assign(metadata, [fresh("C1", ["topic"]), fresh("C2", ["topic"]), fresh("C3", ["topic"])]);
    expect(keysByMember(r1)).toEqual({ C1: ["topic-0", "topic-3"], C2: ["topic-1", "topic-4"], C3: ["topic-2"] });
    const r2 = sticky.assign(metadata, [v2("C1", ["topic"], owned(r1, "C1"), 1), v2("C2", ["topic"], owned(r1, "C2"), 1)]);
    const before = sortedKeysByMember(r1);
    const after = sortedKeysByMember(r2);
    for (const member of ["C1", "C2"]) expect(after[member]).toEqual(expect.arrayContaining(before[member] ?? []));
    const moved = Object.entries(after).flatMap(([m, keys]) => keys.filter((k) => !(before[m] ?? []).includes(k)));
    expect(moved).toEqual(before.C3);
    expect(keysByMember(r2)).toEqual({ C1: ["topic-0", "topic-3", "topic-2"], C2: ["topic-1", "topic-4"] });
  });
});

describe("StickyAssignor: member iteration order", () => {
  it("who keeps a max quota follows the given order (Kafka's HashMap order reproduces Kafka; another order differs)", () => {
    const topics = ["topic1", "topic2"];
    const subs = [
      v2("consumer1", topics, tps("topic1-0", "topic2-0"), 1),
      v2("consumer2", topics, tps("topic1-1", "topic2-1"), 1),
      v2("consumer3", topics, [], 1),
    ];
    const metadata = counts({ topic1: 2, topic2: 2 });
    expect(sortedKeysByMember(sticky.assign(metadata, javaOrder(subs)))).toEqual({
      consumer1: ["topic1-0"],
      consumer2: ["topic1-1", "topic2-1"],
      consumer3: ["topic2-0"],
    });
    expect(sortedKeysByMember(sticky.assign(metadata, subs))).toEqual({
      consumer1: ["topic1-0", "topic2-0"],
      consumer2: ["topic1-1"],
      consumer3: ["topic2-1"],
    });
  });
});
