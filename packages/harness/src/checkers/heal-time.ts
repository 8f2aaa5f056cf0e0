import type { Micros } from "@kcsim/protocol";
import type { SimulationSpec } from "../kernel/simulation-spec.js";

/**
 * When the last fault of a run is over: the end of every message fault and
 * partition window and the last nemesis step. Null when some fault never
 * ends (no endMs), so "after the faults heal" never comes.
 */
export function healTimeUs(spec: SimulationSpec): Micros | null {
  let heal = 0;
  for (const fault of spec.plan.messageFaults) {
    if (fault.endMs === undefined) return null;
    heal = Math.max(heal, Math.round(fault.endMs * 1000));
  }
  for (const partition of spec.plan.partitions) heal = Math.max(heal, Math.round(partition.endMs * 1000));
  for (const step of spec.nemesis) heal = Math.max(heal, step.atUs);
  return heal;
}
