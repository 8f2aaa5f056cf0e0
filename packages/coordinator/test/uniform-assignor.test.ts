import { describe, expect, it } from "vitest";
import { javaHashSetIterationOrder, PartitionAssignorError, UniformAssignor } from "../src/index.js";
import { byTopicName, idOf, memberOf, topicsOf } from "./assignor-test-kit.js";

const uniform = new UniformAssignor();

describe("Java HashSet<Uuid> order of Kafka's test topics", () => {
  it("iterates T2, T3, T1 (spec 3)", () => {
    expect(javaHashSetIterationOrder(["T1", "T2", "T3"].map(idOf))).toEqual(["T2", "T3", "T1"].map(idOf));
    expect(javaHashSetIterationOrder(["T1", "T3"].map(idOf))).toEqual(["T3", "T1"].map(idOf));
    expect(javaHashSetIterationOrder(["T1", "T2"].map(idOf))).toEqual(["T2", "T1"].map(idOf));
  });
});

// UniformHomogeneousAssignmentBuilderTest / OptimizedUniformAssignmentBuilderTest. Members are in
// TreeMap (sorted) order; topics in the Java HashSet order computed above.
describe("uniform, homogeneous (Kafka test vectors)", () => {
  it("U1 testFirstAssignmentTwoMembersTwoTopicsNoMemberRacks", () => {
    const topics = topicsOf({ T1: 3, T3: 2 }, ["T3", "T1"]);
    const result = uniform.assign({ members: [memberOf("A", ["T1", "T3"]), memberOf("B", ["T1", "T3"])] }, topics);
    expect(byTopicName(result, topics)).toEqual({ A: { T1: [0], T3: [0, 1] }, B: { T1: [1, 2] } });
  });

  it("U2 testReassignmentForTwoMembersTwoTopicsGivenUnbalancedPrevAssignment", () => {
    const topics = topicsOf({ T1: 3, T2: 3 }, ["T2", "T1"]);
    const members = [memberOf("A", ["T1", "T2"], { T1: [0, 1], T2: [0, 1] }), memberOf("B", ["T1", "T2"], { T1: [2], T2: [2] })];
    const result = uniform.assign({ members }, topics);
    expect(byTopicName(result, topics)).toEqual({ A: { T1: [0, 1], T2: [0] }, B: { T1: [2], T2: [1, 2] } });
  });

  it("testOneMemberNoTopicSubscription", () => {
    const topics = topicsOf({ T1: 3 });
    const result = uniform.assign({ members: [memberOf("A", [])] }, topics);
    expect(byTopicName(result, topics)).toEqual({ A: {} });
  });

  it("testOneMemberSubscribedToNonexistentTopic", () => {
    const topics = topicsOf({ T1: 3 });
    expect(() => uniform.assign({ members: [memberOf("A", ["T2"])] }, topics)).toThrow(PartitionAssignorError);
  });

  it("testFirstAssignmentNumMembersGreaterThanTotalNumPartitions (4.0-era expectation)", () => {
    const topics = topicsOf({ T3: 2 });
    const members = ["A", "B", "C"].map((id) => memberOf(id, ["T3"]));
    expect(byTopicName(uniform.assign({ members }, topics), topics)).toEqual({ A: { T3: [0] }, B: { T3: [1] }, C: {} });
  });

  it("testReassignmentWhenOneMemberAddedAfterInitialAssignmentWithTwoMembersTwoTopics", () => {
    const topics = topicsOf({ T1: 3, T2: 3 }, ["T2", "T1"]);
    const members = [
      memberOf("A", ["T1", "T2"], { T1: [0, 2], T2: [0] }),
      memberOf("B", ["T1", "T2"], { T1: [1], T2: [1, 2] }),
      memberOf("C", ["T1", "T2"]),
    ];
    expect(byTopicName(uniform.assign({ members }, topics), topics)).toEqual({
      A: { T1: [0, 2] },
      B: { T1: [1], T2: [1] },
      C: { T2: [0, 2] },
    });
  });

  it("testReassignmentWhenOneMemberRemovedAfterInitialAssignmentWithThreeMembersTwoTopics", () => {
    const topics = topicsOf({ T1: 3, T2: 3 }, ["T2", "T1"]);
    const members = [memberOf("A", ["T1", "T2"], { T1: [0], T2: [0] }), memberOf("B", ["T1", "T2"], { T1: [1], T2: [1] })];
    expect(byTopicName(uniform.assign({ members }, topics), topics)).toEqual({
      A: { T1: [0], T2: [0, 2] },
      B: { T1: [1, 2], T2: [1] },
    });
  });

  it("testReassignmentWhenOneSubscriptionRemovedAfterInitialAssignmentWithTwoMembersTwoTopics", () => {
    const topics = topicsOf({ T1: 2, T2: 2 }, ["T2", "T1"]);
    const members = [memberOf("A", ["T2"], { T1: [0], T2: [0] }), memberOf("B", ["T2"], { T1: [1], T2: [1] })];
    expect(byTopicName(uniform.assign({ members }, topics), topics)).toEqual({ A: { T2: [0] }, B: { T2: [1] } });
  });

  it("returns unchanged members' current assignment objects", () => {
    const topics = topicsOf({ T1: 3, T2: 3 }, ["T2", "T1"]);
    const members = [memberOf("A", ["T1", "T2"], { T1: [0, 2], T2: [0] }), memberOf("B", ["T1", "T2"], { T1: [1], T2: [1, 2] })];
    const result = uniform.assign({ members }, topics);
    expect(result.members[0]?.partitions).toBe(members[0]?.currentAssignment);
    expect(result.members[1]?.partitions).toBe(members[1]?.currentAssignment);
  });
});

// UniformHeterogeneousAssignmentBuilderTest after KAFKA-17710 (members in sorted order).
describe("uniform, heterogeneous (Kafka test vectors)", () => {
  it("H1 testFirstAssignmentTwoMembersTwoTopics", () => {
    const topics = topicsOf({ T1: 3, T3: 6 });
    const members = [memberOf("A", ["T1", "T3"]), memberOf("B", ["T3"])];
    expect(byTopicName(uniform.assign({ members }, topics), topics)).toEqual({
      A: { T1: [0, 1, 2], T3: [4] },
      B: { T3: [0, 1, 2, 3, 5] },
    });
  });

  it("testTwoMembersNoTopicSubscription", () => {
    const topics = topicsOf({ T1: 3 });
    const result = uniform.assign({ members: [memberOf("A", []), memberOf("B", [])], subscriptionType: "heterogeneous" }, topics);
    expect(byTopicName(result, topics)).toEqual({ A: {}, B: {} });
  });

  it("testTwoMembersSubscribedToNonexistentTopics", () => {
    const topics = topicsOf({ T1: 3 });
    expect(() => uniform.assign({ members: [memberOf("A", ["T3"]), memberOf("B", ["T2"])] }, topicsOf({ T1: 3 }))).toThrow(
      PartitionAssignorError,
    );
    expect(topics.numPartitions(idOf("T3"))).toBe(-1);
  });

  it("testFirstAssignmentNumMembersGreaterThanTotalNumPartitions", () => {
    const topics = topicsOf({ T3: 1, T1: 2 });
    const members = [memberOf("A", ["T3"]), memberOf("B", ["T3"]), memberOf("C", ["T1"])];
    expect(byTopicName(uniform.assign({ members }, topics), topics)).toEqual({ A: { T3: [0] }, B: {}, C: { T1: [0, 1] } });
  });

  it("testReassignmentForTwoMembersThreeTopicsGivenUnbalancedPrevAssignment", () => {
    const topics = topicsOf({ T1: 6, T2: 4, T3: 4 });
    const members = [
      memberOf("A", ["T1"], { T1: [0, 1, 2] }),
      memberOf("B", ["T1", "T2"], { T1: [3], T2: [0] }),
      memberOf("C", ["T1", "T2", "T3"], { T1: [4, 5], T2: [1, 2, 3], T3: [0, 1, 2, 3] }),
    ];
    expect(byTopicName(uniform.assign({ members }, topics), topics)).toEqual({
      A: { T1: [0, 1, 2, 5] },
      B: { T1: [3], T2: [0, 1, 2, 3] },
      C: { T1: [4], T3: [0, 1, 2, 3] },
    });
  });

  it("testReassignmentWhenPartitionsAreAddedForTwoMembers", () => {
    const topics = topicsOf({ T1: 6, T2: 5, T3: 3, T4: 3 });
    const members = [
      memberOf("A", ["T1", "T3"], { T1: [0, 1, 2, 3], T3: [0, 1] }),
      memberOf("B", ["T1", "T2", "T3", "T4"], { T2: [0, 1, 2], T4: [0, 1, 2] }),
    ];
    expect(byTopicName(uniform.assign({ members }, topics), topics)).toEqual({
      A: { T1: [0, 1, 2, 3, 4, 5], T3: [0, 1, 2] },
      B: { T2: [0, 1, 2, 3, 4], T4: [0, 1, 2] },
    });
  });

  it("testReassignmentWhenOneMemberAddedAndPartitionsAddedTwoMembersTwoTopics", () => {
    const topics = topicsOf({ T1: 6, T2: 7 });
    const members = [
      memberOf("A", ["T1"], { T1: [0, 2], T2: [0] }),
      memberOf("B", ["T1", "T2"], { T1: [1], T2: [1, 2] }),
      memberOf("C", ["T1", "T2"]),
    ];
    expect(byTopicName(uniform.assign({ members }, topics), topics)).toEqual({
      A: { T1: [0, 2, 3, 4, 5] },
      B: { T1: [1], T2: [1, 2, 6] },
      C: { T2: [0, 3, 4, 5] },
    });
  });

  it("testReassignmentWhenOneMemberRemovedAfterInitialAssignmentWithThreeMembersThreeTopics", () => {
    const topics = topicsOf({ T1: 3, T2: 8, T3: 3 });
    const members = [memberOf("A", ["T1", "T3"], { T1: [0, 1, 2], T3: [0, 1] }), memberOf("B", ["T2"], { T2: [3, 4, 5, 6] })];
    expect(byTopicName(uniform.assign({ members }, topics), topics)).toEqual({
      A: { T1: [0, 1, 2], T3: [0, 1, 2] },
      B: { T2: [0, 1, 2, 3, 4, 5, 6, 7] },
    });
  });

  it("testReassignmentWhenOneSubscriptionRemovedAfterInitialAssignmentWithTwoMembersTwoTopics", () => {
    const topics = topicsOf({ T1: 3, T2: 5 });
    const members = [memberOf("A", ["T1"], { T1: [0, 2], T2: [1, 3] }), memberOf("B", ["T1", "T2"], { T1: [1], T2: [0, 2, 4] })];
    expect(byTopicName(uniform.assign({ members }, topics), topics)).toEqual({ A: { T1: [0, 1, 2] }, B: { T2: [0, 1, 2, 3, 4] } });
  });

  it("testReassignmentWhenTopicPartitionsRunOutAndMembersHaveNoPartitions", () => {
    const topics = topicsOf({ T1: 2, T2: 2, T3: 2 });
    const members = [memberOf("A", ["T1", "T2", "T3"], { T1: [0, 1], T2: [0, 1], T3: [0, 1] }), memberOf("B", ["T1", "T2", "T3"])];
    const result = uniform.assign({ members, subscriptionType: "heterogeneous" }, topics);
    expect(byTopicName(result, topics)).toEqual({ A: { T2: [0], T3: [0, 1] }, B: { T1: [0, 1], T2: [1] } });
  });

  it("testFirstAssignmentWithTwoMembersIncludingOneWithoutSubscriptions", () => {
    const topics = topicsOf({ T1: 3 });
    const members = [memberOf("A", ["T1"]), memberOf("B", [])];
    expect(byTopicName(uniform.assign({ members }, topics), topics)).toEqual({ A: { T1: [0, 1, 2] }, B: {} });
  });
});
