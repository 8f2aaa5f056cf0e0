import { ConfigError, type JsonValue, ms, seconds } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { createBroker } from "../src/broker/broker-actor.js";
import { ConfigReader } from "../src/cluster/config-reader.js";
import { createController } from "../src/controller/controller-actor.js";
import { ProducerBatch } from "../src/producer/producer-batch.js";
import { RECORD_BATCH_OVERHEAD, recordSizeInBytes } from "../src/producer/record-size.js";
import { KeyChooser, RecordSchedule, readWorkload, sampleValueBytes, type WorkloadSpec } from "../src/producer/workload.js";
import { randomFor } from "./fetch-fixtures.js";

function workload(json: Record<string, JsonValue>): WorkloadSpec {
  return readWorkload(
    ConfigReader.of("producer", { topic: "t", keys: null, valueBytes: { dist: "fixed", bytes: 10 }, ...json }, "workload"),
  );
}

/** Due times of the records in [0, until), stepping the schedule as the producer's timer does. */
function dueTimes(spec: WorkloadSpec, until: number): number[] {
  const schedule = new RecordSchedule(spec);
  schedule.reset(0);
  const times: number[] = [];
  for (let next = schedule.nextDueAt(); next !== undefined && next < until; next = schedule.nextDueAt()) {
    const due = schedule.take(next);
    for (let i = 0; i < due; i++) times.push(next);
  }
  return times;
}

describe("workload", () => {
  it("spaces records by the rate in force: base rate, bursts, nothing after stopAtMs", () => {
    expect(dueTimes(workload({ recordsPerSecond: 4 }), seconds(1))).toEqual([ms(250), ms(500), ms(750)]);
    const bursty = workload({ recordsPerSecond: 1, bursts: [{ atMs: 1500, durationMs: 100, recordsPerSecond: 50 }], stopAtMs: 3000 });
    const times = dueTimes(bursty, seconds(10));
    expect(times.filter((t) => t >= ms(1500) && t < ms(1600)).length).toBe(5);
    expect(times.filter((t) => t < ms(1500))).toEqual([ms(1000)]);
    // Half a record was owed when the burst began, and is again when it ends.
    expect(times.filter((t) => t >= ms(1600))).toEqual([ms(2100)]);
    // A zero base rate waits for the burst.
    expect(
      dueTimes(workload({ recordsPerSecond: 0, bursts: [{ atMs: 2000, durationMs: 1000, recordsPerSecond: 2 }] }), seconds(10)),
    ).toEqual([ms(2500), ms(3000)]);
  });

  it("draws value sizes from the configured shape, in whole non-negative bytes", () => {
    const random = randomFor("values");
    const draw = (valueBytes: JsonValue) =>
      Array.from({ length: 2000 }, () => sampleValueBytes(workload({ recordsPerSecond: 1, valueBytes }).valueBytes, random));
    expect(new Set(draw({ dist: "fixed", bytes: 7 }))).toEqual(new Set([7]));
    const uniform = draw({ dist: "uniform", minBytes: 10, maxBytes: 20 });
    expect(Math.min(...uniform)).toBe(10);
    expect(Math.max(...uniform)).toBe(20);
    const normal = draw({ dist: "normal", meanBytes: 100, stddevBytes: 10 });
    const mean = normal.reduce((a, b) => a + b, 0) / normal.length;
    expect(Math.abs(mean - 100)).toBeLessThan(2);
    expect(draw({ dist: "exponential", meanBytes: 5 }).every((b) => Number.isInteger(b) && b >= 0)).toBe(true);
    expect(Math.min(...draw({ dist: "pareto", scaleBytes: 50, shape: 2 }))).toBeGreaterThanOrEqual(50);
  });

  it("picks keys uniformly or with a Zipf skew", () => {
    const random = randomFor("keys");
    const counts = (chooser: KeyChooser) => {
      const c = new Map<string, number>();
      for (let i = 0; i < 10_000; i++) {
        const key = chooser.next(random);
        c.set(key, (c.get(key) ?? 0) + 1);
      }
      return c;
    };
    const zipf = counts(new KeyChooser({ count: 10, dist: "zipf", exponent: 1 }));
    // Rank 1 is about twice rank 2 and ten times rank 10.
    expect((zipf.get("key-0") ?? 0) / (zipf.get("key-1") ?? 1)).toBeCloseTo(2, 0);
    expect((zipf.get("key-0") ?? 0) / (zipf.get("key-9") ?? 1)).toBeGreaterThan(7);
    const uniform = counts(new KeyChooser({ count: 10, dist: "uniform", exponent: 1 }));
    expect(uniform.size).toBe(10);
    expect(Math.max(...uniform.values()) / Math.min(...uniform.values())).toBeLessThan(1.2);
  });

  it("sizes records and batches as Kafka's v2 format does", () => {
    // length varint, attributes, timestamp delta, offset delta, null key, value length + 100 bytes, header count.
    expect(recordSizeInBytes(0, 0, null, 100)).toBe(2 + 1 + 1 + 1 + 1 + 2 + 100 + 1);
    expect(recordSizeInBytes(0, 0, 5, 10)).toBe(1 + 1 + 1 + 1 + 1 + 5 + 1 + 10 + 1);
    expect(recordSizeInBytes(300, 70, null, 0)).toBe(1 + 1 + 2 + 2 + 1 + 1 + 1);
    const batch = new ProducerBatch("t", 0, 200, {
      key: null,
      keyBytes: null,
      value: "p:0",
      valueBytes: 100,
      timestampMs: 5,
      createdAt: 0,
    });
    expect(batch.sizeInBytes).toBe(RECORD_BATCH_OVERHEAD + 109);
    expect(batch.tryAppend({ key: null, keyBytes: null, value: "p:1", valueBytes: 100, timestampMs: 5, createdAt: 0 })).toBe(false);
    // The first record of a batch always fits, however large.
    expect(
      new ProducerBatch("t", 0, 200, { key: null, keyBytes: null, value: "p:2", valueBytes: 5000, timestampMs: 0, createdAt: 0 })
        .recordCount,
    ).toBe(1);
  });

  it("rejects broker and controller configs with one line naming the field", () => {
    const layout = { brokers: [{ nodeId: 0, host: "broker-0" }], topics: [{ name: "t", partitions: 1, replicationFactor: 1 }] };
    const broker = (patch: Record<string, JsonValue>) => () =>
      createBroker("broker-0", { brokerId: 0, controller: "controller", ...layout, ...patch });
    expect(broker({ brokerId: 3 })).toThrow(/^broker config: 'brokerId' = 3 is not one of the brokers' node ids$/);
    expect(broker({ topics: [{ name: "t", partitions: 1, replicationFactor: 2 }] })).toThrow(
      /'topics\[0\].replicationFactor' = 2 is above the maximum 1/,
    );
    expect(broker({ broker: { "replica.lag.time.max.ms": 0 } })).toThrow(/'replica.lag.time.max.ms' = 0 is below the minimum 1/);
    expect(broker({ controler: "x" })).toThrow(/'controler' is not a known field/);
    expect(() => createBroker("broker-9", { brokerId: 0, controller: "controller", ...layout })).toThrow(/this actor is "broker-9"/);
    expect(() => createController("controller", { ...layout, brokers: [] })).toThrow(
      /^controller config: 'brokers' must have at least 1 item\(s\)$/,
    );
    expect(() =>
      createController("controller", {
        ...layout,
        brokers: [
          { nodeId: 0, host: "a" },
          { nodeId: 0, host: "b" },
        ],
      }),
    ).toThrow(ConfigError);
  });
});
