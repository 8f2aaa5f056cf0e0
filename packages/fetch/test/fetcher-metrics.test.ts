import { ms, seconds } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { Rate, WindowedAvg, WindowedCount, WindowedMax } from "../src/consumer/sampled-stat.js";
import { P0, startedWorld } from "./fetcher-fixtures.js";

describe("Fetcher metrics (consumer-fetch-manager-metrics)", () => {
  it("records fetch sizes, consumed records and bytes, latency, rate, lag and lead as Kafka does", () => {
    const world = startedWorld();
    world.cluster.produce(P0, 3);
    // Metadata 0 -> 2 ms; fetch #1 2 -> 4 ms (3 records, latency 2 ms).
    world.runUntil(ms(10));
    // Nothing consumed yet: a fetch counts toward fetch-size only once its data is consumed.
    expect(world.fetcher.metrics(world.ctx.now()).metrics["fetch-size-avg"]).toBeNull();
    expect(world.act((f, ctx) => f.poll(500, ctx).records())).toHaveLength(3);
    // Fetch #2 leaves at 10 ms and is held 500 ms by the broker (nothing new): answered at 512 ms.
    world.runUntil(ms(600));

    const { group, metrics, partitions } = world.fetcher.metrics(world.ctx.now());
    expect(group).toBe("consumer-fetch-manager-metrics");
    // Rates divide by the time the samples cover, at least one full 30 s window ((samples - 1) windows).
    const fetchWindowSeconds = (600 - 4 + 30_000) / 1000;
    const consumedWindowSeconds = (600 - 10 + 30_000) / 1000;
    expect(metrics).toEqual({
      "fetch-size-avg": 300,
      "fetch-size-max": 300,
      "bytes-consumed-rate": 300 / consumedWindowSeconds,
      "bytes-consumed-total": 300,
      "records-per-request-avg": 3,
      "records-consumed-rate": 3 / consumedWindowSeconds,
      "records-consumed-total": 3,
      "fetch-latency-avg": (2 + 502) / 2,
      "fetch-latency-max": 502,
      "fetch-rate": 2 / fetchWindowSeconds,
      "fetch-total": 2,
      "records-lag-max": 0,
      "records-lead-min": 3,
      "fetch-throttle-time-avg": 0,
      "fetch-throttle-time-max": 0,
    });
    expect(partitions).toEqual({
      "orders-0": {
        topic: "orders",
        partition: 0,
        "records-lag": 0,
        "records-lag-max": 0,
        "records-lag-avg": 0,
        "records-lead": 3,
        "records-lead-min": 3,
        "records-lead-avg": 3,
      },
    });
  });

  it("records lag per poll while records wait, and forgets a partition's metrics when it is unassigned", () => {
    const world = startedWorld({ config: { "max.poll.records": 4 } });
    world.cluster.produce(P0, 10);
    world.runUntil(ms(10));
    world.act((f, ctx) => f.poll(500, ctx).records()); // position 4, HW 10: lag 6
    world.act((f, ctx) => f.poll(500, ctx).records()); // position 8: lag 2
    const { metrics, partitions } = world.fetcher.metrics(world.ctx.now());
    expect(metrics["records-lag-max"]).toBe(6);
    expect(metrics["records-lead-min"]).toBe(4);
    expect(partitions["orders-0"]).toMatchObject({ "records-lag": 2, "records-lag-max": 6, "records-lag-avg": 4, "records-lead": 8 });
    // The response is not consumed yet: no fetch size recorded.
    expect(metrics["fetch-size-avg"]).toBeNull();
    world.act((f, ctx) => f.poll(500, ctx).records());
    expect(world.fetcher.metrics(world.ctx.now()).metrics["fetch-size-avg"]).toBe(1_000);
    expect(world.fetcher.metrics(world.ctx.now()).metrics["records-per-request-avg"]).toBe(10);
    world.act((f, ctx) => f.assign([], ctx));
    expect(world.fetcher.metrics(world.ctx.now()).partitions).toEqual({});
  });

  it("counts dropped data as a fetch of what was consumed from it", () => {
    const world = startedWorld({ config: { "max.poll.records": 2 } });
    world.cluster.produce(P0, 5);
    world.runUntil(ms(10));
    world.act((f, ctx) => f.poll(500, ctx).records());
    world.act((f, ctx) => f.seek(P0, 0, ctx));
    const { metrics } = world.fetcher.metrics(world.ctx.now());
    expect(metrics["fetch-size-avg"]).toBe(200);
    expect(metrics["records-consumed-total"]).toBe(2);
  });

  it("records throttle times and holds requests to a throttling broker", () => {
    const world = startedWorld();
    world.runUntil(ms(100));
    world.intercept = (_from, message) => (message.type === "FetchResponse" ? { ...message, throttleTimeMs: 300 } : message);
    // Fetch #1 (2 ms) is answered at 504 ms with a 300 ms throttle.
    world.runUntil(ms(504));
    world.intercept = undefined;
    const fetches = world.fetchRequests().length;
    world.runUntil(ms(803));
    expect(world.fetchRequests().length).toBe(fetches);
    world.runUntil(ms(805));
    expect(world.fetchRequests().length).toBe(fetches + 1);
    const { metrics } = world.fetcher.metrics(world.ctx.now());
    expect(metrics["fetch-throttle-time-avg"]).toBe(300);
    expect(metrics["fetch-throttle-time-max"]).toBe(300);
  });

  it("forgets samples older than two 30 s windows", () => {
    const world = startedWorld();
    world.cluster.produce(P0, 1);
    world.runUntil(ms(10));
    world.act((f, ctx) => f.poll(500, ctx).records());
    world.runUntil(seconds(61));
    const { metrics } = world.fetcher.metrics(world.ctx.now());
    expect(metrics["fetch-size-avg"]).toBeNull();
    expect(metrics["bytes-consumed-rate"]).toBe(0);
    expect(metrics["bytes-consumed-total"]).toBe(100);
    // Fetches went on every ~502 ms, so latency stats stay populated.
    expect(metrics["fetch-latency-max"]).toBe(502);
  });
});

describe("sampled stats", () => {
  it("average, max and rate over two windows, as Kafka's SampledStat", () => {
    const avg = new WindowedAvg();
    const max = new WindowedMax();
    const rate = new Rate(new WindowedCount());
    expect(avg.measure(0)).toBeNaN();
    expect(max.measure(0)).toBeNaN();
    for (const [t, v] of [
      [0, 10],
      [10_000, 20],
      [35_000, 60],
    ] as const) {
      avg.record(v, t);
      max.record(v, t);
      rate.record(v, t);
    }
    expect(avg.measure(40_000)).toBe(30);
    expect(max.measure(40_000)).toBe(60);
    // Three events over the 40 s since the oldest sample started.
    expect(rate.measure(40_000)).toBe(3 / 40);
    // At 60 s the first sample (started at 0) is obsolete; the rate covers the 25 s since the second
    // started, stretched to at least one full window beyond it.
    expect(avg.measure(60_000)).toBe(60);
    expect(rate.measure(60_000)).toBe(1 / 55);
  });
});
