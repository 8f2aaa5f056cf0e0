import { renderChecksSection, verdictLine } from "./checks-section.js";
import { renderExplanationPanel } from "./explanation-panel.js";
import { renderFaultTables, renderMetricsSection } from "./metrics-section.js";
import type { ReportData } from "./report-data.js";
import { paletteCss } from "./report-palette.js";
import { REPORT_SCRIPT } from "./report-script.js";
import { REPORT_CSS } from "./report-style.js";
import { escapeXml } from "./svg-markup.js";
import { formatDuration } from "./time-format.js";
import { memberColours, renderTimelineSection } from "./timeline-section.js";

/** Forbids the page every fetch: no network, whatever a history line contains. Inline style and script only. */
const CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:";

/**
 * The whole report as one self-contained HTML page: header (run, verdict,
 * replay command), the timeline, the checks with their violations, the
 * faults and timer expiries, and the metrics. Inline CSS, SVG and script;
 * nothing is loaded from anywhere.
 */
export function renderReportHtml(data: ReportData): string {
  const { run } = data;
  const verdict = verdictLine(data.checks);
  const partitions = data.ownership.length;
  const facts = [
    ["host", run.host ?? "?"],
    ["virtual time", formatDuration(run.durationUs)],
    ["history", `${run.historyEvents.toLocaleString("en-US")} events`],
    ["groups", String(data.groups.length)],
    ["members", String(data.members.length)],
    ["partitions", String(partitions)],
    ["faults", String(data.faults.length + data.processes.filter((p) => p.bands.length > 0 || p.marks.length > 0).length)],
    ["history hash", run.historyHash === null ? "?" : run.historyHash.slice(0, 16)],
  ];
  const title = `kcsim report: ${run.scenario} seed ${run.seed}`;
  return [
    "<!DOCTYPE html>",
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeXml(title)}</title>`,
    `<style>${REPORT_CSS}\n${paletteCss(memberColours(data).size)}</style>`,
    "</head><body>",
    "<header>",
    `<h1>kcsim report · <span class="scenario">${escapeXml(run.scenario)}</span> · seed ${run.seed}</h1>`,
    `<a href="#checks" class="verdict ${verdict.ok ? "ok" : "fail"}">${escapeXml(verdict.text)}</a>`,
    `<div class="facts">${facts.map(([k, v]) => `<span>${escapeXml(k ?? "")} <b>${escapeXml(v ?? "")}</b></span>`).join("")}</div>`,
    run.replay === null ? "" : `<div class="facts"><span>replay <code class="replay">${escapeXml(run.replay)}</code></span></div>`,
    '<nav><a href="#timeline">Timeline</a><a href="#checks">Checks</a><a href="#faults">Faults and timers</a><a href="#metrics">Metrics</a></nav>',
    data.notes.length === 0 ? "" : `<div class="notes">${data.notes.map((n) => `<div>${escapeXml(n)}</div>`).join("")}</div>`,
    "</header><main>",
    renderTimelineSection(data),
    renderExplanationPanel(data.explanations, { members: data.members, ownership: data.ownership, colourOf: memberColours(data) }),
    renderChecksSection(data.checks),
    renderFaultTables(data.faults, data.timers),
    renderMetricsSection(data.metrics, data.connectionStats),
    "</main>",
    `<script>${REPORT_SCRIPT}</script>`,
    "</body></html>",
    "",
  ].join("\n");
}
