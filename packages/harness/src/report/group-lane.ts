import type { Micros } from "@kcsim/protocol";
import type { GroupProgress, GroupTimeline, ProgressSample } from "./report-data.js";
import { stateClass } from "./report-palette.js";
import { formatSeconds, formatSpan } from "./time-format.js";
import type { TimelineCanvas } from "./timeline-canvas.js";

const STATE_ROW = 20;
const EPOCH_CHART = 48;
const UNOWNED_CHART = 42;
const PROGRESS_CHART = 40;

/**
 * A group's lane: the coordinator's group state as a strip (with group
 * epoch, assignment epoch and member count), both epochs as step lines
 * with the new target assignments marked, and the partitions without a
 * live owner as an area; then the records its members consumed per second
 * and its consumer lag.
 */
export function drawGroupLane(canvas: TimelineCanvas, group: GroupTimeline, progress: GroupProgress | null): void {
  canvas.section(
    `Group ${group.groupId}`,
    `coordinator's view (gc.group)${group.protocol === null ? "" : ` · ${group.protocol} protocol`} · ${group.partitions} partitions`,
  );
  const attributes = { "data-group": group.groupId };
  canvas.row("grow", { ...attributes, "data-chart": "state" }, () => drawGroupState(canvas, group));
  canvas.row("grow", { ...attributes, "data-chart": "epochs" }, () => drawEpochs(canvas, group));
  canvas.row("grow", { ...attributes, "data-chart": "unowned" }, () => drawUnowned(canvas, group));
  if (progress !== null && progress.samples.length > 0) {
    canvas.row("grow", { ...attributes, "data-chart": "throughput" }, () => drawThroughput(canvas, progress));
    canvas.row("grow", { ...attributes, "data-chart": "lag" }, () => drawLag(canvas, progress));
  }
}

function drawGroupState(canvas: TimelineCanvas, group: GroupTimeline): void {
  const y = canvas.y;
  canvas.rowLabel("group state", y, STATE_ROW, { sub: "state · epochs · members" });
  for (const s of group.segments) {
    const tip = `${s.state} · group epoch ${s.groupEpoch} · assignment epoch ${s.assignmentEpoch} · ${s.members} members · ${formatSpan(s.fromUs, s.toUs)}`;
    canvas.rect(s.fromUs, s.toUs, y + 2, STATE_ROW - 3, `seg ${stateClass(s.state)}`, tip);
    canvas.text(s.fromUs, s.toUs, y + 14.5, `${s.state} ${s.groupEpoch}/${s.assignmentEpoch} · ${s.members}m`);
  }
  canvas.y += STATE_ROW + 2;
}

function drawEpochs(canvas: TimelineCanvas, group: GroupTimeline): void {
  const end = canvas.durationUs;
  const y = canvas.y;
  const maxEpoch = Math.max(1, ...group.segments.map((s) => Math.max(s.groupEpoch, s.assignmentEpoch)));
  const top = y + 8;
  const bottom = y + EPOCH_CHART - 4;
  const epochY = (e: number) => bottom - (Math.max(e, 0) / maxEpoch) * (bottom - top);
  canvas.rowLabel("group epoch", y, EPOCH_CHART / 2, { swatch: "sw-ge", sub: `0 to ${maxEpoch}` });
  canvas.rowLabel("assignment epoch", y + EPOCH_CHART / 2, EPOCH_CHART / 2, { swatch: "sw-ae" });
  canvas.hline(0, end, bottom + 0.5, "axisline");
  const steps = (pick: (s: GroupTimeline["segments"][number]) => number) =>
    group.segments.flatMap((s) => [[s.fromUs, epochY(pick(s))] as const, [s.toUs, epochY(pick(s))] as const]);
  if (group.segments.length > 0) {
    // The dashed assignment epoch over the solid group epoch: where they agree both stay visible.
    canvas.polyline(
      steps((s) => s.groupEpoch),
      "ge",
    );
    canvas.polyline(
      steps((s) => s.assignmentEpoch),
      "ae",
    );
  }
  let shown = -1;
  for (const s of group.segments) {
    if (s.groupEpoch === shown) continue;
    shown = s.groupEpoch;
    canvas.text(s.fromUs, s.toUs, epochY(s.groupEpoch) - 3, String(s.groupEpoch), "lbl ep");
  }
  for (const t of group.targets)
    canvas.glyph(
      t.tUs,
      top - 3,
      "target",
      "target",
      `${formatSeconds(t.tUs)} · new target assignment, epoch ${t.assignmentEpoch} (${t.assignor}): ${t.moved} partitions move`,
    );
  canvas.y += EPOCH_CHART;
}

function drawUnowned(canvas: TimelineCanvas, group: GroupTimeline): void {
  const end = canvas.durationUs;
  const y = canvas.y;
  const peak = Math.max(0, ...group.unowned.map((s) => s.count));
  canvas.rowLabel("unowned partitions", y, UNOWNED_CHART, {
    swatch: "sw-unowned",
    sub: `no live owner · max ${peak} of ${group.partitions}`,
  });
  const floor = y + UNOWNED_CHART - 4;
  const countY = (c: number) => floor - (group.partitions === 0 ? 0 : (c / group.partitions) * (UNOWNED_CHART - 10));
  const points: (readonly [Micros, number])[] = [[0, floor]];
  group.unowned.forEach((step, i) => {
    const next = group.unowned[i + 1]?.tUs ?? end;
    points.push([step.tUs, countY(step.count)], [next, countY(step.count)]);
    if (step.count > 0) canvas.text(step.tUs, next, countY(step.count) - 2, String(step.count), "lbl ep");
  });
  points.push([end, floor]);
  canvas.hline(0, end, floor + 0.5, "axisline");
  canvas.polyline(points, "unowned", true);
  canvas.y += UNOWNED_CHART + 4;
}

/** A step chart of one value of the samples (each holds over the bucket that ends at its time), as an area or a line. */
function sampleChart(
  canvas: TimelineCanvas,
  samples: readonly ProgressSample[],
  value: (s: ProgressSample) => number | null,
  label: string,
  sub: (peak: number) => string,
  cls: string,
  swatch: string,
): void {
  const y = canvas.y;
  const values = samples.map(value);
  const peak = Math.max(0, ...values.map((v) => v ?? 0));
  canvas.rowLabel(label, y, PROGRESS_CHART, { swatch, sub: sub(peak) });
  const floor = y + PROGRESS_CHART - 4;
  const at = (v: number) => floor - (peak === 0 ? 0 : (v / peak) * (PROGRESS_CHART - 10));
  const points: (readonly [Micros, number])[] = [[0, floor]];
  let from: Micros = 0;
  samples.forEach((sample, i) => {
    const v = values[i] ?? null;
    if (v !== null) points.push([from, at(v)], [sample.tUs, at(v)]);
    from = sample.tUs;
  });
  points.push([from, floor]);
  canvas.hline(0, canvas.durationUs, floor + 0.5, "axisline");
  canvas.polyline(points, cls, true);
  // Tooltips: one invisible bar per sample.
  from = 0;
  samples.forEach((sample, i) => {
    const v = values[i];
    if (v !== null && v !== undefined)
      canvas.rect(from, sample.tUs, y, PROGRESS_CHART, "hit", `${label} ${formatSpan(from, sample.tUs)}: ${Math.round(v * 10) / 10}`);
    from = sample.tUs;
  });
  canvas.y += PROGRESS_CHART + 2;
}

function drawThroughput(canvas: TimelineCanvas, progress: GroupProgress): void {
  sampleChart(
    canvas,
    progress.samples,
    (s) => s.recordsPerSecond,
    "records/s",
    (peak) => `consumed · max ${Math.round(peak)}/s`,
    "rps",
    "sw-rps",
  );
}

function drawLag(canvas: TimelineCanvas, progress: GroupProgress): void {
  const end = progress.logEnd === "synthetic" ? "log end" : "high watermark";
  sampleChart(
    canvas,
    progress.samples,
    (s) => s.lag,
    "consumer lag",
    (peak) => `${end} − position · max ${Math.round(peak)}`,
    "lag",
    "sw-lag",
  );
}
