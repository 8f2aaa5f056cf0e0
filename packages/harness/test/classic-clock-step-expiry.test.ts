import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { observationOf } from "../src/analysis/observations.js";
import { runScenario } from "../src/run/run-scenario.js";
import { loadScenarioFile } from "../src/scenario/load-scenario.js";

/**
 * Swarm seed 58321 (at c024c3f): member-2, an eager classic member that commits after each batch, returns
 * from poll() at 88.0 s and waits in commitSync() behind a partition (87.8 to 106.8 s); its heartbeats go out
 * every 4 s and get no answer. That poll()'s last pass began at 87.517 s (it waited for its records there),
 * which is when its poll timer last restarted. Its clock is stepped 4.134 s ahead at 98.118 s, so its poll
 * deadline (87.517 s + max.poll.interval.ms 15 s, on its own clock) comes at 98.383 s of virtual time (at
 * 98.866 s while kcsim restarted the timer when poll() returned), and its session (20 s
 * from its last heartbeat answer at 84.096 s) runs out at 99.962 s. Kafka's heartbeat thread reads the wall
 * clock every retry.backoff.ms (`AbstractCoordinator.HeartbeatThread.run`), so it finds the poll timeout first
 * and leaves the group. The member used to run next only at the heartbeat it had planned by the old clock
 * (100.094 s), find both expired, take the session first (the coordinator presumed gone, as Kafka's order
 * has it) and not look at its poll timer again until it found the coordinator at 112.7 s: poll-expiry failed.
 */
const scenario = loadScenarioFile(fileURLToPath(new URL("./fixtures/swarm-58321-classic-clock-step.json", import.meta.url)));

describe("swarm seed 58321: a classic member whose clock is stepped while it waits in commitSync()", () => {
  it("expires when its own clock passes its poll deadline, before its session runs out", async () => {
    const { summary, result } = await runScenario(scenario, { host: "inline", seed: 58321 });
    expect(Object.entries(summary.checks).filter(([, check]) => !check.ok)).toEqual([]);
    const timeouts = result.events.flatMap((event) => {
      const timeout = event.ev === "obs" && event.actor === "member-2" ? observationOf(event, "member.poll-timeout") : undefined;
      return timeout === undefined ? [] : [{ t: event.t, lastPollUs: timeout.lastPollUs }];
    });
    expect(timeouts).toEqual([{ t: 98_382_755, lastPollUs: 87_516_755 }]);
  }, 60_000);
});
