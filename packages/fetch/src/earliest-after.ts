import type { Micros } from "@kcsim/protocol";

/** `earliest`, or `at` if it is after `now` and earlier (null: none). */
export function earliestAfter(now: Micros, earliest: Micros | null, at: Micros | null): Micros | null {
  return at !== null && at > now && (earliest === null || at < earliest) ? at : earliest;
}
