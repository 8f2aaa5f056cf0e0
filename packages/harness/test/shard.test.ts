import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { kcsimRun } from "../src/bench/kcsim-process.js";
import { seedsOf } from "../src/hunt/seed-ranges.js";
import { shardSeeds } from "../src/hunt/seed-shard.js";

/** The seeds of from..to in shard I/N (all of them with no shard). */
const shardOf = (from: number, to: number, shard: { index: number; count: number } | null): number[] =>
  shard === null ? [...seedsOf([{ from, to }])] : [...shardSeeds(seedsOf([{ from, to }]), shard)];

describe("hunt --shard I/N", () => {
  it("splits a seed range into N disjoint shards that cover it whole", () => {
    for (const [from, to] of [
      [1, 100],
      [7, 7],
      [5, 21],
    ] as const) {
      for (const count of [1, 2, 3, 7, 40]) {
        const shards = Array.from({ length: count }, (_, i) => shardOf(from, to, { index: i + 1, count }));
        const all = shards.flat().sort((a, b) => a - b);
        expect(all).toEqual(shardOf(from, to, null));
        expect(new Set(all).size).toBe(all.length);
        // Even shares: no shard has more than one seed more than another.
        const sizes = shards.map((s) => s.length);
        expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
      }
    }
    expect(shardOf(1, 10, { index: 2, count: 3 })).toEqual([2, 5, 8]);
    // A list of ranges (what a resumed hunt runs) is sharded by position, the same way.
    expect([
      ...shardSeeds(
        seedsOf([
          { from: 1, to: 3 },
          { from: 10, to: 12 },
        ]),
        { index: 1, count: 2 },
      ),
    ]).toEqual([1, 3, 11]);
  });

  it("1/3, 2/3 and 3/3 run every seed once between them, and find the failures of the whole hunt", async () => {
    const args = ["hunt", "packages/harness/test/fixtures/fenced-pair.json", "--bug", "keep-partitions-after-fenced", "--seeds", "1..15"];
    const out = mkdtempSync(join(tmpdir(), "kcsim-shard-"));
    type Report = { runs: number; failures: { seed: number }[]; shard?: { index: number; count: number; seeds: number[] } };
    const run = async (...extra: string[]) =>
      JSON.parse((await kcsimRun(...args, "--keep-going", "--json", "--out", out, ...extra)).stdout) as Report;
    const [whole, ...shards] = await Promise.all([
      run("--workers", "1"),
      ...["1/3", "2/3", "3/3"].map((shard) => run("--shard", shard, "--workers", "1")),
    ]);
    expect(shards.map((s) => s.shard?.index)).toEqual([1, 2, 3]);
    const ran = shards.flatMap((s) => s.shard?.seeds ?? []);
    expect(ran.sort((a, b) => a - b)).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
    expect(shards.map((s) => s.runs)).toEqual([5, 5, 5]);
    const failing = (reports: Report[]) => [...new Set(reports.flatMap((r) => r.failures.map((f) => f.seed)))].sort((a, b) => a - b);
    expect(failing(shards)).toEqual(failing([whole as Report]));
    expect(failing([whole as Report]).length).toBeGreaterThan(0);
    expect(whole).not.toHaveProperty("shard");
  }, 120_000);
});
