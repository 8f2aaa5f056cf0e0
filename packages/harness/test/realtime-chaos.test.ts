import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_REGISTRY, loadScenarioFile, RealtimeHost, replayRecording, toSimulationSpec } from "../src/index.js";

const hosts: RealtimeHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.close()));
});

describe("realtime host on the chaos scenario", () => {
  it("runs chaos-consumer on a scaled real clock, and its recording reproduces every actor's received messages", async () => {
    const scenario = loadScenarioFile(fileURLToPath(new URL("../../../scenarios/chaos-consumer.json", import.meta.url)));
    // The first 100 s of chaos (every message fault, the rack partition, whole-process and application
    // pauses, member crashes and restarts, the coordinator's crash and restart) in 3 s of real time.
    const spec = { ...toSimulationSpec(scenario, { seed: 1 }), durationUs: 100_000_000 };
    const host = new RealtimeHost(spec, { timeScale: 0.03, actorsPerWorker: "auto" });
    hosts.push(host);
    const result = await host.run();

    // The chaos happened on the real clock...
    const { router } = result;
    // Losses broke connections and the partition held bytes back.
    expect([router.breaks, router.broken, router.held].every((n) => n > 0)).toBe(true);
    const life = new Set(result.events.flatMap((e) => (e.ev === "life" ? [`${e.what} ${e.actor}`] : [])));
    for (const what of ["pause member-5", "resume member-5", "crash member-13", "restart member-13", "crash member-17"])
      expect(life, what).toContain(what);
    expect(life).toContain("crash coordinator-0");
    expect(life).toContain("restart coordinator-0");
    const recorded = result.recording.entries;
    expect(recorded.some((e) => e.r === "route" && e.fate !== "deliver")).toBe(true);

    // ...and replaying its recording under virtual time gives every actor exactly its received sequence.
    const report = replayRecording(result.recording, DEFAULT_REGISTRY);
    expect(report.actors).toHaveLength(21);
    for (const actor of report.actors) {
      expect(actor.firstDifference, actor.actor).toBeNull();
      expect(actor.received, actor.actor).toBeGreaterThan(0);
      expect([actor.reproduced, actor.resent], actor.actor).toEqual([actor.received, actor.sent]);
    }
    expect(report.equal).toBe(true);
  }, 180_000);
});
