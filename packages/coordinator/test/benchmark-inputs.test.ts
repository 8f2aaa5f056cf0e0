import { describe, expect, it } from "vitest";
import {
  assignorBenchmarkCases,
  firstAssignmentInput,
  measureAssignorBenchmarkCase,
  memberJoinInput,
  UniformAssignor,
} from "../src/index.js";

describe("assignor benchmark inputs", () => {
  const shape = { memberCount: 20, topicCount: 10, partitionsPerTopic: 10, subscriptionType: "heterogeneous" as const };

  it("builds a first assignment with half the members on half the topics", () => {
    const { spec, topics } = firstAssignmentInput(shape);
    expect(spec.members).toHaveLength(20);
    expect(topics.totalPartitions).toBe(100);
    expect(spec.members[0]?.subscribedTopicIds).toHaveLength(10);
    expect(spec.members[1]?.subscribedTopicIds).toHaveLength(5);
    expect(spec.members.every((m) => m.currentAssignment.length === 0)).toBe(true);
  });

  it("builds a member join: N - 1 members holding their targets, then newMember", () => {
    const { spec } = memberJoinInput("uniform", { ...shape, subscriptionType: "homogeneous" });
    expect(spec.members).toHaveLength(20);
    expect(spec.members.at(-1)?.memberId).toBe("newMember");
    expect(spec.members.slice(0, -1).every((m) => m.currentAssignment.length > 0)).toBe(true);
  });

  it("a join on the homogeneous input moves only what the joiner gets", () => {
    const input = memberJoinInput("uniform", { ...shape, subscriptionType: "homogeneous" });
    const result = new UniformAssignor().assign(input.spec, input.topics);
    const unchanged = result.members.filter((m, i) => m.partitions === input.spec.members[i]?.currentAssignment).length;
    // 100 partitions over 19 members: 5 members held 6; over 20 all hold 5: those 5 give one each.
    expect(unchanged).toBe(14);
  });

  it("lists both sizes of every case and measures one", () => {
    const cases = assignorBenchmarkCases();
    expect(cases).toHaveLength(10);
    const small = cases[0];
    if (small === undefined) throw new Error("no case");
    const timing = measureAssignorBenchmarkCase(small, 1, 3);
    expect(timing.iterations).toBe(3);
    expect(timing.medianMs).toBeGreaterThan(0);
  });
});
