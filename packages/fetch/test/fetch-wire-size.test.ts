import { topicIdFor } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import {
  FETCH_REQUEST_PARTITION_BYTES,
  FetchSessionHandler,
  fetchRequestBytes,
  fetchRequestFor,
  fetchResponseBytes,
  fetchResponseFor,
  unsignedVarintSize,
} from "../src/index.js";
import { FOO, fetchData, read } from "./fetch-fixtures.js";

const params = { correlationId: 1, clientId: "consumer-1", replicaId: -1, maxWaitMs: 500, minBytes: 1, maxBytes: 52_428_800 };

describe("Fetch wire sizes (v13 layout)", () => {
  it("sizes unsigned varints", () => {
    expect([0, 1, 127, 128, 16_383, 16_384, 2_097_151, 2_097_152].map(unsignedVarintSize)).toEqual([1, 1, 1, 2, 2, 3, 3, 4]);
  });

  it("sizes a full request, and an incremental one with no changes, byte for byte", () => {
    const handler = new FetchSessionHandler(1);
    const full = fetchRequestFor(
      handler.newBuilder().add({ topic: "foo", partition: 0 }, fetchData(FOO)).add({ topic: "foo", partition: 1 }, fetchData(FOO)).build(),
      params,
    );
    // frame 4 + header 21 (2+2+4 + 2+10 client id + 1 tags) + fixed fields 25
    // + topics: varint 1 + (uuid 16 + varint 1 + 2 x 33 + tags 1) + forgotten varint 1 + rack varint 1 + tags 1
    expect(FETCH_REQUEST_PARTITION_BYTES).toBe(33);
    expect(fetchRequestBytes(full)).toBe(4 + 21 + 25 + 1 + (16 + 1 + 66 + 1) + 1 + 1 + 1);
    handler.handleResponse(fetchResponseFor(1, 0, 99, [read(FOO, 0), read(FOO, 1)]));
    const incremental = fetchRequestFor(
      handler.newBuilder().add({ topic: "foo", partition: 0 }, fetchData(FOO)).add({ topic: "foo", partition: 1 }, fetchData(FOO)).build(),
      params,
    );
    expect(incremental.sessionEpoch).toBe(1);
    expect(fetchRequestBytes(incremental)).toBe(4 + 21 + 25 + 1 + 1 + 1 + 1);
  });

  it("sizes responses with records, aborted transactions and varint lengths", () => {
    // frame 4 + header 5 + throttle/error/session 10 + topics varint 1 + (uuid 16 + varint 1 + tags 1) + partition 37 + tags 1
    expect(fetchResponseBytes(fetchResponseFor(1, 0, 5, [read(FOO, 0)]))).toBe(76);
    expect(fetchResponseBytes(fetchResponseFor(1, 0, 5, [read(FOO, 0, { recordBytes: 100 })]))).toBe(76 + 100);
    // 200 bytes of records need a 2-byte length.
    expect(fetchResponseBytes(fetchResponseFor(1, 0, 5, [read(FOO, 0, { recordBytes: 200 })]))).toBe(76 + 1 + 200);
    const withAborts = read(FOO, 0);
    const aborted = { ...withAborts, data: { ...withAborts.data, abortedTransactions: [{ producerId: 1, firstOffset: 2 }] } };
    // A null list is one byte (varint 0); a list of one is varint 2 plus 17 bytes.
    expect(fetchResponseBytes(fetchResponseFor(1, 0, 5, [aborted]))).toBe(76 + 17);
    expect(fetchResponseBytes(fetchResponseFor(1, 70, 0, []))).toBe(4 + 5 + 10 + 1 + 1);
  });

  it("keeps the incremental request with no changes flat while the full request grows linearly with partitions", () => {
    const rows: {
      partitions: number;
      full: number;
      incremental: number;
      incremental1pct: number;
      fullResponse: number;
      incrementalResponse: number;
    }[] = [];
    const topicId = topicIdFor("events");
    for (const n of [10, 100, 1_000, 10_000]) {
      const handler = new FetchSessionHandler(1);
      const offsets = new Array<number>(n).fill(0);
      const build = () => {
        const builder = handler.newBuilder();
        for (let p = 0; p < n; p++) builder.add({ topic: "events", partition: p }, fetchData(topicId, { fetchOffset: offsets[p] ?? 0 }));
        return fetchRequestFor(builder.build(), params);
      };
      const full = build();
      const reads = Array.from({ length: n }, (_, p) => read(topicId, p));
      const fullResponse = fetchResponseFor(1, 0, 1234, reads);
      expect(handler.handleResponse(fullResponse)).toBe(true);
      const incremental = build();
      expect(incremental.topics).toEqual([]);
      handler.handleResponse(fetchResponseFor(1, 0, 1234, []));
      // 1% of the partitions consumed something: their fetch offsets moved, so they are re-sent.
      for (let p = 0; p < n; p += 100) offsets[p] = 5;
      const incremental1pct = build();
      rows.push({
        partitions: n,
        full: fetchRequestBytes(full),
        incremental: fetchRequestBytes(incremental),
        incremental1pct: fetchRequestBytes(incremental1pct),
        fullResponse: fetchResponseBytes(fullResponse),
        incrementalResponse: fetchResponseBytes(fetchResponseFor(1, 0, 1234, [])),
      });
    }
    console.table(rows);
    const incrementals = new Set(rows.map((r) => r.incremental));
    expect(incrementals.size).toBe(1); // flat: the same bytes at 10 and at 10,000 partitions
    expect([...incrementals][0]).toBeLessThan(60);
    for (const row of rows) {
      // Linear: 33 bytes a partition plus a constant overhead.
      expect(row.full).toBeGreaterThanOrEqual(33 * row.partitions);
      expect(row.full).toBeLessThanOrEqual(33 * row.partitions + 100);
      // Re-sending 1% of the partitions costs about 1% of the full request.
      expect(row.incremental1pct).toBeLessThan(60 + 33 * Math.ceil(row.partitions / 100) + 20);
      expect(row.fullResponse).toBeGreaterThanOrEqual(37 * row.partitions);
    }
    expect(rows[3]!.full / rows[2]!.full).toBeCloseTo(10, 0);
  });
});
