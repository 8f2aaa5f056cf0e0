import { describe, expect, it } from "vitest";
import { drawChaosPlan } from "../src/hunt/chaos-generator.js";
import { runScenario } from "../src/run/run-scenario.js";
import type { ScenarioFile } from "../src/scenario/scenario-schema.js";
import { observationsIn } from "./helpers.js";

/**
 * `kcsim hunt --swarm-data`: every seed draws a whole data-path system (a group reading through the real fetcher
 * what drawn producers wrote to three brokers) as well as its faults.
 */

const SEEDS = Array.from({ length: 300 }, (_, i) => i + 1);
/** The plans of SEEDS, drawn once for the tests below. */
const PLANS = SEEDS.map((seed) => drawChaosPlan(seed, "data"));
const group = (scenario: ScenarioFile) => scenario.groups?.[0];
const producers = (scenario: ScenarioFile) => scenario.producers?.[0];

describe("the data swarm's draws", () => {
  it("draws the same plan from a seed every time, and not the group swarm's", () => {
    for (const seed of [1, 77, 4_096]) {
      expect(JSON.stringify(drawChaosPlan(seed, "data"))).toBe(JSON.stringify(drawChaosPlan(seed, "data")));
      expect(drawChaosPlan(seed, "data").scenario.name).toBe("swarm-data");
      expect(drawChaosPlan(seed, "group").scenario.name).toBe("swarm");
    }
  });

  it("keeps Kafka's durability setting (acks=all, replication factor 3, min.insync.replicas 2) and a drain after the heal", () => {
    for (const { scenario, parameters } of PLANS) {
      expect(scenario.cluster?.brokers).toBe(3);
      expect(scenario.cluster?.topics).toEqual([{ name: "swarm", partitions: parameters.partitions, replicationFactor: 3 }]);
      expect(scenario.cluster?.broker?.["min.insync.replicas"]).toBe(2);
      expect(producers(scenario)?.producer?.acks).toBe("all");
      expect(group(scenario)?.source).toEqual({ kind: "fetch" });
      expect(group(scenario)?.consumer?.["auto.offset.reset"]).toBe("earliest");
      // Every fault heals by 120 s and the producers stop at 200 s, so the last 100 s are for the group to drain.
      expect(parameters.healAtMs).toBe(120_000);
      expect(producers(scenario)?.workload).toMatchObject({ stopAtMs: 200_000 });
      expect(scenario.durationMs).toBe(300_000);
      for (const step of scenario.nemesis ?? []) expect(step.atMs).toBeLessThanOrEqual(120_000);
    }
  });

  it("draws only groups that can drain what the producers write, even with one member left", () => {
    // A consumer fetches a partition again only once the application has taken what it buffered, so the next fetch
    // to that broker may wait out fetch.max.wait.ms without it: a partition drains at least
    // max.partition.fetch.bytes a fetch.max.wait.ms. The first draw allowed 4 KiB of 2 KB records every 500 ms,
    // and seeds 34, 45, 51, 56, 75, 82, 85 and 95 of its first hunt failed no-loss on partitions that fell behind
    // for good: the hunt's system, not Kafka's.
    for (const { seed, parameters: drawn } of PLANS) {
      const n = (name: string) => {
        const value = drawn[name];
        if (typeof value !== "number") throw new Error(`seed ${seed}: no number ${name} among the parameters`);
        return value;
      };
      const written = n("producers") * n("recordsPerSecond");
      expect(written * n("processingMsPerRecord"), `seed ${seed}: one member's processing`).toBeLessThanOrEqual(500);
      const drainedAtLeast = n("maxPartitionFetchBytes") / n("meanValueBytes") / (n("fetchMaxWaitMs") / 1000);
      expect(drainedAtLeast, `seed ${seed}: records a second one partition drains`).toBeGreaterThan(2 * written);
    }
  });

  it("varies what the group swarm cannot: the protocol over the fetcher, the producer, the fetch sizes", () => {
    const seen = (pick: (parameters: Record<string, unknown>) => unknown) =>
      new Set(PLANS.map(({ parameters }) => JSON.stringify(pick(parameters))));
    expect(seen((p) => p.protocol)).toEqual(new Set(['"eager"', '"cooperative"', '"consumer"']));
    expect(seen((p) => p.idempotent)).toEqual(new Set(["true", "false"]));
    expect(seen((p) => p.keys)).toContain('"none"');
    expect(seen((p) => p.maxInFlight)).toEqual(new Set(["1", "5"]));
    expect(seen((p) => p.producers)).toEqual(new Set(["1", "2", "3"]));
    expect(seen((p) => p.maxPartitionFetchBytes)).toEqual(new Set(["262144", "1048576"]));
    // Broker crashes are among the drawn faults, as they are not for a group on synthetic records (it has no brokers).
    const crashes = (base: "data" | "group") =>
      SEEDS.filter((seed) => (drawChaosPlan(seed, base).parameters.faults as string[]).some((f) => f.startsWith("crash of broker-")));
    expect(crashes("data").length).toBeGreaterThan(20);
    expect(crashes("group")).toEqual([]);
  });
});

describe("a data swarm seed's run", () => {
  it("is judged on the data path: every acknowledged record consumed, offsets contiguous, duplicates explained", async () => {
    // Seed 334: five eager members (classic protocol) read 29 partitions through the fetcher while a producer
    // writes; fetch answers are lost in bursts (each loss breaks its connection), a broker is crashed and
    // restarted, and heartbeats and FindCoordinator requests are lost.
    const plan = drawChaosPlan(334, "data");
    expect(plan.parameters).toMatchObject({ protocol: "eager", members: 5, partitions: 29, producers: 1 });
    expect(plan.parameters.faults).toEqual([
      expect.stringMatching(/^f0-drop on ConsumerGroupHeartbeat\* /),
      expect.stringMatching(/^f1-burst on Fetch\* from the servers/),
      expect.stringMatching(/^f2-burst on FindCoordinator\* /),
      expect.stringMatching(/^crash of broker-1 /),
    ]);
    const { summary, result } = await runScenario(plan.scenario, { host: "inline", seed: 334 });
    for (const name of ["no-loss", "contiguous-offsets", "duplicates-attributed", "single-owner", "committed-offsets-monotonic"])
      expect(summary.checks[name]?.ok, name).toBe(true);
    // What the verdict rests on: records written and acknowledged, and records consumed by every member.
    expect(observationsIn(result.log, "producer.ack").length).toBeGreaterThan(400);
    const readers = new Set(observationsIn(result.log, "member.records").map((records) => records.actor));
    expect([...readers].sort()).toEqual(["member-1", "member-2", "member-3", "member-4", "member-5"]);
  }, 60_000);
});
