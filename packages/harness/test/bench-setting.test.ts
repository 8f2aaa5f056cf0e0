import { describe, expect, it } from "vitest";
import { BenchSettingError, benchCount, benchDeadline } from "../src/bench/bench-setting.js";

describe("a benchmark's settings from the environment", () => {
  it("takes a whole number from 1 up, and the default when unset or empty", () => {
    expect(benchCount("KCSIM_X", 600, { env: {} })).toBe(600);
    expect(benchCount("KCSIM_X", 600, { env: { KCSIM_X: "" } })).toBe(600);
    expect(benchCount("KCSIM_X", 600, { env: { KCSIM_X: " 40 " } })).toBe(40);
  });

  it("names the variable and what it holds when it is not such a number", () => {
    for (const bad of ["abc", "0", "-3", "2.5", "1e3", "0x10", "9007199254740993"]) {
      expect(() => benchCount("KCSIM_X", 600, { env: { KCSIM_X: bad } })).toThrow(BenchSettingError);
      expect(() => benchCount("KCSIM_X", 600, { env: { KCSIM_X: bad } })).toThrow(
        `KCSIM_X=${JSON.stringify(bad)}: expected a whole number from 1 up`,
      );
    }
  });

  it("takes 0 where the least allowed is 0 (a seed), and nothing below it", () => {
    expect(benchCount("KCSIM_SEED", 1, { min: 0, env: { KCSIM_SEED: "0" } })).toBe(0);
    expect(() => benchCount("KCSIM_SEED", 1, { min: 0, env: { KCSIM_SEED: "-1" } })).toThrow(
      'KCSIM_SEED="-1": expected a whole number from 0 up',
    );
  });

  it("reads a deadline as Date.parse does, and refuses what it cannot read", () => {
    expect(benchDeadline("KCSIM_UNTIL", {})).toBeUndefined();
    expect(benchDeadline("KCSIM_UNTIL", { KCSIM_UNTIL: "2026-12-05T18:00:00Z" })).toBe(Date.parse("2026-12-05T18:00:00Z"));
    expect(() => benchDeadline("KCSIM_UNTIL", { KCSIM_UNTIL: "tomorrow" })).toThrow(
      'KCSIM_UNTIL="tomorrow": expected a date and time (ISO 8601)',
    );
  });
});
