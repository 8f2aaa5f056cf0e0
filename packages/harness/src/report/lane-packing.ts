import type { TimeSpan } from "./report-data.js";

/**
 * Puts overlapping spans on separate lanes (greedy, in order of start):
 * a partition with two owners at once, or a member whose old member id the
 * coordinator still holds while its new one has joined, is drawn in two
 * thinner lanes instead of one bar hiding the other.
 */
export function packLanes(spans: readonly TimeSpan[]): { lanes: number[]; count: number } {
  const order = spans.map((_, i) => i).sort((a, b) => (spans[a] as TimeSpan).fromUs - (spans[b] as TimeSpan).fromUs);
  const laneEnds: number[] = [];
  const lanes = new Array<number>(spans.length).fill(0);
  for (const i of order) {
    const span = spans[i] as TimeSpan;
    let lane = laneEnds.findIndex((end) => end <= span.fromUs);
    if (lane < 0) {
      lane = laneEnds.length;
      laneEnds.push(span.toUs);
    } else laneEnds[lane] = span.toUs;
    lanes[i] = lane;
  }
  return { lanes, count: Math.max(laneEnds.length, 1) };
}
