import { describe, expect, it } from "vitest";
import { PartitionAssignorError, RangeAssignor } from "../src/index.js";
import { byTopicName, memberOf, topicsOf } from "./assignor-test-kit.js";

const range = new RangeAssignor();

// group-coordinator RangeAssignorTest (KAFKA-16944 rewrite; rack-aware cases left out).
describe("range (Kafka test vectors)", () => {
  it("R1 testFirstAssignmentThreeMembersThreeTopicsDifferentSubscriptions", () => {
    const topics = topicsOf({ T1: 3, T2: 3, T3: 2 });
    const members = [memberOf("A", ["T1", "T2"]), memberOf("B", ["T3"]), memberOf("C", ["T2", "T3"])];
    expect(byTopicName(range.assign({ members }, topics), topics)).toEqual({
      A: { T1: [0, 1, 2], T2: [0, 1] },
      B: { T3: [0] },
      C: { T2: [2], T3: [1] },
    });
  });

  it("testOneMemberNoTopic", () => {
    const topics = topicsOf({});
    expect(byTopicName(range.assign({ members: [memberOf("A", [])] }, topics), topics)).toEqual({ A: {} });
  });

  it("testOneMemberSubscribedToNonExistentTopic", () => {
    expect(() => range.assign({ members: [memberOf("A", ["T2"])] }, topicsOf({ T1: 3 }))).toThrow(PartitionAssignorError);
  });

  it("testFirstAssignmentTwoMembersTwoTopicsSameSubscriptions", () => {
    const topics = topicsOf({ T1: 3, T3: 2 });
    const members = [memberOf("A", ["T1", "T3"]), memberOf("B", ["T1", "T3"])];
    expect(byTopicName(range.assign({ members }, topics), topics)).toEqual({ A: { T1: [0, 1], T3: [0] }, B: { T1: [2], T3: [1] } });
  });

  it("testFirstAssignmentNumMembersGreaterThanNumPartitions", () => {
    const topics = topicsOf({ T1: 3, T3: 2 });
    const members = ["A", "B", "C"].map((id) => memberOf(id, ["T1", "T3"]));
    expect(byTopicName(range.assign({ members }, topics), topics)).toEqual({
      A: { T1: [0], T3: [0] },
      B: { T1: [1], T3: [1] },
      C: { T1: [2] },
    });
  });

  it("testStaticMembership", () => {
    const topics = topicsOf({ T1: 3 });
    const before = range.assign({ members: [memberOf("A", ["T1"], {}, "instanceA"), memberOf("B", ["T1"], {}, "instanceB")] }, topics);
    const after = range.assign(
      { members: [memberOf("B", ["T1"], {}, "instanceB"), memberOf("memberA1", ["T1"], {}, "instanceA")] },
      topics,
    );
    const b = byTopicName(before, topics);
    const a = byTopicName(after, topics);
    expect(a.memberA1).toEqual(b.A);
    expect(a.B).toEqual(b.B);
    expect(b).toEqual({ A: { T1: [0, 1] }, B: { T1: [2] } });
  });

  it("testMixedStaticMembership", () => {
    const topics = topicsOf({ T1: 5 });
    const before = byTopicName(
      range.assign(
        { members: [memberOf("A", ["T1"], {}, "instanceA"), memberOf("B", ["T1"]), memberOf("C", ["T1"], {}, "instanceC")] },
        topics,
      ),
      topics,
    );
    const after = byTopicName(
      range.assign(
        { members: [memberOf("B", ["T1"]), memberOf("C", ["T1"], {}, "instanceC"), memberOf("memberA1", ["T1"], {}, "instanceA")] },
        topics,
      ),
      topics,
    );
    expect(after.memberA1).toEqual(before.A);
    expect(after.B).toEqual(before.B);
    expect(after.C).toEqual(before.C);
    // Static members first by instance id, then dynamic ones by member id.
    expect(before).toEqual({ A: { T1: [0, 1] }, C: { T1: [2, 3] }, B: { T1: [4] } });
  });

  it("testReassignmentNumMembersGreaterThanNumPartitionsWhenOneMemberAdded", () => {
    const topics = topicsOf({ T1: 2, T2: 2 });
    const members = [
      memberOf("A", ["T1", "T2"], { T1: [0], T2: [0] }),
      memberOf("B", ["T1", "T2"], { T1: [1], T2: [1] }),
      memberOf("C", ["T1", "T2"]),
    ];
    const result = range.assign({ members }, topics);
    expect(byTopicName(result, topics)).toEqual({ A: { T1: [0], T2: [0] }, B: { T1: [1], T2: [1] }, C: {} });
    // Unchanged targets come back as the very same objects.
    expect(result.members[0]?.partitions).toBe(members[0]?.currentAssignment);
    expect(result.members[1]?.partitions).toBe(members[1]?.currentAssignment);
  });

  it("testReassignmentWhenOnePartitionAddedForTwoMembersTwoTopics", () => {
    const topics = topicsOf({ T1: 4, T2: 4 });
    const members = [memberOf("A", ["T1", "T2"], { T1: [0, 1], T2: [0, 1] }), memberOf("B", ["T1", "T2"], { T1: [2], T2: [2] })];
    expect(byTopicName(range.assign({ members }, topics), topics)).toEqual({
      A: { T1: [0, 1], T2: [0, 1] },
      B: { T1: [2, 3], T2: [2, 3] },
    });
  });

  it("testReassignmentWhenOneMemberAddedAfterInitialAssignmentWithTwoMembersTwoTopics", () => {
    const topics = topicsOf({ T1: 3, T2: 3 });
    const members = [
      memberOf("A", ["T1", "T2"], { T1: [0, 1], T2: [0, 1] }),
      memberOf("B", ["T1", "T2"], { T1: [2], T2: [2] }),
      memberOf("C", ["T1", "T2"]),
    ];
    expect(byTopicName(range.assign({ members }, topics), topics)).toEqual({
      A: { T1: [0], T2: [0] },
      B: { T1: [1], T2: [1] },
      C: { T1: [2], T2: [2] },
    });
  });

  it("testReassignmentWhenOneMemberAddedAndOnePartitionAfterInitialAssignmentWithTwoMembersTwoTopics", () => {
    const topics = topicsOf({ T1: 4, T2: 3 });
    const members = [
      memberOf("A", ["T1", "T2"], { T1: [0, 1], T2: [0, 1] }),
      memberOf("B", ["T1", "T2"], { T1: [2], T2: [2] }),
      memberOf("C", ["T1"]),
    ];
    expect(byTopicName(range.assign({ members, subscriptionType: "heterogeneous" }, topics), topics)).toEqual({
      A: { T1: [0, 1], T2: [0, 1] },
      B: { T1: [2], T2: [2] },
      C: { T1: [3] },
    });
  });

  it("testReassignmentWhenOneMemberRemovedAfterInitialAssignmentWithTwoMembersTwoTopics", () => {
    const topics = topicsOf({ T1: 3, T2: 3 });
    const members = [memberOf("B", ["T1", "T2"], { T1: [2], T2: [2] })];
    expect(byTopicName(range.assign({ members }, topics), topics)).toEqual({ B: { T1: [0, 1, 2], T2: [0, 1, 2] } });
  });

  it("testReassignmentWhenMultipleSubscriptionsRemovedAfterInitialAssignmentWithThreeMembersTwoTopics", () => {
    const topics = topicsOf({ T1: 3, T2: 3, T3: 2 });
    const members = [
      memberOf("A", ["T1"], { T1: [0, 1, 2], T2: [0] }),
      memberOf("B", ["T1", "T2", "T3"], { T2: [1] }),
      memberOf("C", ["T2"], { T2: [2], T3: [0, 1] }),
    ];
    expect(byTopicName(range.assign({ members }, topics), topics)).toEqual({
      A: { T1: [0, 1] },
      B: { T1: [2], T2: [0, 1], T3: [0, 1] },
      C: { T2: [2] },
    });
  });
});
