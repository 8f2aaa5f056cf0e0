import { packLanes } from "./lane-packing.js";
import type { OwnershipRow } from "./report-data.js";
import { escapeXml } from "./svg-markup.js";
import { formatSpan } from "./time-format.js";
import { LABEL_WIDTH, type TimelineCanvas } from "./timeline-canvas.js";

const PARTITION_ROW = 10;
const TOPIC_ROW = 18;

/**
 * The ownership Gantt chart: one row per partition, grouped by group and
 * topic, with a bar per owner tenure in the owner's colour (faded: a fenced
 * zombie that still believes it owns the partition) and a red tick where
 * two live owners held it at once. Overlapping tenures share the row in
 * thinner lanes.
 */
export function drawOwnershipLane(canvas: TimelineCanvas, rows: readonly OwnershipRow[], colourOf: ReadonlyMap<string, string>): void {
  const groups = [...new Set(rows.map((r) => r.groupId))];
  for (const groupId of groups) {
    const own = rows.filter((r) => r.groupId === groupId);
    canvas.section(
      `Ownership · ${groupId}`,
      "one row per partition · bar colour: the owning member · faded: fenced, still believes it owns · red: two live owners",
    );
    const topics = [...new Set(own.map((r) => r.topic))];
    for (const topic of topics) {
      const partitions = own.filter((r) => r.topic === topic);
      canvas.row("trow", { "data-topic": topic }, () => {
        canvas.rowLabel(`${topic} (${partitions.length} partitions)`, canvas.y, TOPIC_ROW, { cls: "rl topic" });
        canvas.y += TOPIC_ROW;
      });
      partitions.forEach((row, i) => {
        const owners = [...new Set(row.intervals.map((interval) => interval.actor))].join(" ");
        const attributes = {
          "data-group": groupId,
          "data-partition": `${topic}-${row.partition}`,
          "data-topic": topic,
          "data-owners": owners,
        };
        canvas.row("prow", attributes, () => drawPartition(canvas, row, i, colourOf));
      });
    }
  }
}

function drawPartition(canvas: TimelineCanvas, row: OwnershipRow, i: number, colourOf: ReadonlyMap<string, string>): void {
  const y = canvas.y;
  const name = `${row.topic}-${row.partition}`;
  if (i % 2 === 1) canvas.rect(0, canvas.durationUs, y, PARTITION_ROW, "stripe");
  canvas.label(`<text x="${LABEL_WIDTH - 8}" y="${y + 8}" class="pn">${escapeXml(name)}</text>`);
  const { lanes, count } = packLanes(row.intervals);
  const laneHeight = (PARTITION_ROW - 2) / count;
  row.intervals.forEach((interval, j) => {
    const epochs =
      interval.firstEpoch === interval.lastEpoch ? `epoch ${interval.firstEpoch}` : `epochs ${interval.firstEpoch}-${interval.lastEpoch}`;
    const zombie = interval.live ? "" : " (fenced: believes it still owns it)";
    const tip = `${name}: ${interval.actor}${zombie} · ${formatSpan(interval.fromUs, interval.toUs)} · ${epochs}`;
    const cls = `own ${colourOf.get(interval.actor) ?? "m0"}${interval.live ? "" : " z"}`;
    canvas.rect(interval.fromUs, interval.toUs, y + 1 + (lanes[j] ?? 0) * laneHeight, laneHeight, cls, tip);
  });
  for (const conflict of row.conflicts)
    canvas.rect(
      conflict.fromUs,
      conflict.toUs,
      y,
      PARTITION_ROW,
      "conflict",
      `${name}: two live owners · ${formatSpan(conflict.fromUs, conflict.toUs)}`,
    );
  canvas.y += PARTITION_ROW;
}
