import { topicIdFor } from "@kcsim/protocol";
import type { GroupAssignment } from "./group-assignment.js";
import type { AssignmentMemberSpec, GroupSpec, SubscriptionType } from "./group-spec.js";
import type { ServerAssignorName } from "./server-assignor.js";
import { serverAssignorNamed } from "./server-assignors.js";
import { SubscribedTopicDescriber, type TopicMetadata } from "./subscribed-topic-describer.js";

/**
 * Inputs shaped like Kafka's `ServerSideAssignorBenchmark` (jmh-benchmarks),
 * for comparing the assignors with Kafka's published timings.
 *
 * - homogeneous: every member subscribes to every topic;
 * - heterogeneous: members alternate between all topics and the first half
 *   of them (half and half);
 * - first assignment: nobody owns anything;
 * - member join: N - 1 members hold the target the same assignor computed
 *   for them, and one more member ("newMember", last in order; subscribed
 *   like member N - 2, as Kafka does) joins.
 *
 * Like Kafka's, the subscription type is given, not computed, and members of
 * one subscription share its topic-id array.
 */
export interface AssignorBenchmarkShape {
  readonly memberCount: number;
  readonly topicCount: number;
  readonly partitionsPerTopic: number;
  readonly subscriptionType: SubscriptionType;
}

export interface AssignorBenchmarkInput {
  readonly spec: GroupSpec;
  readonly topics: SubscribedTopicDescriber;
}

export type AssignorBenchmarkScenario = "first-assignment" | "member-join";

/** One benchmark case with Kafka's reported time when there is one. */
export interface AssignorBenchmarkCase {
  readonly name: string;
  readonly assignor: ServerAssignorName;
  readonly scenario: AssignorBenchmarkScenario;
  readonly shape: AssignorBenchmarkShape;
  /** Kafka's Java time for the same case in ms, when known. */
  readonly kafkaMs: number | null;
}

/** `topicCount` topics named `topic<i>` with `partitionsPerTopic` partitions each. */
export function benchmarkTopics(topicCount: number, partitionsPerTopic: number): SubscribedTopicDescriber {
  const topics: TopicMetadata[] = [];
  for (let i = 0; i < topicCount; i++) {
    const name = `topic${i}`;
    topics.push({ topicId: topicIdFor(name), name, numPartitions: partitionsPerTopic });
  }
  return new SubscribedTopicDescriber(topics);
}

function subscriptions(topics: SubscribedTopicDescriber): { all: readonly string[]; half: readonly string[] } {
  const all = topics.topics.map((topic) => topic.topicId);
  return { all, half: all.slice(0, Math.max(1, Math.floor(all.length / 2))) };
}

function subscriptionOf(
  shape: AssignorBenchmarkShape,
  memberIndex: number,
  all: readonly string[],
  half: readonly string[],
): readonly string[] {
  return shape.subscriptionType === "homogeneous" || memberIndex % 2 === 0 ? all : half;
}

/** Everyone joins at once: nobody owns anything. */
export function firstAssignmentInput(shape: AssignorBenchmarkShape): AssignorBenchmarkInput {
  const topics = benchmarkTopics(shape.topicCount, shape.partitionsPerTopic);
  const { all, half } = subscriptions(topics);
  const members: AssignmentMemberSpec[] = [];
  for (let i = 0; i < shape.memberCount; i++) {
    members.push({
      memberId: `member${i}`,
      instanceId: null,
      subscribedTopicIds: subscriptionOf(shape, i, all, half),
      currentAssignment: [],
    });
  }
  return { spec: { members, subscriptionType: shape.subscriptionType }, topics };
}

/** N - 1 members already hold their targets (computed by `assignor`), then one more member joins. */
export function memberJoinInput(assignor: ServerAssignorName, shape: AssignorBenchmarkShape): AssignorBenchmarkInput {
  const implementation = serverAssignorNamed(assignor);
  if (implementation === undefined) throw new RangeError(`unknown assignor ${assignor}`);
  const before = firstAssignmentInput({ ...shape, memberCount: shape.memberCount - 1 });
  const previous: GroupAssignment = implementation.assign(before.spec, before.topics);
  const members: AssignmentMemberSpec[] = before.spec.members.map((member, i) => ({
    ...member,
    currentAssignment: previous.members[i]?.partitions ?? [],
  }));
  const { all, half } = subscriptions(before.topics);
  members.push({
    memberId: "newMember",
    instanceId: null,
    subscribedTopicIds: subscriptionOf(shape, shape.memberCount - 2, all, half),
    currentAssignment: [],
  });
  return { spec: { members, subscriptionType: shape.subscriptionType }, topics: before.topics };
}

/** Builds the input of a case. */
export function benchmarkCaseInput(benchmarkCase: AssignorBenchmarkCase): AssignorBenchmarkInput {
  return benchmarkCase.scenario === "first-assignment"
    ? firstAssignmentInput(benchmarkCase.shape)
    : memberJoinInput(benchmarkCase.assignor, benchmarkCase.shape);
}

/**
 * The cases of the comparison at 1,000 members x 10,000 partitions and
 * 10,000 x 100,000 (100 topics each time), with Kafka's times.
 */
export function assignorBenchmarkCases(): AssignorBenchmarkCase[] {
  const sizes = [
    { memberCount: 1_000, topicCount: 100, partitionsPerTopic: 100, kafka: [0.47, 0.18, 9.4, null, 0.89] },
    { memberCount: 10_000, topicCount: 100, partitionsPerTopic: 1_000, kafka: [12.8, 8.8, 1_339, null, 45] },
  ] as const;
  const cases: AssignorBenchmarkCase[] = [];
  for (const size of sizes) {
    const label = `${size.memberCount} members x ${size.topicCount * size.partitionsPerTopic} partitions`;
    const shape = (subscriptionType: SubscriptionType): AssignorBenchmarkShape => ({
      memberCount: size.memberCount,
      topicCount: size.topicCount,
      partitionsPerTopic: size.partitionsPerTopic,
      subscriptionType,
    });
    const [homogeneousFirst, homogeneousJoin, heterogeneousFirst, heterogeneousJoin, rangeFirst] = size.kafka;
    cases.push(
      {
        name: `uniform homogeneous first assignment, ${label}`,
        assignor: "uniform",
        scenario: "first-assignment",
        shape: shape("homogeneous"),
        kafkaMs: homogeneousFirst,
      },
      {
        name: `uniform homogeneous member join, ${label}`,
        assignor: "uniform",
        scenario: "member-join",
        shape: shape("homogeneous"),
        kafkaMs: homogeneousJoin,
      },
      {
        name: `uniform heterogeneous first assignment, ${label}`,
        assignor: "uniform",
        scenario: "first-assignment",
        shape: shape("heterogeneous"),
        kafkaMs: heterogeneousFirst,
      },
      {
        name: `uniform heterogeneous member join, ${label}`,
        assignor: "uniform",
        scenario: "member-join",
        shape: shape("heterogeneous"),
        kafkaMs: heterogeneousJoin,
      },
      {
        name: `range homogeneous first assignment, ${label}`,
        assignor: "range",
        scenario: "first-assignment",
        shape: shape("homogeneous"),
        kafkaMs: rangeFirst,
      },
    );
  }
  return cases;
}

/** Warm timing of one case. */
export interface AssignorBenchmarkTiming {
  readonly medianMs: number;
  readonly minMs: number;
  readonly iterations: number;
}

/**
 * Runs a case `warmup` times (V8 needs a few hundred runs of the small cases
 * to finish optimizing), then times `iterations` runs.
 */
export function measureAssignorBenchmarkCase(benchmarkCase: AssignorBenchmarkCase, warmup = 200, iterations = 51): AssignorBenchmarkTiming {
  const assignor = serverAssignorNamed(benchmarkCase.assignor);
  if (assignor === undefined) throw new RangeError(`unknown assignor ${benchmarkCase.assignor}`);
  const { spec, topics } = benchmarkCaseInput(benchmarkCase);
  for (let i = 0; i < warmup; i++) assignor.assign(spec, topics);
  const times: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const start = performance.now();
    assignor.assign(spec, topics);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const middle = Math.floor(times.length / 2);
  const medianMs = times.length % 2 === 1 ? (times[middle] ?? 0) : ((times[middle - 1] ?? 0) + (times[middle] ?? 0)) / 2;
  return { medianMs, minMs: times[0] ?? 0, iterations };
}
