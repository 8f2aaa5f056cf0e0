import { describe, expect, it } from "vitest";
import { CurrentAssignmentBuilder, type MemberReconciliationState, MemberState } from "../src/index.js";

/** A STABLE member at epoch 5 owning T-0 and T-1; the target at epoch 6 keeps only T-0. */
const member: MemberReconciliationState = {
  state: MemberState.STABLE,
  memberEpoch: 5,
  previousMemberEpoch: 4,
  assignedPartitions: [{ topicId: "T", partitions: [0, 1] }],
  partitionsPendingRevocation: [],
};

function next(assumeRevoked: boolean) {
  const result = new CurrentAssignmentBuilder(member)
    .withTargetAssignment(6, [{ topicId: "T", partitions: [0] }])
    .withCurrentPartitionEpoch(() => -1)
    .withOwnedTopicPartitions([{ topicId: "T", partitions: [0, 1] }])
    .withRevocationAssumedAcknowledged(assumeRevoked)
    .build();
  if (result.kind !== "reconciled") throw new Error(result.message);
  return result.member;
}

describe("planted bug assign-before-revoke (CurrentAssignmentBuilder)", () => {
  it("normally waits in UNREVOKED_PARTITIONS until the member stops listing the revoked partition", () => {
    const m = next(false);
    expect(m.state).toBe(MemberState.UNREVOKED_PARTITIONS);
    expect(m.memberEpoch).toBe(5);
    expect(m.partitionsPendingRevocation).toEqual([{ topicId: "T", partitions: [1] }]);
  });

  it("with the bug moves straight to the new epoch, freeing T-1 while the member still owns it", () => {
    const m = next(true);
    expect(m.state).toBe(MemberState.STABLE);
    expect(m.memberEpoch).toBe(6);
    expect(m.partitionsPendingRevocation).toEqual([]);
    expect(m.assignedPartitions).toEqual([{ topicId: "T", partitions: [0] }]);
  });
});
