import type { Micros } from "@kcsim/protocol";
import { TROUBLE_WORDS, troubleGlyph } from "./connection-marks.js";
import type { ChainEvent, ChainLogLine, ConnectionTrouble, Explanation, MemberTimeline, OwnershipRow } from "./report-data.js";
import { stateClass } from "./report-palette.js";
import { escapeXml, num, title } from "./svg-markup.js";
import { formatSeconds } from "./time-format.js";
import { glyphShape } from "./timeline-canvas.js";

const LABEL_W = 130;
const PLOT_W = 860;
const AXIS_H = 24;
const MEMBER_LANE = 40;
const OTHER_LANE = 28;
/** Shapes narrower than this are drawn this wide, so an instant-long state or tenure stays visible. */
const MIN_PX = 2;

export interface ExplanationContext {
  readonly members: readonly MemberTimeline[];
  readonly ownership: readonly OwnershipRow[];
  /** Member colour classes (`m0`, ...). */
  readonly colourOf: ReadonlyMap<string, string>;
}

const seconds6 = (us: Micros) => `${(us / 1e6).toFixed(6)} s`;

function niceStep(raw: number): number {
  const p = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}

/** The chain's timeline: one lane per actor, the violation's partitions' owners, messages as arrows with their fates. */
function chainSvg(x: Explanation, context: ExplanationContext): string {
  const span = Math.max(x.toUs - x.fromUs, 1);
  const px = (t: Micros) => ((Math.min(Math.max(t, x.fromUs), x.toUs) - x.fromUs) / span) * PLOT_W;
  const width = (a: Micros, b: Micros) => Math.max(px(b) - px(a), MIN_PX);
  const laneY = new Map<string, { y: number; h: number }>();
  let y = AXIS_H;
  for (const actor of x.actors) {
    const h = x.members.includes(actor) ? MEMBER_LANE : OTHER_LANE;
    laneY.set(actor, { y, h });
    y += h;
  }
  const height = y + 4;
  const out: string[] = [];
  // The axis.
  const step = niceStep(span / 8);
  for (let t = Math.ceil(x.fromUs / step) * step; t <= x.toUs; t += step) {
    const tx = num(LABEL_W + px(t), 1);
    out.push(`<line x1="${tx}" x2="${tx}" y1="${AXIS_H - 4}" y2="${height}" class="xgrid"/>`);
    out.push(`<text x="${tx}" y="${AXIS_H - 8}" class="xtick">${escapeXml(formatTick(t, step))}</text>`);
  }
  // Lanes: labels, member states, ownership of the violation's partitions.
  for (const [actor, lane] of laneY) {
    const member = context.members.find((m) => m.actor === actor);
    out.push(`<line x1="0" x2="${LABEL_W + PLOT_W}" y1="${lane.y + lane.h}" y2="${lane.y + lane.h}" class="xlane"/>`);
    const swatch =
      member === undefined
        ? ""
        : `<rect x="6" y="${lane.y + 7}" width="9" height="9" rx="2" class="${context.colourOf.get(actor) ?? "m0"}"/>`;
    out.push(`${swatch}<text x="${member === undefined ? 6 : 19}" y="${lane.y + 15}" class="xlabel">${escapeXml(actor)}</text>`);
    if (member !== undefined) {
      for (const s of member.states) {
        if (s.toUs < x.fromUs || s.fromUs > x.toUs) continue;
        const tip = `${actor}: ${s.state} · member epoch ${s.memberEpoch} · ${formatSeconds(s.fromUs)} to ${formatSeconds(s.toUs)}`;
        out.push(
          `<rect x="${num(LABEL_W + px(s.fromUs), 1)}" y="${lane.y + 3}" width="${num(width(s.fromUs, s.toUs), 1)}" height="12" class="seg ${stateClass(s.state)}">${title(tip)}</rect>`,
        );
        if (width(s.fromUs, s.toUs) > s.state.length * 6 + 24)
          out.push(
            `<text x="${num(LABEL_W + px(s.fromUs) + 3, 1)}" y="${lane.y + 12.5}" class="xstate">${escapeXml(`${s.state} e${s.memberEpoch}`)}</text>`,
          );
      }
      for (const row of context.ownership) {
        const key = `${row.topic}-${row.partition}`;
        if (!x.partitions.includes(key)) continue;
        for (const i of row.intervals) {
          if (i.actor !== actor || i.toUs < x.fromUs || i.fromUs > x.toUs) continue;
          const tip = `${actor} owns ${key}${i.live ? "" : " (fenced)"} · ${formatSeconds(i.fromUs)} to ${formatSeconds(i.toUs)}`;
          out.push(
            `<rect x="${num(LABEL_W + px(i.fromUs), 1)}" y="${lane.y + 18}" width="${num(width(i.fromUs, i.toUs), 1)}" height="7" class="own ${context.colourOf.get(actor) ?? "m0"}${i.live ? "" : " z"}">${title(tip)}</rect>`,
          );
        }
      }
    }
  }
  // The spans where the violation's partitions had two live owners.
  for (const row of context.ownership) {
    if (!x.partitions.includes(`${row.topic}-${row.partition}`)) continue;
    for (const c of row.conflicts) {
      if (c.toUs < x.fromUs || c.fromUs > x.toUs) continue;
      out.push(
        `<rect x="${num(LABEL_W + px(c.fromUs), 1)}" y="${AXIS_H}" width="${num(width(c.fromUs, c.toUs), 1)}" height="${height - AXIS_H}" class="xconflict">${title(`${row.topic}-${row.partition}: two live owners · ${formatSeconds(c.fromUs)} to ${formatSeconds(c.toUs)}`)}</rect>`,
      );
    }
  }
  // Messages, then the events and log lines of each lane.
  for (const e of x.events) {
    if (e.kind !== "send" || e.to === undefined) continue;
    const from = laneY.get(e.actor);
    const to = laneY.get(e.to);
    if (from === undefined || to === undefined) continue;
    const x1 = LABEL_W + px(e.tUs);
    const y1 = from.y + from.h - 6;
    const y2 = to.y + to.h - 6;
    const arrival = e.arrivals?.[0];
    const tip = `${formatSeconds(e.tUs)} ${e.label}`;
    if (arrival === undefined) {
      const xm = x1 + 6;
      const ym = (y1 + y2) / 2;
      out.push(
        `<g class="xmsg lost" data-row="${e.index}">${title(tip)}<line x1="${num(x1, 1)}" y1="${y1}" x2="${num(xm, 1)}" y2="${num(ym, 1)}"/><path d="M${num(xm - 3, 1)} ${num(ym - 3, 1)}l6 6m0-6l-6 6"/></g>`,
      );
    } else {
      out.push(
        `<g class="xmsg${e.fate === "deliver" ? "" : " odd"}" data-row="${e.index}">${title(tip)}<line x1="${num(x1, 1)}" y1="${y1}" x2="${num(LABEL_W + px(arrival), 1)}" y2="${y2}"/></g>`,
      );
    }
  }
  for (const e of x.events) {
    if (e.kind === "send") continue;
    const lane = laneY.get(e.actor);
    if (lane === undefined) continue;
    if (e.kind === "conn") {
      out.push(connectionMark(e, LABEL_W + px(e.tUs), lane.y + lane.h - 6, px, laneY));
      continue;
    }
    out.push(
      `<circle cx="${num(LABEL_W + px(e.tUs), 1)}" cy="${lane.y + lane.h - 6}" r="3" class="xev xev-${e.kind}" data-row="${e.index}">${title(`${formatSeconds(e.tUs)} ${e.actor}: ${e.label} ${e.detail}`)}</circle>`,
    );
  }
  for (const l of x.logs) {
    const lane = laneY.get(l.actor);
    if (lane === undefined) continue;
    out.push(
      `<path d="M${num(LABEL_W + px(l.tUs), 1)} ${lane.y + lane.h - 14}l3 3l-3 3l-3-3z" class="xlog">${title(`${formatSeconds(l.tUs)} ${l.actor} log ${l.level}: ${l.message} ${l.fields}`)}</path>`,
    );
  }
  const vx = num(LABEL_W + px(x.tUs), 1);
  out.push(
    `<line x1="${vx}" x2="${vx}" y1="${AXIS_H - 4}" y2="${height}" class="xviolation">${title(`violation #${x.number} at ${seconds6(x.tUs)}`)}</line>`,
  );
  return `<svg class="xsvg" width="${LABEL_W + PLOT_W + 8}" height="${height}" xmlns="http://www.w3.org/2000/svg">${out.join("")}</svg>`;
}

/** Connect and ready: a small grey diamond (the troubles have the timeline's glyphs). */
const CONNECT_SHAPE = '<path d="M0-3L3 0L0 3L-3 0Z"/>';

/**
 * A connection event on its client's lane. A break also shows, as a dashed
 * line on the client's lane and on its server's (when the chain has one),
 * how long each end went on unaware that it was broken.
 */
function connectionMark(
  e: ChainEvent,
  x: number,
  y: number,
  px: (t: Micros) => number,
  laneY: ReadonlyMap<string, { y: number; h: number }>,
): string {
  const what = e.connection?.what ?? "";
  const parts: string[] = [];
  const noticed = e.connection?.noticedUs ?? null;
  if (what === "break" && noticed !== null) {
    parts.push(`<line x1="${num(x, 1)}" x2="${num(LABEL_W + px(noticed[0]), 1)}" y1="${y}" y2="${y}" class="xunnoticed"/>`);
    const server = e.connection === undefined ? undefined : laneY.get(e.connection.peer);
    if (server !== undefined) {
      const sy = server.y + server.h - 6;
      parts.push(`<line x1="${num(x, 1)}" x2="${num(LABEL_W + px(noticed[1]), 1)}" y1="${sy}" y2="${sy}" class="xunnoticed"/>`);
    }
  }
  const shape = what in TROUBLE_WORDS ? glyphShape(troubleGlyph(what as ConnectionTrouble)) : CONNECT_SHAPE;
  return `<g class="xconn xc-${escapeXml(what)}" data-row="${e.index}">${title(`${formatSeconds(e.tUs)} ${e.label}`)}${parts.join("")}<g transform="translate(${num(x, 1)} ${y}) scale(.85)">${shape}</g></g>`;
}

function formatTick(t: Micros, step: number): string {
  const digits = step >= 1e6 ? 0 : step >= 1e5 ? 1 : step >= 1e4 ? 2 : step >= 1e3 ? 3 : 6;
  return `${(t / 1e6).toFixed(digits)} s`;
}

type Row = { readonly tUs: Micros; readonly order: number; readonly html: string };

function eventRow(e: ChainEvent, violationUs: Micros): Row {
  const payload =
    e.payload === null ? "" : `<details><summary>payload</summary><code class="event">${escapeXml(e.payload)}</code></details>`;
  const detail = e.detail === "" ? "" : `<code class="event">${escapeXml(e.detail)}</code>`;
  const marker = e.tUs === violationUs ? " xnow" : "";
  return {
    tUs: e.tUs,
    order: e.index,
    html: `<tr class="xrow xk-${e.kind}${marker}" data-row="${e.index}"><td class="num">${seconds6(e.tUs)}</td><td>${escapeXml(e.actor)}</td><td>${escapeXml(e.label)}</td><td>${e.kind === "send" ? payload : detail}</td></tr>`,
  };
}

function logRow(l: ChainLogLine, i: number): Row {
  return {
    tUs: l.tUs,
    order: i - 0.5,
    html: `<tr class="xrow xk-log"><td class="num">${seconds6(l.tUs)}</td><td>${escapeXml(l.actor)}</td><td>log ${escapeXml(l.level)}: ${escapeXml(l.message)}</td><td>${l.fields === "" ? "" : `<code class="event">${escapeXml(l.fields)}</code>`}</td></tr>`,
  };
}

/** One violation's explanation: the chain drawn on its own short time axis, then every event, message and log line in order. */
export function renderExplanation(x: Explanation, context: ExplanationContext): string {
  const rows = [...x.events.map((e) => eventRow(e, x.tUs)), ...x.logs.map((l, i) => logRow(l, i))].sort(
    (a, b) => a.tUs - b.tUs || a.order - b.order,
  );
  const who = x.members.length === 0 ? "no member named" : x.members.join(" and ");
  return [
    `<section class="explain" data-v="${x.number}" hidden>`,
    `<h3><span class="flagnum">${x.number}</span> <code>${escapeXml(x.check)}</code> at ${seconds6(x.tUs)}</h3>`,
    `<p>${escapeXml(x.message)}</p>`,
    `<p class="muted">involved: <b class="xwho">${escapeXml(who)}</b>${x.partitions.length === 0 ? "" : ` · partitions ${escapeXml(x.partitions.join(", "))}`} · window ${formatSeconds(x.fromUs)} to ${formatSeconds(x.toUs)} (from where their trouble began) · <button type="button" data-span="${num(x.fromUs / 1000)},${num(x.toUs / 1000)}">show the window on the timeline</button></p>`,
    chainSvg(x, context),
    `<p class="muted">${x.events.length} events${x.earlierEventsLeftOut > 0 ? ` (${x.earlierEventsLeftOut} earlier ones left out)` : ""}, ${x.logs.length} log lines; ${escapeXml(x.enrichment)}.</p>`,
    `<div class="xtable"><table class="events"><thead><tr><th>time</th><th>actor</th><th>event</th><th>details</th></tr></thead><tbody>${rows.map((r) => r.html).join("")}</tbody></table></div>`,
    "</section>",
  ].join("");
}

/** The panel the page opens when a violation is clicked: one hidden section per explanation. */
export function renderExplanationPanel(explanations: readonly Explanation[], context: ExplanationContext): string {
  if (explanations.length === 0) return "";
  return [
    `<aside id="xpanel" class="xpanel" hidden><div class="xbar"><b>Why it happened</b><span class="hint">the causal chain behind the violation · click a mark to find its row</span><button type="button" id="xclose" title="close">&times;</button></div>`,
    explanations.map((x) => renderExplanation(x, context)).join(""),
    "</aside>",
  ].join("");
}
