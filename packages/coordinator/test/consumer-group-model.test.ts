import { topicIdFor } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { PartitionEpochs } from "../src/consumer-group/partition-epochs.js";
import { ConsumerGroup, IllegalStateError, MemberState, newConsumerGroupMember, RecordType } from "../src/index.js";
import {
  CoordinatorUnderTest,
  converge,
  coordinatorConfig,
  FakeDurableLog,
  heartbeatRequest,
  SimulatedMember,
} from "./coordinator-test-kit.js";

const FOO = { name: "foo", id: topicIdFor("foo"), partitions: 6 };

describe("partition epochs", () => {
  it("refuses a second owner and a removal at the wrong epoch", () => {
    const epochs = new PartitionEpochs();
    epochs.add([{ topicId: "t", partitions: [1, 2] }], 5);
    expect(epochs.epochOf("t", 1)).toBe(5);
    expect(epochs.epochOf("t", 3)).toBe(-1);
    expect(() => epochs.add([{ topicId: "t", partitions: [2] }], 6)).toThrow(IllegalStateError);
    expect(() => epochs.remove([{ topicId: "t", partitions: [1] }], 4)).toThrow(IllegalStateError);
    epochs.remove([{ topicId: "t", partitions: [1, 2] }], 5);
    epochs.add([{ topicId: "t", partitions: [2, 40] }], 7);
    expect(epochs.epochOf("t", 40)).toBe(7);
  });

  it("a group refuses a member that would take a partition another member holds", () => {
    const group = new ConsumerGroup("g");
    group.updateMember({ ...newConsumerGroupMember("a"), memberEpoch: 1, assignedPartitions: [{ topicId: "t", partitions: [0] }] });
    expect(() =>
      group.updateMember({ ...newConsumerGroupMember("b"), memberEpoch: 1, assignedPartitions: [{ topicId: "t", partitions: [0] }] }),
    ).toThrow(IllegalStateError);
  });
});

describe("group state", () => {
  it("is EMPTY, ASSIGNING, RECONCILING, STABLE as members, epochs and reconciliation say", () => {
    const group = new ConsumerGroup("g");
    expect(group.state()).toBe("EMPTY");
    group.updateMember({ ...newConsumerGroupMember("a") });
    group.setGroupEpoch(1);
    expect(group.state()).toBe("ASSIGNING");
    group.setAssignmentEpoch(1);
    expect(group.state()).toBe("RECONCILING");
    group.updateMember({ ...newConsumerGroupMember("a"), memberEpoch: 1, state: MemberState.STABLE });
    expect(group.state()).toBe("STABLE");
    group.updateMember({ ...newConsumerGroupMember("a"), memberEpoch: 1, state: MemberState.UNREVOKED_PARTITIONS });
    expect(group.state()).toBe("RECONCILING");
  });
});

describe("the lost-response vector of spec 3.2 (stored epoch 100, previous 99, assigned foo[1,2,3])", () => {
  it("fences 200, 50 and 99 without partitions; accepts 99 with foo[1,2] at epoch 100", () => {
    const storage = new FakeDurableLog();
    const key = { groupId: "g" };
    const member = { groupId: "g", memberId: "m" };
    const assigned = [{ topicId: FOO.id, partitions: [1, 2, 3] }];
    storage.append({
      type: RecordType.ConsumerGroupMemberMetadata,
      key: member,
      value: {
        instanceId: null,
        rackId: null,
        clientId: "c",
        clientHost: "m",
        subscribedTopicNames: ["foo"],
        subscribedTopicRegex: "",
        rebalanceTimeoutMs: 5000,
        serverAssignor: null,
      },
    });
    storage.append({
      type: RecordType.ConsumerGroupPartitionMetadata,
      key,
      value: { topics: [{ topicId: FOO.id, topicName: "foo", numPartitions: 6, partitionMetadata: [] }] },
    });
    storage.append({ type: RecordType.ConsumerGroupMetadata, key, value: { epoch: 100 } });
    storage.append({ type: RecordType.ConsumerGroupTargetAssignmentMember, key: member, value: { topicPartitions: assigned } });
    storage.append({ type: RecordType.ConsumerGroupTargetAssignmentMetadata, key, value: { assignmentEpoch: 100 } });
    storage.append({
      type: RecordType.ConsumerGroupCurrentMemberAssignment,
      key: member,
      value: { memberEpoch: 100, previousMemberEpoch: 99, state: 0, assignedPartitions: assigned, partitionsPendingRevocation: [] },
    });
    const gc = new CoordinatorUnderTest(coordinatorConfig({ topics: [FOO] }), storage);
    const at = (memberEpoch: number, partitions: number[] | null) =>
      gc.heartbeat(
        heartbeatRequest({ memberId: "m", memberEpoch, topicPartitions: partitions === null ? null : [{ topicId: FOO.id, partitions }] }),
      );
    expect(at(200, [1, 2, 3]).errorCode).toBe(110);
    expect(at(50, [1, 2, 3]).errorCode).toBe(110);
    expect(at(99, null).errorCode).toBe(110);
    expect(at(99, [1, 2])).toMatchObject({ errorCode: 0, memberEpoch: 100 });
  });
});

describe("member order", () => {
  it("the assignor sees members in join order, live and after a restart", () => {
    const gc = new CoordinatorUnderTest(coordinatorConfig({ topics: [{ ...FOO, partitions: 4 }] }));
    const members = ["z", "a", "m"].map((id) => new SimulatedMember(id, ["foo"]));
    for (let i = 1; i <= members.length; i++) converge(gc, members.slice(0, i));
    // 4 partitions over 3 members: the first member in order keeps the extra slot.
    expect(gc.group().members.map((m) => [m.memberId, Object.values(m.assigned).flat().length])).toEqual([
      ["z", 2],
      ["a", 1],
      ["m", 1],
    ]);
    const before = gc.group();
    gc.restart();
    expect(gc.group()).toEqual(before);
  });
});
