import type { JsonValue } from "@kcsim/protocol";
import { type CellSink, DEFAULT_NETWORK, type FaultPlan, type SimulationSpec } from "../src/index.js";

/** A simulation spec for tests, with sensible defaults. */
export function testSpec(overrides: Partial<SimulationSpec> & { actors: SimulationSpec["actors"] }): SimulationSpec {
  return {
    scenario: "test",
    seed: 1,
    durationUs: 1_000_000,
    plan: { network: DEFAULT_NETWORK, messageFaults: [], partitions: [] },
    nemesis: [],
    useCodec: true,
    restartPolicy: { mode: "restart", delayUs: 10_000 },
    ...overrides,
  };
}

export function actor(id: string, kind: string, config: JsonValue = {}, startAtUs = 0) {
  return { id, kind, config, startAtUs };
}

export const noFaults: FaultPlan = { network: DEFAULT_NETWORK, messageFaults: [], partitions: [] };

/** A CellSink that drops every effect and mirrors no durable log (spread it and override what a test watches). */
export function quietSink(): CellSink {
  return {
    send() {},
    connection() {},
    observe() {},
    lifecycle() {},
    actorError() {},
    rejected() {},
    lost() {},
    scheduleTimer() {},
    cancelTimer() {},
  };
}
