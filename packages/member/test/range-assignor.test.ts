import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareMemberInfo, RangeAssignor } from "../src/index.js";
import { counts, sortedKeysByMember, subscription } from "./assignor-test-support.js";

const range = new RangeAssignor();

describe("RangeAssignor: Kafka vectors", () => {
  it("K1 RangeAssignorTest.testMultipleConsumersMixedTopics", () => {
    const result = range.assign(counts({ topic1: 3, topic2: 2 }), [
      subscription("consumer1", ["topic1"]),
      subscription("consumer2", ["topic1", "topic2"]),
      subscription("consumer3", ["topic1"]),
    ]);
    expect(sortedKeysByMember(result)).toEqual({
      consumer1: ["topic1-0"],
      consumer2: ["topic1-1", "topic2-0", "topic2-1"],
      consumer3: ["topic1-2"],
    });
  });

  it("testOneConsumerNoTopic / testOneConsumerNonexistentTopic: the member is present with nothing", () => {
    expect(sortedKeysByMember(range.assign(counts({}), [subscription("consumer1", [])]))).toEqual({ consumer1: [] });
    expect(sortedKeysByMember(range.assign(counts({}), [subscription("consumer1", ["topic1"])]))).toEqual({ consumer1: [] });
  });

  it("testOneConsumerOneTopic, testOnlyAssignsPartitionsFromSubscribedTopics, testOneConsumerMultipleTopics", () => {
    expect(sortedKeysByMember(range.assign(counts({ topic1: 3 }), [subscription("consumer1", ["topic1"])]))).toEqual({
      consumer1: ["topic1-0", "topic1-1", "topic1-2"],
    });
    expect(sortedKeysByMember(range.assign(counts({ topic1: 3, other: 3 }), [subscription("consumer1", ["topic1"])]))).toEqual({
      consumer1: ["topic1-0", "topic1-1", "topic1-2"],
    });
    expect(sortedKeysByMember(range.assign(counts({ topic1: 1, topic2: 2 }), [subscription("consumer1", ["topic1", "topic2"])]))).toEqual({
      consumer1: ["topic1-0", "topic2-0", "topic2-1"],
    });
  });

  it("testTwoConsumersOneTopicOnePartition / ...TwoPartitions", () => {
    const two = [subscription("consumer1", ["topic1"]), subscription("consumer2", ["topic1"])];
    expect(sortedKeysByMember(range.assign(counts({ topic1: 1 }), two))).toEqual({ consumer1: ["topic1-0"], consumer2: [] });
    expect(sortedKeysByMember(range.assign(counts({ topic1: 2 }), two))).toEqual({ consumer1: ["topic1-0"], consumer2: ["topic1-1"] });
  });

  it("testTwoConsumersTwoTopicsSixPartitions", () => {
    const result = range.assign(counts({ topic1: 3, topic2: 3 }), [
      subscription("consumer1", ["topic1", "topic2"]),
      subscription("consumer2", ["topic1", "topic2"]),
    ]);
    expect(sortedKeysByMember(result)).toEqual({
      consumer1: ["topic1-0", "topic1-1", "topic2-0", "topic2-1"],
      consumer2: ["topic1-2", "topic2-2"],
    });
  });

  it("testTwoStaticConsumersTwoTopicsSixPartitions: instance ids decide, not member ids", () => {
    const result = range.assign(counts({ topic1: 3, topic2: 3 }), [
      subscription("consumer-b", ["topic1", "topic2"], { groupInstanceId: "instance1" }),
      subscription("consumer-a", ["topic1", "topic2"], { groupInstanceId: "instance2" }),
    ]);
    expect(sortedKeysByMember(result)).toEqual({
      "consumer-b": ["topic1-0", "topic1-1", "topic2-0", "topic2-1"],
      "consumer-a": ["topic1-2", "topic2-2"],
    });
  });

  it("testOneStaticConsumerAndOneDynamicConsumerTwoTopicsSixPartitions: static members first", () => {
    const result = range.assign(counts({ topic1: 3, topic2: 3 }), [
      subscription("consumer-b", ["topic1", "topic2"], { groupInstanceId: "instance1" }),
      subscription("consumer-a", ["topic1", "topic2"]),
    ]);
    expect(sortedKeysByMember(result)).toEqual({
      "consumer-b": ["topic1-0", "topic1-1", "topic2-0", "topic2-1"],
      "consumer-a": ["topic1-2", "topic2-2"],
    });
  });

  it("testStaticMemberRangeAssignmentPersistent: replacing the dynamic member keeps the static slots", () => {
    const statics = [1, 2, 3].map((i) => subscription(`consumer${i}`, ["topic1", "topic2"], { groupInstanceId: `instance${i}` }));
    const metadata = counts({ topic1: 5, topic2: 4 });
    const expected = {
      consumer1: ["topic1-0", "topic1-1", "topic2-0"],
      consumer2: ["topic1-2", "topic2-1"],
      consumer3: ["topic1-3", "topic2-2"],
    };
    expect(sortedKeysByMember(range.assign(metadata, [...statics, subscription("consumer4", ["topic1", "topic2"])]))).toEqual({
      ...expected,
      consumer4: ["topic1-4", "topic2-3"],
    });
    expect(sortedKeysByMember(range.assign(metadata, [...statics, subscription("consumer5", ["topic1", "topic2"])]))).toEqual({
      ...expected,
      consumer5: ["topic1-4", "topic2-3"],
    });
  });

  it("testStaticMemberRangeAssignmentPersistentAfterMemberIdChanges", () => {
    const metadata = counts({ topic1: 5, topic2: 5 });
    const byInstance = (members: [string, string][]) => {
      const result = sortedKeysByMember(
        range.assign(
          metadata,
          members.map(([id, inst]) => subscription(id, ["topic1", "topic2"], { groupInstanceId: inst })),
        ),
      );
      return Object.fromEntries(members.map(([id, inst]) => [inst, result[id]]));
    };
    const expected = {
      instance1: ["topic1-0", "topic1-1", "topic2-0", "topic2-1"],
      instance2: ["topic1-2", "topic1-3", "topic2-2", "topic2-3"],
      instance3: ["topic1-4", "topic2-4"],
    };
    expect(
      byInstance([
        ["consumer1", "instance1"],
        ["consumer2", "instance2"],
        ["consumer3", "instance3"],
      ]),
    ).toEqual(expected);
    expect(
      byInstance([
        ["consumer1", "instance1"],
        ["consumer5", "instance2"],
        ["consumer4", "instance3"],
      ]),
    ).toEqual(expected);
  });

  it("AbstractPartitionAssignorTest MemberInfo sorting: static by instance id, then dynamic by member id", () => {
    const sorted = (members: [string, string | null][]) =>
      members
        .map(([memberId, groupInstanceId]) => ({ memberId, groupInstanceId }))
        .sort(compareMemberInfo)
        .map((m) => m.memberId);
    expect(
      sorted([
        ["a", null],
        ["b", null],
        ["c", null],
      ]),
    ).toEqual(["a", "b", "c"]);
    expect(
      sorted([
        ["a", "y"],
        ["b", "z"],
        ["c", "x"],
      ]),
    ).toEqual(["c", "a", "b"]);
    expect(
      sorted([
        ["a", null],
        ["b", "y"],
        ["c", "x"],
      ]),
    ).toEqual(["c", "b", "a"]);
  });
});

/** Random groups: topic counts 0..4 topics of 0..12 partitions; members with random subsets, some static. */
const groupArbitrary = fc
  .record({
    partitionCounts: fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 4 }),
    members: fc.uniqueArray(
      fc.record({
        id: fc.string({ minLength: 1, maxLength: 4 }),
        instance: fc.option(fc.string({ minLength: 1, maxLength: 3 })),
        topicMask: fc.nat(15),
      }),
      { minLength: 1, maxLength: 8, selector: (m) => m.id },
    ),
  })
  .map(({ partitionCounts, members }) => {
    const topics = partitionCounts.map((_, i) => `t${i}`);
    const instanceIds = new Set<string>();
    const subscriptions = members.map((m) => {
      // Instance ids are unique within a group.
      const instance = m.instance !== null && !instanceIds.has(m.instance) ? m.instance : null;
      if (instance !== null) instanceIds.add(instance);
      return subscription(
        m.id,
        topics.filter((_, i) => (m.topicMask >> i) & 1),
        { groupInstanceId: instance },
      );
    });
    return { metadata: new Map(topics.map((t, i) => [t, partitionCounts[i] ?? 0])), subscriptions };
  });

describe("RangeAssignor: properties", () => {
  it("assigns each partition of a subscribed topic exactly once, to a subscriber; everyone present", () => {
    fc.assert(
      fc.property(groupArbitrary, ({ metadata, subscriptions }) => {
        const result = range.assign(metadata, subscriptions);
        expect([...result.keys()].sort()).toEqual(subscriptions.map((s) => s.memberId).sort());
        for (const [topic, count] of metadata) {
          const subscribers = subscriptions.filter((s) => s.topics.includes(topic));
          const owners = [...result].flatMap(([m, a]) =>
            a.partitions.filter((tp) => tp.topic === topic).map((tp) => ({ m, p: tp.partition })),
          );
          expect(owners.map((o) => o.p).sort((a, b) => a - b)).toEqual(subscribers.length === 0 ? [] : [...Array(count).keys()]);
          for (const o of owners) expect(subscribers.some((s) => s.memberId === o.m)).toBe(true);
        }
      }),
    );
  });

  it("per topic, subscribers in MemberInfo order get contiguous ranges of floor(P/N), the first P mod N one more", () => {
    fc.assert(
      fc.property(groupArbitrary, ({ metadata, subscriptions }) => {
        const result = range.assign(metadata, subscriptions);
        for (const [topic, count] of metadata) {
          const subscribers = subscriptions.filter((s) => s.topics.includes(topic)).sort(compareMemberInfo);
          let next = 0;
          subscribers.forEach((s, i) => {
            const mine = (result.get(s.memberId)?.partitions ?? []).filter((tp) => tp.topic === topic).map((tp) => tp.partition);
            const length = Math.floor(count / subscribers.length) + (i < count % subscribers.length ? 1 : 0);
            expect(mine).toEqual(Array.from({ length }, (_, k) => next + k));
            next += length;
          });
        }
      }),
    );
  });
});
