import type { Micros } from "@kcsim/protocol";
import type { CountStep, OwnershipRow } from "./report-data.js";

/**
 * How many of these partitions had no live owner, as steps from time 0 to
 * `endUs`: the Gantt chart's gaps, counted. Built from the same intervals
 * the chart draws, so the two always agree.
 */
export function unownedSteps(rows: readonly OwnershipRow[], endUs: Micros): CountStep[] {
  // Per partition, the union of its live intervals as +1/-1 edges of "owned".
  const edges: [Micros, number][] = [];
  for (const row of rows) {
    const live = row.intervals.filter((i) => i.live).sort((a, b) => a.fromUs - b.fromUs);
    let from: Micros | null = null;
    let to: Micros = 0;
    for (const i of live) {
      if (from !== null && i.fromUs <= to) {
        to = Math.max(to, i.toUs);
        continue;
      }
      if (from !== null) edges.push([from, -1], [to, 1]);
      from = i.fromUs;
      to = i.toUs;
    }
    if (from !== null) edges.push([from, -1], [to, 1]);
  }
  edges.sort((a, b) => a[0] - b[0]);
  const steps: CountStep[] = [{ tUs: 0, count: rows.length }];
  let count = rows.length;
  for (let i = 0; i < edges.length; ) {
    const t = (edges[i] as [Micros, number])[0];
    while (i < edges.length && (edges[i] as [Micros, number])[0] === t) count += (edges[i++] as [Micros, number])[1];
    if (t >= endUs) break;
    const last = steps[steps.length - 1] as CountStep;
    if (last.count === count) continue;
    if (last.tUs === t) steps[steps.length - 1] = { tUs: t, count };
    else steps.push({ tUs: t, count });
  }
  return steps;
}
