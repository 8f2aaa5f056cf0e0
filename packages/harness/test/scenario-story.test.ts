import { describe, expect, it } from "vitest";
import { scenarioStory } from "../src/hunt/scenario-story.js";
import { validateScenario } from "../src/scenario/load-scenario.js";

describe("scenarioStory: what a scenario does to its system, a line each, in time order", () => {
  it("tells every kind of fault, partition and nemesis step, and the pinned choices", () => {
    const scenario = validateScenario(
      {
        name: "story",
        durationMs: 60_000,
        cluster: { coordinators: 1, topics: [{ name: "t", partitions: 2 }] },
        groups: [{ groupId: "g", protocol: "consumer", members: 2, subscription: ["t"] }],
        faults: [
          { name: "loss", types: ["OffsetCommit*"], from: ["member-1"], startMs: 5_000, endMs: 9_000, drop: { probability: 0.25 } },
          { name: "slow", to: ["coordinator-0"], delay: { dist: "exponential", meanMs: 20 } },
        ],
        partitions: [{ name: "cut", a: ["member-2"], b: ["coordinator-0"], direction: "a-to-b", startMs: 3_000, endMs: 4_000 }],
        nemesis: [
          { atMs: 3_000, actor: "member-1", action: "clock-step", deltaMs: -500 },
          { atMs: 7_000, actor: "member-2", action: "command", command: { command: "pause-app" } },
          { atMs: 1_000, actor: "coordinator-0", action: "crash" },
          { atMs: 2_000, actor: "coordinator-0", action: "restart" },
        ],
        choices: [{ link: "member-1->coordinator-0", n: 3, fault: "loss", kind: "drop" }],
      },
      "story.json",
    );
    expect(scenarioStory(scenario)).toEqual([
      "0-end ms: fault slow delays (exponential) every message to coordinator-0",
      "at 1000 ms: coordinator-0 crashes",
      "at 2000 ms: coordinator-0 restarts",
      "at 3000 ms: member-1's clock jumps by -500 ms",
      "3000-4000 ms: partition cut: member-2 -> coordinator-0 cut (a-to-b)",
      "5000-9000 ms: fault loss drops 25% OffsetCommit* from member-1",
      "at 7000 ms: member-2 is told pause-app",
      "1 pinned fault choice (the messages the faults above hit)",
    ]);
  });

  it("is empty for a scenario without faults", () => {
    const quiet = validateScenario({ name: "quiet", durationMs: 1_000, cluster: { coordinators: 1, topics: [] } }, "quiet.json");
    expect(scenarioStory(quiet)).toEqual([]);
  });
});
