import { describe, expect, it } from "vitest";
import type { RecordsObservation } from "../src/observations.js";
import { ConsumerDriver, testConfig } from "./consumer-test-support.js";

describe("what a poll() leaves in the history", () => {
  it("one observation per poll: a member.records with its ranges when it returned records, else a member.poll", () => {
    const driver = new ConsumerDriver(testConfig());
    // Before the group answers, the application's polls return nothing; then records flow (10/s per partition).
    driver.run(2500);
    driver.joinStable([0, 1], 7);
    driver.run(3000);
    const app = driver.snapshot.app as { polls: number; records: number };
    const empty = driver.observations("member.poll");
    const handed = driver.observations("member.records") as unknown as RecordsObservation[];
    expect(empty.length).toBeGreaterThan(0);
    expect(handed.length).toBeGreaterThan(0);
    // Every poll() is one of the two, and only one.
    expect(empty.length + handed.length).toBe(app.polls);
    expect(handed.flatMap((o) => o.ranges).reduce((sum, range) => sum + range.count, 0)).toBe(app.records);
    for (const o of handed) expect(o.ranges.length).toBeGreaterThan(0);
    for (const o of empty) expect(Object.keys(o)).toEqual(["type", "memberId"]);
  });
});
