import type { Micros } from "@kcsim/protocol";

/** Virtual time as the report prints it: seconds with millisecond precision ("61.234 s"). */
export function formatSeconds(us: Micros): string {
  return `${(us / 1_000_000).toFixed(3)} s`;
}

/** A span as the report prints it. */
export function formatSpan(fromUs: Micros, toUs: Micros): string {
  return `${(fromUs / 1_000_000).toFixed(3)}-${(toUs / 1_000_000).toFixed(3)} s`;
}

/** A duration in the unit that reads best ("850 ms", "12.5 s", "3 min 20 s"). */
export function formatDuration(us: Micros): string {
  const ms = us / 1000;
  if (ms < 1000) return `${Math.round(ms * 10) / 10} ms`;
  if (ms < 120_000) return `${Math.round(ms / 100) / 10} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms - minutes * 60_000) / 1000)} s`;
}
