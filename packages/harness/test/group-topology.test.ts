import { describe, expect, it } from "vitest";
import { groupTopologies } from "../src/analysis/group-topology.js";
import { toSimulationSpec } from "../src/scenario/load-scenario.js";
import type { ScenarioFile } from "../src/scenario/scenario-schema.js";

const scenario: ScenarioFile = {
  name: "two-groups",
  durationMs: 1000,
  cluster: {
    coordinators: 1,
    topics: [
      { name: "a", partitions: 2 },
      { name: "b", partitions: 3 },
      { name: "c", partitions: 1 },
    ],
  },
  groups: [
    { groupId: "g1", members: 3, subscription: ["a", "b"], consumer: { "max.poll.interval.ms": 20_000 } },
    { groupId: "g2", protocol: "eager", members: 2, subscription: ["c"], consumer: { "session.timeout.ms": 30_000 } },
  ],
};

describe("groupTopologies", () => {
  it("reads each group's members, subscribed partitions and timeouts from the member actors' configs", () => {
    const [g1, g2] = groupTopologies(toSimulationSpec(scenario, { seed: 1 }));
    expect(g1?.groupId).toBe("g1");
    expect(g1?.members).toHaveLength(3);
    expect(g1?.partitions).toEqual(["a-0", "a-1", "b-0", "b-1", "b-2"]);
    expect([...(g1?.maxPollIntervalMs.values() ?? [])]).toEqual([20_000, 20_000, 20_000]);
    expect(g1?.rebalanceTimeoutMs).toBe(20_000);
    expect(g2?.groupId).toBe("g2");
    expect(g2?.members).toHaveLength(2);
    expect(g2?.partitions).toEqual(["c-0"]);
    // The larger of its members' own session timeouts (30 s, classic members) and the broker's group.consumer.session.timeout.ms (45 s).
    expect(g2?.sessionTimeoutMs).toBe(45_000);
  });

  it("reads a spec once: the same array for the same spec, an equal one for an equal spec", () => {
    const spec = toSimulationSpec(scenario, { seed: 1 });
    const first = groupTopologies(spec);
    expect(groupTopologies(spec)).toBe(first);
    const again = groupTopologies(toSimulationSpec(scenario, { seed: 1 }));
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
  });
});
