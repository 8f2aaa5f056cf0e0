import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DEFAULT_REGISTRY, InlineHost, LockstepHost, loadScenarioFile, toSimulationSpec } from "../src/index.js";

const pingPong = loadScenarioFile(fileURLToPath(new URL("../../../scenarios/ping-pong.json", import.meta.url)));
const datagramStress = loadScenarioFile(fileURLToPath(new URL("../../../scenarios/datagram-stress.json", import.meta.url)));

describe("determinism", () => {
  it("gives the same history hash for the same seed, twice in a row", () => {
    const spec = toSimulationSpec(pingPong, { seed: 7 });
    const first = new InlineHost(spec, DEFAULT_REGISTRY).run();
    const second = new InlineHost(spec, DEFAULT_REGISTRY).run();
    expect(first.events.length).toBeGreaterThan(1000);
    expect(second.historyHash).toBe(first.historyHash);
  });

  it("gives a different history hash for a different seed", () => {
    const a = new InlineHost(toSimulationSpec(pingPong, { seed: 7 }), DEFAULT_REGISTRY).run();
    const b = new InlineHost(toSimulationSpec(pingPong, { seed: 8 }), DEFAULT_REGISTRY).run();
    expect(b.historyHash).not.toBe(a.historyHash);
  });

  it("gives the same history in the lockstep host (one worker thread per actor) as inline, faults included", async () => {
    for (const [seed, scenario] of [
      [1, pingPong],
      [2, datagramStress],
    ] as const) {
      // Every fault of the scenario lies before 11.5 s; the rest is quiet ping-pong.
      const spec = { ...toSimulationSpec(scenario, { seed }), durationUs: 11_500_000 };
      const inline = new InlineHost(spec, DEFAULT_REGISTRY).run();
      const lockstep = await new LockstepHost(spec).run();
      // The scenario's faults all fired: on connections breaks and a partition holding bytes back; on datagrams drops,
      // a partition and duplicates; a crash and a pause in both.
      if (scenario === pingPong) {
        expect(inline.router.breaks).toBeGreaterThan(0);
        expect(inline.router.held).toBeGreaterThan(0);
        expect(inline.events.some((e) => e.ev === "conn" && e.what === "reset" && e.reason === "broken")).toBe(true);
      } else {
        expect(inline.router.dropped).toBeGreaterThan(0);
        expect(inline.router.partitioned).toBeGreaterThan(0);
        expect(inline.router.duplicated).toBeGreaterThan(0);
      }
      expect(inline.events.some((e) => e.ev === "life" && e.what === "crash")).toBe(true);
      expect(inline.events.some((e) => e.ev === "life" && e.what === "pause")).toBe(true);
      expect(lockstep.events.map((e) => JSON.stringify(e))).toEqual(inline.events.map((e) => JSON.stringify(e)));
      expect(lockstep.historyHash).toBe(inline.historyHash);
      expect(lockstep.eventsProcessed).toBe(inline.eventsProcessed);
    }
  });

  it("gives the same history with several actors per worker", async () => {
    const spec = { ...toSimulationSpec(pingPong, { seed: 4 }), durationUs: 11_500_000 };
    const inline = new InlineHost(spec, DEFAULT_REGISTRY).run();
    const sharded = await new LockstepHost(spec, { actorsPerWorker: 3 }).run();
    expect(sharded.historyHash).toBe(inline.historyHash);
  });
});
