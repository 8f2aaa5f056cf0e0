import { describe, expect, it } from "vitest";
import { measureFetchRequests } from "../src/bench/fetch-bytes-bench.js";

describe("fetch-bytes bench: requests the real fetcher builds, encoded", () => {
  it("keeps the incremental request for 10,000 unchanged partitions a small constant, far below the full one", () => {
    const on = measureFetchRequests(10_000, true, 3);
    expect(on.map((r) => r.full)).toEqual([true, false, false]);
    const [full, ...incrementals] = on;
    expect(full!.partitionsListed).toBe(10_000);
    for (const incremental of incrementals) {
      expect(incremental.partitionsListed).toBe(0);
      // Header and fixed fields only: the same few dozen bytes at any partition count.
      expect(incremental.codecBytes).toBeLessThanOrEqual(64);
      expect(incremental.wireBytes).toBeLessThanOrEqual(64);
      expect(incremental.codecBytes * 1_000).toBeLessThan(full!.codecBytes);
      expect(incremental.wireBytes * 1_000).toBeLessThan(full!.wireBytes);
    }
    // Flat: 10 partitions cost the same incremental request as 10,000.
    const small = measureFetchRequests(10, true, 3)[2]!;
    expect(small.codecBytes).toBe(incrementals[1]!.codecBytes);
    expect(small.wireBytes).toBe(incrementals[1]!.wireBytes);
  });

  it("sends every request full when the broker has no session slots, growing linearly with partitions", () => {
    const off100 = measureFetchRequests(100, false, 3);
    const off1000 = measureFetchRequests(1_000, false, 3);
    expect([...off100, ...off1000].every((r) => r.full)).toBe(true);
    expect(off1000.every((r) => r.partitionsListed === 1_000)).toBe(true);
    // Kafka v13: 33 bytes a partition on the wire.
    expect(off1000[2]!.wireBytes - off100[2]!.wireBytes).toBe(33 * 900 + 1);
    expect(off1000[2]!.codecBytes / off100[2]!.codecBytes).toBeGreaterThan(9);
  });
});
