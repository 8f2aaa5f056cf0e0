import { describe, expect, it } from "vitest";
import { observationOf } from "../src/analysis/observations.js";
import { runScenario } from "../src/run/run-scenario.js";
import type { ScenarioFile } from "../src/scenario/scenario-schema.js";

/**
 * A real member whose application stops at 10 s, inside a poll() it began
 * at 9.902 s (the one before returned records at 9.9 s, processed in 2 ms),
 * while its heartbeats go on, and whose clock is stepped at `stepAtMs`.
 * Its poll timer restarted at the top of that poll()'s pass, and Kafka's
 * poll timer reads the wall clock, so the expiry comes when the member's
 * own clock reads 9.902 s + max.poll.interval.ms (20 s): a forward step
 * brings it earlier, a backward one later, by exactly the step.
 */
function scenario(stepMs: number, stepAtMs = 15_000, protocol: "consumer" | "eager" = "consumer"): ScenarioFile {
  return {
    name: "poll-expiry-clock-step",
    seed: 1,
    durationMs: 70_000,
    cluster: { coordinators: 1, topics: [{ name: "T1", partitions: 4 }] },
    groups: [
      {
        groupId: "g1",
        protocol,
        members: 2,
        subscription: ["T1"],
        consumer: { "max.poll.interval.ms": 20_000 },
        source: { kind: "synthetic", recordsPerSecondPerPartition: 10 },
      },
    ],
    nemesis: [
      { atMs: 10_000, actor: "member-1", action: "command", command: { command: "pause-app" } },
      { atMs: stepAtMs, actor: "member-1", action: "clock-step", deltaMs: stepMs },
      { atMs: 60_000, actor: "member-1", action: "command", command: { command: "resume-app" } },
    ],
  };
}

async function pollTimeouts(stepMs: number, stepAtMs?: number, protocol?: "consumer" | "eager") {
  const { summary, result } = await runScenario(scenario(stepMs, stepAtMs, protocol), { host: "inline" });
  const timeouts = result.events.flatMap((event) => {
    const timeout = event.ev === "obs" && event.actor === "member-1" ? observationOf(event, "member.poll-timeout") : undefined;
    return timeout === undefined ? [] : [{ t: event.t, lastPollUs: timeout.lastPollUs }];
  });
  return { checks: summary.checks, timeouts };
}

describe("poll-expiry with a member whose clock is stepped (scenario level)", () => {
  it("a forward step of 5 s expires the member 5 s early, and poll-expiry expects exactly that", async () => {
    const { checks, timeouts } = await pollTimeouts(5_000);
    // The timer restarted at 9.902 s virtual (its clock read 9.902 s then); its clock reads 29.902 s at 24.902 s virtual.
    expect(timeouts).toEqual([{ t: 24_902_000, lastPollUs: 9_902_000 }]);
    expect(checks["poll-expiry"]).toEqual({ ok: true, violations: [] });
  });

  it("a classic member's heartbeat thread sees a forward step at once, not at the wake it planned by the old clock", async () => {
    // Stepped 12 s ahead at 15.5 s, between two heartbeats (3 s apart, the last at 15.12 s). Kafka's classic
    // heartbeat thread wakes every retry.backoff.ms and reads the wall clock, so the expiry comes when the
    // member's clock reads 29.902 s: 17.902 s of virtual time, before the next heartbeat it had planned by the old
    // clock (18.12 s), which is when the member expired before it planned its wakes again at a step (swarm seed
    // 58321 at c024c3f, where that planned wake came after its session had run out as well).
    const { checks, timeouts } = await pollTimeouts(12_000, 15_500, "eager");
    expect(timeouts).toEqual([{ t: 17_902_000, lastPollUs: 9_902_000 }]);
    expect(checks["poll-expiry"]).toEqual({ ok: true, violations: [] });
  });

  it("a backward step of 5 s expires it 5 s late", async () => {
    const { checks, timeouts } = await pollTimeouts(-5_000);
    expect(timeouts).toEqual([{ t: 34_902_000, lastPollUs: 9_902_000 }]);
    expect(checks["poll-expiry"]).toEqual({ ok: true, violations: [] });
  });

  it("a backward step just after its last poll: the expiry comes when its clock reads that poll's time + max.poll.interval.ms again", async () => {
    // Stepped back 5 s at 9.5 s, just after the poll() it began at 9.402 s: that poll() waits (the synthetic source
    // produces on the member's clock, and poll(Duration) times out on it too), so the pause at 10 s finds no later
    // pass. Its clock reads 29.402 s at 34.402 s of virtual time.
    const { checks, timeouts } = await pollTimeouts(-5_000, 9_500);
    expect(timeouts).toEqual([{ t: 34_402_000, lastPollUs: 9_402_000 }]);
    expect(checks["poll-expiry"]).toEqual({ ok: true, violations: [] });
  });
});
