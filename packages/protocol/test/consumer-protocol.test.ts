import { describe, expect, it } from "vitest";
import { CodecError, decodeAssignment, decodeSubscription, encodeAssignment, encodeSubscription, encodeValue } from "../src/index.js";

describe("embedded consumer protocol", () => {
  it("round-trips a subscription with owned partitions and a generation", () => {
    const subscription = {
      version: 3,
      topics: ["orders", "payments"],
      userData: Uint8Array.from([1, 2, 3]),
      ownedPartitions: [{ topic: "orders", partitions: [0, 2] }],
      generationId: 4,
      rackId: null,
    };
    const decoded = decodeSubscription(encodeSubscription(subscription));
    expect({ ...decoded, userData: Uint8Array.from(decoded.userData ?? []) }).toEqual(subscription);
  });

  it("round-trips an assignment and rejects bytes that are not one", () => {
    const assignment = { version: 3, assignedPartitions: [{ topic: "orders", partitions: [1] }], userData: null };
    expect(decodeAssignment(encodeAssignment(assignment))).toEqual(assignment);
    expect(() => decodeAssignment(encodeValue({ version: 3 }))).toThrow(CodecError);
    expect(() => decodeAssignment(Uint8Array.from([0xc1]))).toThrow(CodecError);
  });
});
