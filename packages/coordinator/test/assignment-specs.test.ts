import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { assignmentMemberSpecOf } from "../src/consumer-group/assignment-specs.js";
import type { SubscriptionMetadata } from "../src/consumer-group/subscription-metadata.js";
import { ConsumerGroup, isReconciledTo, MemberState, newConsumerGroupMember, type TopicIdPartitions } from "../src/index.js";

const TOPICS = ["a", "b", "c", "d"];
const metadataOf = (names: readonly string[]): SubscriptionMetadata =>
  names.map((name, index) => ({ topicId: `id-${name}`, name, numPartitions: 3 + index }));
const METADATA = [metadataOf(["a", "b"]), metadataOf(["a", "b", "c", "d"]), metadataOf(["c"])];

/** One change of the group, as record replay makes them. */
type Step =
  | { kind: "upsert"; member: number; topics: string[]; instance: number | null; stable: boolean; epoch: number }
  | { kind: "remove"; member: number }
  | { kind: "target"; member: number; partitions: number[] }
  | { kind: "untarget"; member: number }
  | { kind: "metadata"; version: number; fresh: boolean }
  | { kind: "epoch"; epoch: number }
  | { kind: "check" };

const memberIndex = fc.integer({ min: 0, max: 7 });
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant("upsert" as const),
    member: memberIndex,
    topics: fc.subarray(TOPICS),
    instance: fc.option(fc.integer({ min: 0, max: 2 }), { nil: null }),
    stable: fc.boolean(),
    epoch: fc.integer({ min: 0, max: 3 }),
  }),
  fc.record({ kind: fc.constant("remove" as const), member: memberIndex }),
  fc.record({
    kind: fc.constant("target" as const),
    member: memberIndex,
    partitions: fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 4 }),
  }),
  fc.record({ kind: fc.constant("untarget" as const), member: memberIndex }),
  fc.record({ kind: fc.constant("metadata" as const), version: fc.integer({ min: 0, max: 2 }), fresh: fc.boolean() }),
  fc.record({ kind: fc.constant("epoch" as const), epoch: fc.integer({ min: 0, max: 3 }) }),
  fc.constant({ kind: "check" as const }),
);

/** What the specs must be: one per member in join order, built from scratch. */
function specsFromScratch(group: ConsumerGroup) {
  return [...group.members().values()].map((member) =>
    assignmentMemberSpecOf(member, group.targetOf(member.memberId), group.subscriptionMetadata),
  );
}

function expectedState(group: ConsumerGroup): string {
  const members = [...group.members().values()];
  if (members.length === 0) return "EMPTY";
  if (group.groupEpoch > group.assignmentEpoch) return "ASSIGNING";
  return members.every((member) => isReconciledTo(member, group.assignmentEpoch)) ? "STABLE" : "RECONCILING";
}

function apply(group: ConsumerGroup, change: Step): void {
  const memberId = (index: number) => `m${index}`;
  switch (change.kind) {
    case "upsert": {
      const id = memberId(change.member);
      const instanceId = change.instance === null ? null : `i${change.instance}`;
      const holder = instanceId === null ? undefined : group.staticMember(instanceId);
      if (holder !== undefined && holder.memberId !== id) return; // one holder per instance id
      group.updateMember({
        ...(group.member(id) ?? newConsumerGroupMember(id)),
        // A new array each time, as a MemberMetadata record's replay gives.
        subscribedTopicNames: [...change.topics],
        instanceId,
        state: change.stable ? MemberState.STABLE : MemberState.UNREVOKED_PARTITIONS,
        memberEpoch: change.epoch,
      });
      return;
    }
    case "remove":
      if (group.hasMember(memberId(change.member))) group.removeMember(memberId(change.member));
      return;
    case "target": {
      const target: TopicIdPartitions[] = change.partitions.length === 0 ? [] : [{ topicId: "id-a", partitions: change.partitions }];
      group.setTarget(memberId(change.member), target);
      return;
    }
    case "untarget":
      group.removeTarget(memberId(change.member));
      return;
    case "metadata": {
      const metadata = METADATA[change.version]!;
      group.setSubscriptionMetadata(change.fresh ? metadata.map((topic) => ({ ...topic })) : metadata);
      return;
    }
    case "epoch":
      group.setGroupEpoch(change.epoch);
      group.setAssignmentEpoch(change.epoch);
      return;
    case "check":
      expect(group.assignmentSpecs()).toEqual(specsFromScratch(group));
      return;
  }
}

describe("the group's assignment specs, kept between assignments", () => {
  it("equal specs built from scratch after any joins, leaves, subscription, target and metadata changes", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const group = new ConsumerGroup("g");
        for (const change of steps) {
          apply(group, change);
          expect(group.state()).toBe(expectedState(group));
        }
        expect(group.assignmentSpecs()).toEqual(specsFromScratch(group));
      }),
      { numRuns: 500 },
    );
  });

  it("keep the spec object of a member that did not change, and the same list", () => {
    const group = new ConsumerGroup("g");
    group.setSubscriptionMetadata(METADATA[0]!);
    group.updateMember({ ...newConsumerGroupMember("x"), subscribedTopicNames: ["a"] });
    group.updateMember({ ...newConsumerGroupMember("y"), subscribedTopicNames: ["a"] });
    const first = group.assignmentSpecs();
    const x = first[0];
    group.setTarget("y", [{ topicId: "id-a", partitions: [0] }]);
    group.updateMember({ ...newConsumerGroupMember("z"), subscribedTopicNames: ["a"] });
    const second = group.assignmentSpecs();
    expect(second).toBe(first);
    expect(second[0]).toBe(x);
    expect(second.map((spec) => spec.memberId)).toEqual(["x", "y", "z"]);
    expect(second[1]?.currentAssignment).toEqual([{ topicId: "id-a", partitions: [0] }]);
  });
});
