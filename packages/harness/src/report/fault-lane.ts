import type { Micros } from "@kcsim/protocol";
import { drawConnections } from "./connection-marks.js";
import type { ConnectionTimeline, FaultBand, ProcessBand, ProcessMark, ProcessTimeline, TimeSpan } from "./report-data.js";
import { formatSeconds, formatSpan } from "./time-format.js";
import type { Glyph, TimelineCanvas } from "./timeline-canvas.js";

const FAULT_ROW = 18;
/** The strip under a process row with its connections' trouble. */
const CONNECTION_STRIP = 10;
const CONNECTION_BAR = 3;

const FATE_WORDS: Readonly<Record<string, string>> = {
  deliver: "delayed or altered",
  drop: "dropped",
  partitioned: "blocked",
  held: "held back",
  broken: "lost with a connection it broke",
};

/** What a fault did, in words: "34 dropped, 12 delayed or altered". */
export function affectedText(affected: Readonly<Record<string, number>>): string {
  const parts = Object.entries(affected).map(([fate, count]) => `${count} ${FATE_WORDS[fate] ?? fate}`);
  return parts.length === 0 ? "touched no message" : parts.join(", ");
}

const PROCESS_WORDS: Readonly<Record<ProcessBand["kind"], string>> = {
  down: "down",
  paused: "process paused",
  "app-paused": "application thread paused",
};

export function processBandTip(actor: string, band: ProcessBand): string {
  return `${actor} ${PROCESS_WORDS[band.kind]}${band.detail === null ? "" : ` (${band.detail})`} · ${formatSpan(band.fromUs, band.toUs)}`;
}

export function processMarkGlyph(mark: ProcessMark): Glyph {
  switch (mark.what) {
    case "start":
    case "restart":
      return "start";
    case "crash":
    case "stop":
      return "crash";
    case "pause":
      return "pause";
    case "resume":
      return "resume";
    case "clock-step":
      return "clock";
    default:
      return "command";
  }
}

export function processMarkTip(actor: string, mark: ProcessMark): string {
  return `${formatSeconds(mark.tUs)} · ${actor}: ${mark.what}${mark.detail === null ? "" : ` ${mark.detail}`}`;
}

/** Overlapping spans merged into their union. */
export function unionOf(spans: readonly TimeSpan[]): TimeSpan[] {
  const sorted = [...spans].sort((a, b) => a.fromUs - b.fromUs);
  const out: { fromUs: Micros; toUs: Micros }[] = [];
  for (const s of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && s.fromUs <= last.toUs) last.toUs = Math.max(last.toUs, s.toUs);
    else out.push({ fromUs: s.fromUs, toUs: s.toUs });
  }
  return out;
}

/** Draws one process's bands and marks on a row starting at `y` of height `height`. */
export function drawProcess(canvas: TimelineCanvas, process: ProcessTimeline, y: number, height: number, markY: number): void {
  for (const band of process.bands)
    canvas.rect(band.fromUs, band.toUs, y, height, `pb pb-${band.kind}`, processBandTip(process.actor, band));
  for (const mark of process.marks) {
    const glyph = processMarkGlyph(mark);
    canvas.glyph(mark.tUs, markY, glyph, `life life-${glyph}`, processMarkTip(process.actor, mark));
  }
}

/**
 * The fault lane: one row per message fault and network partition (its
 * window, what it does, what it did), then one per non-member process that
 * the nemesis touched or whose connections broke (those in a strip of their
 * own); fault windows and those processes' down times are also shaded
 * across every lane below.
 */
export function drawFaultLane(
  canvas: TimelineCanvas,
  faults: readonly FaultBand[],
  processes: readonly ProcessTimeline[],
  connections: ReadonlyMap<string, ConnectionTimeline> = new Map(),
): void {
  canvas.section("Faults", "message faults, network partitions and process faults; their windows are shaded across every chart");
  if (faults.length === 0 && processes.length === 0) {
    canvas.row("frow", {}, () => {
      canvas.rowLabel("none", canvas.y, FAULT_ROW, { cls: "rl muted" });
      canvas.y += FAULT_ROW;
    });
  }
  for (const fault of faults) {
    canvas.row("frow", { "data-fault": fault.name }, () => {
      const y = canvas.y;
      const kind = fault.kind === "partition" ? "partition" : "message fault";
      const tip = `${fault.name} (${kind}${fault.declared ? "" : ", window inferred"}): ${fault.detail} · ${formatSpan(fault.fromUs, fault.toUs)} · ${affectedText(fault.affected)}`;
      canvas.rowLabel(fault.name, y, FAULT_ROW, { swatch: fault.kind === "partition" ? "fault-partition" : "fault-message" });
      canvas.rect(fault.fromUs, fault.toUs, y + 3, FAULT_ROW - 6, `fault fault-${fault.kind}${fault.declared ? "" : " inferred"}`, tip);
      // The row holds nothing else: the label may run on past the window's end.
      canvas.text(fault.fromUs, canvas.durationUs, y + 12.5, `${fault.detail} · ${affectedText(fault.affected)}`, "lbl flbl");
      canvas.y += FAULT_ROW;
    });
  }
  for (const process of processes) {
    canvas.row("frow", { "data-process": process.actor }, () => {
      const y = canvas.y;
      const connection = connections.get(process.actor);
      const height = connection === undefined ? FAULT_ROW : FAULT_ROW + CONNECTION_STRIP;
      canvas.rowLabel(process.actor, y, height, { cls: "rl" });
      drawProcess(canvas, process, y + 2, height - 4, y + FAULT_ROW / 2);
      if (connection !== undefined) {
        const mid = y + FAULT_ROW + CONNECTION_STRIP / 2 - 2;
        drawConnections(canvas, connection, mid - CONNECTION_BAR / 2, CONNECTION_BAR, mid);
      }
      canvas.y += height;
    });
  }
  const describe = (list: readonly FaultBand[]) => list.map((f) => f.name).join(", ");
  const messageFaults = faults.filter((f) => f.kind === "message");
  for (const span of unionOf(messageFaults))
    canvas.band(span.fromUs, span.toUs, "band band-message", `message faults active: ${describe(messageFaults)}`);
  const partitions = faults.filter((f) => f.kind === "partition");
  for (const span of unionOf(partitions))
    canvas.band(span.fromUs, span.toUs, "band band-partition", `network partition: ${describe(partitions)}`);
  for (const process of processes)
    for (const band of process.bands)
      if (band.kind === "down") canvas.band(band.fromUs, band.toUs, "band band-down", processBandTip(process.actor, band));
}
