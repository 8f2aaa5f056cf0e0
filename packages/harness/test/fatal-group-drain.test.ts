import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runScenario } from "../src/run/run-scenario.js";
import { loadScenarioFile } from "../src/scenario/load-scenario.js";
import { observationsIn } from "./helpers.js";

/**
 * Data swarm seed 7521: a static KIP-848 group of two. member-2 crashes at 62.4 s and restarts at 77.1 s, member-1
 * crashes at 95.7 s and restarts at 102.9 s, each before its old self's session (45 s) ran out, so each new process
 * is refused with UNRELEASED_INSTANCE_ID, which is fatal to Kafka's consumer
 * (ConsumerHeartbeatRequestManager.handleSpecificError). From 102.9 s no consumer of the group is left, and the
 * records produced after the last ones it consumed are never handed out. The hunt judged that a loss (no-loss
 * failed: "swarm-0: acknowledged records never consumed: offsets 480, 481, ..."); nothing was lost, the group could
 * not drain, which converges already reported as not judged. no-loss says the same now, and still judges every
 * record the consumers passed over.
 */
const scenario = loadScenarioFile(fileURLToPath(new URL("./fixtures/swarm-data-7521-fatal-group.json", import.meta.url)));

describe("data swarm seed 7521: a group whose every consumer stopped for good cannot drain", () => {
  it("leaves no-loss and converges not judged, naming the fatal errors; every checker passes", async () => {
    const { summary, result } = await runScenario(scenario, { host: "inline", seed: 7521 });
    const fatal =
      "group swarm has no live member but consumers stopped by a fatal error (member-1: UNRELEASED_INSTANCE_ID, member-2: UNRELEASED_INSTANCE_ID)";
    expect(Object.entries(summary.checks).filter(([, check]) => !check.ok)).toEqual([]);
    expect(summary.checks.converges?.notJudged).toBe(`${fatal}, so it cannot converge`);
    expect(summary.checks["no-loss"]?.notJudged).toBe(
      `${fatal}: records of swarm-0, swarm-1, swarm-2, swarm-3 past the last one consumed: no consumer is left to drain them`,
    );
    const events = result.log.toArray();
    expect(observationsIn(events, "member.fatal").map(({ t, actor, o }) => `${t} ${actor} ${o.error}`)).toEqual([
      "77102042 member-2 UNRELEASED_INSTANCE_ID",
      "102893229 member-1 UNRELEASED_INSTANCE_ID",
    ]);
    // No record is handed out after the last consumer stopped.
    expect(observationsIn(events, "member.records").filter(({ t }) => t > 102_893_229)).toEqual([]);
  }, 120_000);
});
