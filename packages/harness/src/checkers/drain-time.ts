import type { Micros } from "@kcsim/protocol";
import type { SimulationSpec } from "../kernel/simulation-spec.js";
import { healTimeUs } from "./heal-time.js";

/** How long before the end of a run the data-path checks stop expecting records to be consumed. */
export const DRAIN_WINDOW_US: Micros = 60_000_000;

/**
 * Records acknowledged after this time are not required to have been
 * consumed: the group needs the faults healed and some time to drain. The
 * cut is the end of the run minus a minute, and never before the heal time
 * plus that minute's worth of drain.
 */
export function drainCutoffUs(spec: SimulationSpec): Micros {
  const heal = healTimeUs(spec);
  return Math.max(heal ?? 0, spec.durationUs - DRAIN_WINDOW_US);
}
