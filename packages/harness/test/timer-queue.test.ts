import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { type ArmedTimer, DEFAULT_REGISTRY, InlineHost, loadScenarioFile, toSimulationSpec } from "../src/index.js";

const scenario = (name: string) => loadScenarioFile(fileURLToPath(new URL(`../../../scenarios/${name}.json`, import.meta.url)));

describe("the timer queue", () => {
  it("pops no stale timer in a timer-heavy run: every replaced or cancelled timer left the queue when it was (chaos-consumer, 60 s)", () => {
    // 20 members with heartbeats, poll and request timeouts, connection timers, crashes that drop all of a cell's timers.
    const spec = { ...toSimulationSpec(scenario("chaos-consumer"), { seed: 1 }), durationUs: 60_000_000 };
    const host = new InlineHost(spec, DEFAULT_REGISTRY);
    const core = host.core;
    let takenOut = 0;
    let rekeyed = 0;
    const cancel = core.cancelTimer.bind(core);
    core.cancelTimer = (timer: ArmedTimer) => {
      if (timer.slot >= 0) takenOut++; // still queued: a lazy queue would have popped it later
      cancel(timer);
    };
    const schedule = core.scheduleTimer.bind(core);
    core.scheduleTimer = (timer: ArmedTimer) => {
      if (timer.slot >= 0) rekeyed++; // re-armed while queued: moved to its new place (a lazy queue would keep the old entry)
      schedule(timer);
    };
    // The inline host's loop, checking each popped timer against its cell before handing it over.
    let fired = 0;
    let stale = 0;
    for (let event = core.popDue(spec.durationUs); event !== undefined; event = core.popDue(spec.durationUs)) {
      const cell = host.cell(event.to);
      if (cell === undefined) {
        core.undeliverable(event);
        continue;
      }
      if (event.kind === "timer") {
        if (cell.isArmed(event.name, event.seq)) fired++;
        else stale++;
      }
      cell.handle(event);
    }
    expect(stale).toBe(0);
    // It is timer-heavy: many timers fired, and many were re-armed or cancelled while queued.
    expect(fired).toBeGreaterThan(10_000);
    expect(takenOut).toBeGreaterThan(0);
    expect(rekeyed).toBeGreaterThan(0);
    expect(takenOut + rekeyed).toBeGreaterThan(fired / 4);
  }, 120_000);
});
