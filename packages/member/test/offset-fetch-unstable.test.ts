import { ErrorCode } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { ConsumerDriver, T1_ID, testConfig } from "./consumer-test-support.js";

describe("OffsetFetch with require_stable (spec 5, 7)", () => {
  it("UNSTABLE_OFFSET_COMMIT (a transaction's offsets still pending) is retried: no position until the offset is stable", () => {
    const driver = new ConsumerDriver(testConfig({ consumer: { "auto.offset.reset": "earliest" }, app: { commit: "none" } }));
    driver.answerFindCoordinator();
    driver.run(3000); // the synthetic log has ~30 records per partition by now
    driver.answerHeartbeat({ epoch: 3, assignment: { [T1_ID]: [0, 1] } });
    driver.runUntil(() => driver.sentOf("OffsetFetchRequest").length === 1);
    const first = driver.answerOffsetFetch({ "T1-0": { error: ErrorCode.UNSTABLE_OFFSET_COMMIT }, "T1-1": 9 });
    expect(first.requireStable).toBe(true);
    const answeredAt = driver.now;

    // Partition 1 is positioned at its committed offset; partition 0 gets nothing, not even by auto.offset.reset.
    driver.runUntil(() => driver.sentOf("OffsetFetchRequest").length === 2, 5000);
    driver.run(500);
    const records = (partition: number) => driver.recordRanges().filter((r) => r.partition === partition);
    expect(records(1)[0]?.firstOffset).toBe(9);
    expect(records(0)).toEqual([]);
    // Asked again, after the backoff, for the unstable partition only, still requiring stable offsets.
    const retry = driver.lastOf("OffsetFetchRequest");
    expect(retry.at).toBeGreaterThan(answeredAt);
    expect(retry.message).toMatchObject({ requireStable: true });
    expect(retry.message.groups[0]?.topics).toEqual([{ name: "T1", partitionIndexes: [0] }]);

    // Still unstable: asked a third time; then the marker made it stable and the position is the committed offset.
    driver.answerOffsetFetch({ "T1-0": { error: ErrorCode.UNSTABLE_OFFSET_COMMIT } });
    driver.runUntil(() => driver.sentOf("OffsetFetchRequest").length === 3, 5000);
    driver.run(500);
    expect(records(0)).toEqual([]);
    driver.answerOffsetFetch({ "T1-0": 4 });
    driver.run(1000);
    expect(records(0)[0]?.firstOffset).toBe(4);
    expect(driver.sentOf("OffsetFetchRequest")).toHaveLength(3);
  });
});
