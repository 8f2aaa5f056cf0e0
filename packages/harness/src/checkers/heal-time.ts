import { type Micros, ms } from "@kcsim/protocol";
import type { SimulationSpec } from "../kernel/simulation-spec.js";

/** When the faults of a run are over, or why they never are. */
export type Heal = { readonly atUs: Micros } | { readonly never: string };

/**
 * When the last fault of a run is over: the end of every message fault and
 * partition window and the last nemesis step. A fault or step scheduled at
 * or after the run's end never happens and counts for nothing. A fault
 * that starts within the run and has no end never heals.
 */
export function healOf(spec: SimulationSpec): Heal {
  const end = spec.durationUs;
  let heal = 0;
  for (const fault of spec.plan.messageFaults) {
    if (ms(fault.startMs ?? 0) >= end) continue;
    if (fault.endMs === undefined) return { never: `message fault '${fault.name}' has no endMs` };
    heal = Math.max(heal, ms(fault.endMs));
  }
  for (const partition of spec.plan.partitions) {
    if (ms(partition.startMs) < end) heal = Math.max(heal, ms(partition.endMs));
  }
  for (const step of spec.nemesis) if (step.atUs < end) heal = Math.max(heal, step.atUs);
  return { atUs: heal };
}

/** The heal time in microseconds, or null when some fault never ends. */
export function healTimeUs(spec: SimulationSpec): Micros | null {
  const heal = healOf(spec);
  return "atUs" in heal ? heal.atUs : null;
}
