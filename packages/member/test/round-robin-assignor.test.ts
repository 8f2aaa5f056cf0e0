import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RoundRobinAssignor } from "../src/index.js";
import { counts, keysByMember, subscription } from "./assignor-test-support.js";

const roundRobin = new RoundRobinAssignor();

describe("RoundRobinAssignor: Kafka vectors", () => {
  it("K3 RoundRobinAssignorTest.testTwoDynamicConsumersTwoTopicsSixPartitions", () => {
    const result = roundRobin.assign(counts({ topic1: 3, topic2: 3 }), [
      subscription("consumer1", ["topic1", "topic2"]),
      subscription("consumer2", ["topic1", "topic2"]),
    ]);
    expect(keysByMember(result)).toEqual({
      consumer1: ["topic1-0", "topic1-2", "topic2-1"],
      consumer2: ["topic1-1", "topic2-0", "topic2-2"],
    });
  });

  it("testOneConsumerNoTopic / NonexistentTopic / OneTopic / OnlyAssignsPartitionsFromSubscribedTopics / MultipleTopics", () => {
    expect(keysByMember(roundRobin.assign(counts({}), [subscription("consumer", [])]))).toEqual({ consumer: [] });
    expect(keysByMember(roundRobin.assign(counts({}), [subscription("consumer", ["topic"])]))).toEqual({ consumer: [] });
    expect(keysByMember(roundRobin.assign(counts({ topic: 3 }), [subscription("consumer", ["topic"])]))).toEqual({
      consumer: ["topic-0", "topic-1", "topic-2"],
    });
    expect(keysByMember(roundRobin.assign(counts({ topic: 3, other: 3 }), [subscription("consumer", ["topic"])]))).toEqual({
      consumer: ["topic-0", "topic-1", "topic-2"],
    });
    expect(keysByMember(roundRobin.assign(counts({ topic1: 1, topic2: 2 }), [subscription("consumer", ["topic1", "topic2"])]))).toEqual({
      consumer: ["topic1-0", "topic2-0", "topic2-1"],
    });
  });

  it("testTwoConsumersOneTopicOnePartition / ...TwoPartitions", () => {
    const two = [subscription("consumer1", ["topic"]), subscription("consumer2", ["topic"])];
    expect(keysByMember(roundRobin.assign(counts({ topic: 1 }), two))).toEqual({ consumer1: ["topic-0"], consumer2: [] });
    expect(keysByMember(roundRobin.assign(counts({ topic: 2 }), two))).toEqual({ consumer1: ["topic-0"], consumer2: ["topic-1"] });
  });

  it("testMultipleConsumersMixedTopics: members not subscribed to a topic are skipped", () => {
    const result = roundRobin.assign(counts({ topic1: 3, topic2: 2 }), [
      subscription("consumer1", ["topic1"]),
      subscription("consumer2", ["topic1", "topic2"]),
      subscription("consumer3", ["topic1"]),
    ]);
    expect(keysByMember(result)).toEqual({
      consumer1: ["topic1-0"],
      consumer2: ["topic1-1", "topic2-0", "topic2-1"],
      consumer3: ["topic1-2"],
    });
  });

  it("testTwoStaticConsumersTwoTopicsSixPartitions / testOneStaticConsumerAndOneDynamicConsumerTwoTopicsSixPartitions", () => {
    const expected = { "consumer-b": ["topic1-0", "topic1-2", "topic2-1"], "consumer-a": ["topic1-1", "topic2-0", "topic2-2"] };
    const statics = roundRobin.assign(counts({ topic1: 3, topic2: 3 }), [
      subscription("consumer-b", ["topic1", "topic2"], { groupInstanceId: "instance1" }),
      subscription("consumer-a", ["topic1", "topic2"], { groupInstanceId: "instance2" }),
    ]);
    expect(keysByMember(statics)).toEqual(expected);
    const mixed = roundRobin.assign(counts({ topic1: 3, topic2: 3 }), [
      subscription("consumer-b", ["topic1", "topic2"], { groupInstanceId: "instance1" }),
      subscription("consumer-a", ["topic1", "topic2"]),
    ]);
    expect(keysByMember(mixed)).toEqual(expected);
  });

  it("testStaticMemberRoundRobinAssignmentPersistent", () => {
    const statics = [1, 2, 3].map((i) => subscription(`consumer${i}`, ["topic1", "topic2"], { groupInstanceId: `instance${i}` }));
    const metadata = counts({ topic1: 3, topic2: 3 });
    const expected = { consumer1: ["topic1-0", "topic2-1"], consumer2: ["topic1-1", "topic2-2"], consumer3: ["topic1-2"] };
    expect(keysByMember(roundRobin.assign(metadata, [...statics, subscription("consumer4", ["topic1", "topic2"])]))).toEqual({
      ...expected,
      consumer4: ["topic2-0"],
    });
    expect(keysByMember(roundRobin.assign(metadata, [...statics, subscription("consumer5", ["topic1", "topic2"])]))).toEqual({
      ...expected,
      consumer5: ["topic2-0"],
    });
  });

  it("testStaticMemberRoundRobinAssignmentPersistentAfterMemberIdChanges", () => {
    const metadata = counts({ topic1: 5, topic2: 5 });
    const byInstance = (members: [string, string][]) => {
      const result = keysByMember(
        roundRobin.assign(
          metadata,
          members.map(([id, inst]) => subscription(id, ["topic1", "topic2"], { groupInstanceId: inst })),
        ),
      );
      return Object.fromEntries(members.map(([id, inst]) => [inst, result[id]]));
    };
    const expected = {
      instance1: ["topic1-0", "topic1-3", "topic2-1", "topic2-4"],
      instance2: ["topic1-1", "topic1-4", "topic2-2"],
      instance3: ["topic1-2", "topic2-0", "topic2-3"],
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

  it("StickyAssignor javadoc, example 2: round robin's lopsided result with nested subscriptions", () => {
    const result = roundRobin.assign(counts({ t0: 1, t1: 2, t2: 3 }), [
      subscription("C0", ["t0"]),
      subscription("C1", ["t0", "t1"]),
      subscription("C2", ["t0", "t1", "t2"]),
    ]);
    expect(keysByMember(result)).toEqual({ C0: ["t0-0"], C1: ["t1-0"], C2: ["t1-1", "t2-0", "t2-1", "t2-2"] });
  });
});

const groupArbitrary = fc
  .record({
    partitionCounts: fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 4 }),
    members: fc.uniqueArray(fc.record({ id: fc.string({ minLength: 1, maxLength: 4 }), topicMask: fc.nat(15), isStatic: fc.boolean() }), {
      minLength: 1,
      maxLength: 8,
      selector: (m) => m.id,
    }),
  })
  .map(({ partitionCounts, members }) => {
    const topics = partitionCounts.map((_, i) => `t${i}`);
    return {
      metadata: new Map(topics.map((t, i) => [t, partitionCounts[i] ?? 0])),
      topics,
      subscriptions: members.map((m) =>
        subscription(
          m.id,
          topics.filter((_, i) => (m.topicMask >> i) & 1),
          { groupInstanceId: m.isStatic ? `i-${m.id}` : null },
        ),
      ),
    };
  });

describe("RoundRobinAssignor: properties", () => {
  it("assigns each partition of a subscribed topic exactly once, to a subscriber; everyone present", () => {
    fc.assert(
      fc.property(groupArbitrary, ({ metadata, subscriptions }) => {
        const result = roundRobin.assign(metadata, subscriptions);
        expect(result.size).toBe(subscriptions.length);
        const seen = new Set<string>();
        for (const s of subscriptions) {
          for (const tp of result.get(s.memberId)?.partitions ?? []) {
            expect(s.topics).toContain(tp.topic);
            expect(seen.has(`${tp.topic}-${tp.partition}`)).toBe(false);
            seen.add(`${tp.topic}-${tp.partition}`);
          }
        }
        const expected = [...metadata].filter(([t]) => subscriptions.some((s) => s.topics.includes(t))).reduce((n, [, c]) => n + c, 0);
        expect(seen.size).toBe(expected);
      }),
    );
  });

  it("with identical subscriptions, member loads differ by at most one", () => {
    fc.assert(
      fc.property(groupArbitrary, ({ metadata, topics, subscriptions }) => {
        const same = subscriptions.map((s) => ({ ...s, topics }));
        const sizes = [...roundRobin.assign(metadata, same).values()].map((a) => a.partitions.length);
        expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
      }),
    );
  });
});
