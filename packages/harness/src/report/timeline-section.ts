import { TROUBLE_WORDS, troubleGlyph } from "./connection-marks.js";
import { drawFaultLane } from "./fault-lane.js";
import { drawGroupLane } from "./group-lane.js";
import { drawMemberLane, type EventMark } from "./member-lane.js";
import { drawOwnershipLane } from "./ownership-lane.js";
import type { ConnectionTrouble, ReportData } from "./report-data.js";
import { SERVER_STATE_COLOURS, STATE_COLOURS, stateClass } from "./report-palette.js";
import { escapeXml } from "./svg-markup.js";
import { formatSeconds } from "./time-format.js";
import { AXIS_HEIGHT, type Glyph, LABEL_WIDTH, TimelineCanvas } from "./timeline-canvas.js";

/** Each member actor's colour class (`m0`, `m1`, ...): members in report order, then any other owner. */
export function memberColours(data: ReportData): Map<string, string> {
  const colours = new Map<string, string>();
  const add = (actor: string) => {
    if (!colours.has(actor)) colours.set(actor, `m${colours.size}`);
  };
  for (const member of data.members) add(member.actor);
  for (const row of data.ownership) for (const interval of row.intervals) add(interval.actor);
  return colours;
}

const swatch = (cls: string, text: string, attrs = "") => `<span class="key"${attrs}><i class="${cls}"></i>${escapeXml(text)}</span>`;
const glyphKey = (glyph: Glyph, cls: string, text: string) =>
  `<span class="key"><svg width="14" height="14" viewBox="-7 -7 14 14"><g class="${cls}"><use href="#g-${glyph}"/></g></svg>${escapeXml(text)}</span>`;

function legend(data: ReportData, colours: ReadonlyMap<string, string>): string {
  const seen = new Set<string>();
  for (const g of data.groups) for (const s of g.segments) seen.add(s.state);
  for (const m of data.members) for (const s of m.states) seen.add(s.state);
  const serverSeen = new Set<string>();
  for (const m of data.members) for (const s of m.serverStates) serverSeen.add(s.state);
  const states = [...Object.keys(STATE_COLOURS).filter((s) => seen.has(s)), ...[...seen].filter((s) => !(s in STATE_COLOURS))];
  const serverStates = [
    ...Object.keys(SERVER_STATE_COLOURS).filter((s) => serverSeen.has(s)),
    ...[...serverSeen].filter((s) => !(s in SERVER_STATE_COLOURS)),
  ];
  const members = [...colours]
    .map(([actor, cls]) => swatch(cls, actor, ` data-member="${escapeXml(actor)}" data-colour="${cls}"`))
    .join("");
  return [
    `<div class="legend"><b>Members</b> <span class="hint">(hover to pick out a member's partitions)</span> ${members}</div>`,
    `<div class="legend"><b>States</b> ${states.map((s) => swatch(stateClass(s), s)).join("")}`,
    serverStates.length === 0 ? "" : ` <b>Coordinator</b> ${serverStates.map((s) => swatch(stateClass(s, true), s)).join("")}`,
    "</div>",
    `<div class="legend"><b>Marks</b> ${swatch("band-message-key", "message faults")}${swatch("band-partition-key", "partition")}${swatch("pb-down", "process down")}${swatch("pb-paused", "paused")}${swatch("pb-app-paused", "app thread paused")}`,
    glyphKey("start", "life life-start", "start/restart"),
    glyphKey("crash", "life life-crash", "crash/stop"),
    glyphKey("pause", "life life-pause", "pause"),
    glyphKey("resume", "life life-resume", "resume"),
    glyphKey("command", "life life-command", "command"),
    glyphKey("timeout", "timer timer-timeout", "removed: timeout"),
    glyphKey("leave", "timer timer-leave", "removed: leave"),
    glyphKey("poll", "timer timer-poll", "poll timeout"),
    glyphKey("target", "target", "new target assignment"),
    glyphKey("ring", "evmark", "violating event"),
    "</div>",
    connectionLegend(data),
  ].join("");
}

/** The connection marks the run has, in the legend's words (nothing for a run without connection trouble). */
function connectionLegend(data: ReportData): string {
  const seen = new Set<ConnectionTrouble>();
  for (const c of data.connections) for (const m of c.marks) seen.add(m.what);
  if (seen.size === 0) return "";
  const troubles = (Object.keys(TROUBLE_WORDS) as ConnectionTrouble[]).filter((what) => seen.has(what));
  return [
    `<div class="legend"><b>Connections</b> ${swatch("conn-down-key", "down until ready again")}`,
    ...troubles.map((what) => glyphKey(troubleGlyph(what), `conn ${troubleGlyph(what)}`, TROUBLE_WORDS[what])),
    "</div>",
  ].join("");
}

/** The member and topic filters: a member shows its row and the partitions it ever owned; a topic its partitions. */
function filters(data: ReportData, colours: ReadonlyMap<string, string>): string {
  const option = (value: string) => `<option value="${escapeXml(value)}">${escapeXml(value)}</option>`;
  const topics = [...new Set(data.ownership.map((r) => r.topic))];
  return [
    `<label class="filter">member <select id="f-member"><option value="">all</option>${[...colours.keys()].map(option).join("")}</select></label>`,
    `<label class="filter">topic <select id="f-topic"><option value="">all</option>${topics.map(option).join("")}</select></label>`,
  ].join("");
}

/**
 * The timeline section: every lane drawn on one time axis (faults, groups,
 * members, ownership), violations as numbered red lines, the legend, and
 * the zoom controls the page script drives.
 */
export function renderTimelineSection(data: ReportData): string {
  const canvas = new TimelineCanvas(data.run.durationUs);
  const colours = memberColours(data);
  const connections = new Map(data.connections.map((c) => [c.actor, c]));
  drawFaultLane(canvas, data.faults, data.processes, connections);
  for (const group of data.groups) drawGroupLane(canvas, group, data.progress.find((p) => p.groupId === group.groupId) ?? null);
  const eventMarks = new Map<string, EventMark[]>();
  for (const check of data.checks ?? []) {
    for (const v of check.violations) {
      const tip = `violation #${v.number} (${check.name}) at ${formatSeconds(v.tUs)}: ${v.message}`;
      canvas.vline(v.tUs, "vline", tip);
      canvas.axisFlag(v.tUs, String(v.number), `${tip} (click: why it happened)`, v.number);
      for (const event of v.events) {
        if (event.actor === null || event.tUs === null) continue;
        const list = eventMarks.get(event.actor) ?? [];
        list.push({ tUs: event.tUs, tip: `violation #${v.number} (${check.name}): history line ${event.line}`, violation: v.number });
        eventMarks.set(event.actor, list);
      }
    }
  }
  if (data.members.length > 0)
    drawMemberLane(canvas, { members: data.members, colourOf: colours, timers: data.timers, eventMarks, connections });
  drawOwnershipLane(canvas, data.ownership, colours);
  return [
    `<section id="timeline"><h2>Timeline</h2>`,
    `<div class="toolbar"><button type="button" data-zoom="fit" title="fit the whole run">Fit</button><button type="button" data-zoom="out" title="zoom out">&minus;</button><button type="button" data-zoom="in" title="zoom in">+</button>`,
    `<span id="tl-zoom" class="readout">1&times;</span><span id="tl-time" class="readout"></span>`,
    filters(data, colours),
    `<span class="hint">drag on the time axis to zoom into a span · Ctrl+wheel zooms · scroll to pan · hover any shape for details · the address bar keeps the view</span></div>`,
    legend(data, colours),
    `<div class="tl-scroll" id="tl-scroll"><div class="tl-grid" style="grid-template-columns:${LABEL_WIDTH}px max-content">`,
    `<div class="tl-corner" style="height:${AXIS_HEIGHT}px">virtual time</div>`,
    canvas.axisSvg(),
    canvas.labelsSvg(),
    canvas.plotSvg(),
    "</div></div></section>",
  ].join("");
}
