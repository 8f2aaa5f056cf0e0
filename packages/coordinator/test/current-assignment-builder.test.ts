import { ErrorCode } from "@kcsim/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  CurrentAssignmentBuilder,
  type CurrentPartitionEpoch,
  type MemberReconciliationState,
  MemberState,
  normalizeAssignment,
  type TopicIdPartitions,
} from "../src/index.js";

type Partitions = Record<string, readonly number[]>;

function tp(partitions: Partitions): TopicIdPartitions[] {
  return Object.entries(partitions).map(([topicId, list]) => ({ topicId, partitions: list }));
}

interface TestMember extends MemberReconciliationState {
  readonly memberId: string;
}

function member(
  state: MemberState,
  memberEpoch: number,
  previousMemberEpoch: number,
  assigned: Partitions,
  pending: Partitions = {},
): TestMember {
  return {
    memberId: "member",
    state,
    memberEpoch,
    previousMemberEpoch,
    assignedPartitions: tp(assigned),
    partitionsPendingRevocation: tp(pending),
  };
}

function reconcile(
  current: TestMember,
  targetEpoch: number,
  target: Partitions,
  partitionEpoch: CurrentPartitionEpoch,
  owned: Partitions | null = null,
): TestMember {
  const result = new CurrentAssignmentBuilder(current)
    .withTargetAssignment(targetEpoch, tp(target))
    .withCurrentPartitionEpoch(partitionEpoch)
    .withOwnedTopicPartitions(owned === null ? null : tp(owned))
    .build();
  if (result.kind !== "reconciled") throw new Error(`fenced: ${result.message}`);
  return result.member;
}

/** Compares members with assignments as sets. */
function view(m: TestMember) {
  return {
    memberId: m.memberId,
    state: m.state,
    memberEpoch: m.memberEpoch,
    previousMemberEpoch: m.previousMemberEpoch,
    assignedPartitions: normalizeAssignment(m.assignedPartitions, ["t1", "t2"]),
    partitionsPendingRevocation: normalizeAssignment(m.partitionsPendingRevocation, ["t1", "t2"]),
  };
}

const free: CurrentPartitionEpoch = () => -1;
const ownedAt =
  (epoch: number): CurrentPartitionEpoch =>
  () =>
    epoch;

// Spec 3.2 vectors and group-coordinator CurrentAssignmentBuilderTest (cases that exist in 4.0).
describe("CurrentAssignmentBuilder (Kafka test vectors)", () => {
  it("C1 testStableToUnrevokedPartitions", () => {
    const next = reconcile(
      member(MemberState.STABLE, 10, 10, { t1: [1, 2, 3], t2: [4, 5, 6] }),
      11,
      { t1: [2, 3, 4], t2: [5, 6, 7] },
      free,
    );
    expect(view(next)).toEqual(view(member(MemberState.UNREVOKED_PARTITIONS, 10, 10, { t1: [2, 3], t2: [5, 6] }, { t1: [1], t2: [4] })));
  });

  it("C2 testUnrevokedPartitionsToStable", () => {
    const current = member(MemberState.UNREVOKED_PARTITIONS, 10, 10, { t1: [2, 3], t2: [5, 6] }, { t1: [1], t2: [4] });
    const next = reconcile(current, 11, { t1: [2, 3], t2: [5, 6] }, free, { t1: [2, 3], t2: [5, 6] });
    expect(view(next)).toEqual(view(member(MemberState.STABLE, 11, 10, { t1: [2, 3], t2: [5, 6] })));
  });

  it("C4 testStableToUnreleasedPartitions", () => {
    const next = reconcile(
      member(MemberState.STABLE, 10, 10, { t1: [1, 2, 3], t2: [4, 5, 6] }),
      11,
      { t1: [1, 2, 3, 4], t2: [4, 5, 6, 7] },
      ownedAt(10),
    );
    expect(view(next)).toEqual(view(member(MemberState.UNRELEASED_PARTITIONS, 11, 10, { t1: [1, 2, 3], t2: [4, 5, 6] })));
  });

  it("testStableToStable", () => {
    const next = reconcile(
      member(MemberState.STABLE, 10, 10, { t1: [1, 2, 3], t2: [4, 5, 6] }),
      11,
      { t1: [1, 2, 3], t2: [4, 5, 6] },
      ownedAt(10),
    );
    expect(view(next)).toEqual(view(member(MemberState.STABLE, 11, 10, { t1: [1, 2, 3], t2: [4, 5, 6] })));
  });

  it("testStableToStableWithNewPartitions", () => {
    const next = reconcile(
      member(MemberState.STABLE, 10, 10, { t1: [1, 2, 3], t2: [4, 5, 6] }),
      11,
      { t1: [1, 2, 3, 4], t2: [4, 5, 6, 7] },
      free,
    );
    expect(view(next)).toEqual(view(member(MemberState.STABLE, 11, 10, { t1: [1, 2, 3, 4], t2: [4, 5, 6, 7] })));
  });

  it("testStableToUnreleasedPartitionsWithOwnedPartitionsNotHavingRevokedPartitions", () => {
    const next = reconcile(
      member(MemberState.STABLE, 10, 10, { t1: [1, 2, 3], t2: [4, 5, 6] }),
      11,
      { t1: [1, 2, 3], t2: [4, 5, 7] },
      (topicId) => (topicId === "t2" ? 10 : -1),
      {},
    );
    expect(view(next)).toEqual(view(member(MemberState.UNRELEASED_PARTITIONS, 11, 10, { t1: [1, 2, 3], t2: [4, 5] })));
  });

  it("testRemainsInUnrevokedPartitions", () => {
    const current = member(MemberState.UNREVOKED_PARTITIONS, 10, 10, { t1: [2, 3], t2: [5, 6] }, { t1: [1], t2: [4] });
    const target = { t1: [3], t2: [6] };
    expect(reconcile(current, 12, target, free, null)).toBe(current);
    expect(reconcile(current, 12, target, free, { t1: [1, 2, 3], t2: [5, 6] })).toBe(current);
    expect(reconcile(current, 12, target, free, { t1: [2, 3], t2: [4, 5, 6] })).toBe(current);
  });

  it("testUnrevokedPartitionsToUnrevokedPartitions", () => {
    const current = member(MemberState.UNREVOKED_PARTITIONS, 10, 10, { t1: [2, 3], t2: [5, 6] }, { t1: [1], t2: [4] });
    const next = reconcile(current, 12, { t1: [3], t2: [6] }, free, { t1: [2, 3], t2: [5, 6] });
    // Spec 1.5 / 9.1 (4.0): once the revocation is acknowledged the member moves to epoch + 1 even if it must revoke
    // again. (Newer Kafka keeps it at 10 here; its test was updated with that change.)
    expect(view(next)).toEqual(view(member(MemberState.UNREVOKED_PARTITIONS, 11, 10, { t1: [3], t2: [6] }, { t1: [2], t2: [5] })));
  });

  it("testUnrevokedPartitionsToUnreleasedPartitions", () => {
    const current = member(MemberState.UNREVOKED_PARTITIONS, 11, 10, { t1: [2, 3], t2: [5, 6] });
    const next = reconcile(current, 11, { t1: [2, 3, 4], t2: [5, 6, 7] }, ownedAt(10), { t1: [2, 3], t2: [5, 6] });
    expect(view(next)).toEqual(view(member(MemberState.UNRELEASED_PARTITIONS, 11, 11, { t1: [2, 3], t2: [5, 6] })));
  });

  it("testUnreleasedPartitionsToStable", () => {
    const current = member(MemberState.UNRELEASED_PARTITIONS, 11, 11, { t1: [2, 3], t2: [5, 6] });
    const next = reconcile(current, 12, { t1: [2, 3], t2: [5, 6] }, ownedAt(10));
    expect(view(next)).toEqual(view(member(MemberState.STABLE, 12, 11, { t1: [2, 3], t2: [5, 6] })));
  });

  it("testUnreleasedPartitionsToStableWithNewPartitions", () => {
    const current = member(MemberState.UNRELEASED_PARTITIONS, 11, 11, { t1: [2, 3], t2: [5, 6] });
    const next = reconcile(current, 11, { t1: [2, 3, 4], t2: [5, 6, 7] }, free);
    expect(view(next)).toEqual(view(member(MemberState.STABLE, 11, 11, { t1: [2, 3, 4], t2: [5, 6, 7] })));
  });

  it("testUnreleasedPartitionsToUnreleasedPartitions (same object back)", () => {
    const current = member(MemberState.UNRELEASED_PARTITIONS, 11, 11, { t1: [2, 3], t2: [5, 6] });
    expect(reconcile(current, 11, { t1: [2, 3, 4], t2: [5, 6, 7] }, ownedAt(10))).toBe(current);
  });

  it("testUnreleasedPartitionsToUnrevokedPartitions", () => {
    const current = member(MemberState.UNRELEASED_PARTITIONS, 11, 11, { t1: [2, 3], t2: [5, 6] });
    const next = reconcile(current, 12, { t1: [3], t2: [6] }, ownedAt(10));
    expect(view(next)).toEqual(view(member(MemberState.UNREVOKED_PARTITIONS, 11, 11, { t1: [3], t2: [6] }, { t1: [2], t2: [5] })));
  });

  it("testUnknownState", () => {
    const current = member(MemberState.UNKNOWN, 11, 11, { t1: [3], t2: [6] }, { t1: [2], t2: [5] });
    const fenced = new CurrentAssignmentBuilder(current)
      .withTargetAssignment(12, tp({ t1: [3], t2: [6] }))
      .withCurrentPartitionEpoch(ownedAt(10))
      .build();
    expect(fenced).toMatchObject({ kind: "fenced", errorCode: ErrorCode.FENCED_MEMBER_EPOCH });
    // Owned reported but non-empty: still fenced.
    const stillFenced = new CurrentAssignmentBuilder(current)
      .withTargetAssignment(12, tp({ t1: [3], t2: [6] }))
      .withOwnedTopicPartitions(tp({ t1: [3] }))
      .build();
    expect(stillFenced.kind).toBe("fenced");
    // Then the member rejoins owning nothing.
    const next = reconcile(current, 12, { t1: [3], t2: [6] }, ownedAt(11), {});
    expect(view(next)).toEqual(view(member(MemberState.STABLE, 12, 11, { t1: [3], t2: [6] })));
  });

  it("testUnrevokedPartitionsToStableWithReturnedPartitionsPendingRevocation: 4.0 counts the own revoking partition as unreleased", () => {
    const current = member(MemberState.UNREVOKED_PARTITIONS, 10, 10, { t1: [2, 3], t2: [5, 6] }, { t1: [4] });
    const target = tp({ t1: [2, 3, 4], t2: [5, 6, 7] });
    const epochs: CurrentPartitionEpoch = (topicId, partition) =>
      (topicId === "t1" && [2, 3, 4].includes(partition)) || (topicId === "t2" && [5, 6].includes(partition)) ? 10 : -1;
    const owned = tp({ t1: [2, 3], t2: [5, 6] });
    const spec40 = new CurrentAssignmentBuilder(current)
      .withTargetAssignment(12, target)
      .withCurrentPartitionEpoch(epochs)
      .withOwnedTopicPartitions(owned)
      .build();
    if (spec40.kind !== "reconciled") throw new Error("fenced");
    expect(view(spec40.member)).toEqual(view(member(MemberState.UNRELEASED_PARTITIONS, 12, 10, { t1: [2, 3], t2: [5, 6, 7] })));
    // Newer Kafka (the test's expectation) treats it as free.
    const newer = new CurrentAssignmentBuilder(current)
      .withTargetAssignment(12, target)
      .withCurrentPartitionEpoch(epochs)
      .withOwnedTopicPartitions(owned)
      .withOwnRevokingPartitionsTreatedAsFree(true)
      .build();
    if (newer.kind !== "reconciled") throw new Error("fenced");
    expect(view(newer.member)).toEqual(view(member(MemberState.STABLE, 12, 10, { t1: [2, 3, 4], t2: [5, 6, 7] })));
  });

  it("returns the member itself when STABLE at the target epoch, and copies other fields through", () => {
    const current = member(MemberState.STABLE, 11, 10, { t1: [1] });
    expect(reconcile(current, 11, { t1: [1, 2] }, free)).toBe(current);
    expect(reconcile(current, 12, { t1: [1, 2] }, free).memberId).toBe("member");
  });
});

describe("a member whose target is what it already holds", () => {
  const topicsArb = fc.uniqueArray(fc.constantFrom("t1", "t2", "t3", "t4"), { maxLength: 4 });
  const assignmentArb = topicsArb.chain((topics) =>
    fc
      .tuple(...topics.map(() => fc.array(fc.integer({ min: 0, max: 6 }), { maxLength: 4 })))
      .map((lists) => topics.map((topicId, index) => ({ topicId, partitions: lists[index] ?? [] }))),
  );

  it("moves STABLE to the target epoch holding exactly what the general path builds (same entries, same key order)", () => {
    fc.assert(
      fc.property(
        assignmentArb,
        fc.constantFrom(MemberState.STABLE, MemberState.UNREVOKED_PARTITIONS, MemberState.UNRELEASED_PARTITIONS),
        fc.boolean(),
        (assigned, state, sorted) => {
          // The target holds the same entries: either the member's arrays copied, or its canonical form.
          const canonical = normalizeAssignment(
            assigned,
            assigned.map((entry) => entry.topicId),
          );
          const target = sorted ? canonical : assigned.map((entry) => ({ topicId: entry.topicId, partitions: [...entry.partitions] }));
          const current: TestMember = {
            memberId: "member",
            state,
            memberEpoch: 3,
            previousMemberEpoch: 2,
            assignedPartitions: assigned,
            partitionsPendingRevocation: state === MemberState.UNREVOKED_PARTITIONS ? tp({ t9: [0] }) : [],
          };
          const result = new CurrentAssignmentBuilder(current)
            .withTargetAssignment(4, target)
            .withCurrentPartitionEpoch(() => -1)
            .withOwnedTopicPartitions([])
            .build();
          if (result.kind !== "reconciled") throw new Error("fenced");
          expect(result.member.state).toBe(MemberState.STABLE);
          expect(result.member.memberEpoch).toBe(4);
          expect(result.member.previousMemberEpoch).toBe(3);
          expect(JSON.stringify(result.member.assignedPartitions)).toBe(JSON.stringify(canonical));
          expect(result.member.partitionsPendingRevocation).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });
});
