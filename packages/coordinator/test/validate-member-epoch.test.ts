import { ErrorCode } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { validateMemberEpoch } from "../src/index.js";

// GroupMetadataManagerTest.testConsumerGroupMemberEpochValidation (spec 3.2).
describe("validateMemberEpoch", () => {
  const stored = { memberEpoch: 100, previousMemberEpoch: 99, assignedPartitions: [{ topicId: "foo", partitions: [1, 2, 3] }] };
  const fenced = { ok: false, errorCode: ErrorCode.FENCED_MEMBER_EPOCH };

  it("fences a greater epoch", () => {
    expect(validateMemberEpoch(200, stored, [{ topicId: "foo", partitions: [1, 2] }])).toMatchObject(fenced);
  });

  it("fences a smaller epoch that is not the previous one", () => {
    expect(validateMemberEpoch(50, stored, [{ topicId: "foo", partitions: [1, 2] }])).toMatchObject(fenced);
  });

  it("fences the previous epoch without TopicPartitions", () => {
    expect(validateMemberEpoch(99, stored, null)).toMatchObject(fenced);
  });

  it("accepts the previous epoch when the owned partitions are still assigned (lost response)", () => {
    expect(validateMemberEpoch(99, stored, [{ topicId: "foo", partitions: [1, 2] }])).toEqual({ ok: true });
  });

  it("fences the previous epoch when it owns a partition no longer assigned", () => {
    expect(validateMemberEpoch(99, stored, [{ topicId: "foo", partitions: [1, 4] }])).toMatchObject(fenced);
    expect(validateMemberEpoch(99, stored, [{ topicId: "bar", partitions: [] }])).toMatchObject(fenced);
  });

  it("accepts the stored epoch", () => {
    expect(validateMemberEpoch(100, stored, null)).toEqual({ ok: true });
  });
});
