import { affectedText } from "./fault-lane.js";
import type { ConnectionStats, FaultBand, TimerExpiry } from "./report-data.js";
import { escapeXml } from "./svg-markup.js";
import { formatDuration, formatSeconds, formatSpan } from "./time-format.js";

/** Rows a table of timers or faults shows at most (the timeline shows them all). */
const MAX_ROWS = 500;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** "unownedPartitionSeconds" -> "unowned partition seconds"; "timeToStableMs" -> "time to stable ms". */
export function words(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();
}

/** A metric value as text: numbers grouped by thousands, lists joined, null as a dash. */
export function formatValue(value: unknown): string {
  if (value === null || value === undefined) return "-";
  if (typeof value === "number")
    return Number.isInteger(value) ? value.toLocaleString("en-US") : value.toLocaleString("en-US", { maximumFractionDigits: 3 });
  if (Array.isArray(value)) {
    const shown = value.slice(0, 12).map(formatValue).join(", ");
    return value.length > 12 ? `${shown}, ... (${value.length})` : shown;
  }
  if (isRecord(value)) return JSON.stringify(value);
  return String(value);
}

function table(headers: readonly string[], rows: readonly (readonly unknown[])[], cls = "metrics"): string {
  const head = headers.map((h) => `<th>${escapeXml(h)}</th>`).join("");
  const body = rows
    .map((r) => `<tr>${r.map((v) => `<td class="${typeof v === "number" ? "num" : ""}">${escapeXml(formatValue(v))}</td>`).join("")}</tr>`)
    .join("");
  return `<div class="table-scroll"><table class="${cls}"><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table></div>`;
}

/**
 * The metrics section, drawn from the summary's metrics whatever fields
 * they have (later issues add some): numbers as cards, lists of objects
 * (per group) as tables, maps of objects (per message type) as tables
 * sorted by their first number.
 */
export function renderMetricsSection(metrics: unknown, connections: readonly ConnectionStats[] = []): string {
  const connectionTable = renderConnectionTable(connections);
  if (!isRecord(metrics))
    return `<section id="metrics"><h2>Metrics</h2><p class="muted">This run directory has no summary.json: no metrics.</p>${connectionTable}</section>`;
  const cards: string[] = [];
  const tables: string[] = [];
  for (const [key, value] of Object.entries(metrics)) {
    if (Array.isArray(value) && value.every(isRecord)) {
      if (value.length === 0) continue;
      const columns = [...new Set(value.flatMap((v) => Object.keys(v)))];
      tables.push(
        `<h3>${escapeXml(words(key))}</h3>${table(
          columns.map(words),
          value.map((v) => columns.map((c) => v[c])),
        )}`,
      );
    } else if (isRecord(value) && Object.values(value).length > 0 && Object.values(value).every(isRecord)) {
      const entries = Object.entries(value) as [string, Record<string, unknown>][];
      const columns = [...new Set(entries.flatMap(([, v]) => Object.keys(v)))];
      const first = columns.find((c) => entries.some(([, v]) => typeof v[c] === "number"));
      if (first !== undefined) entries.sort(([, a], [, b]) => Number(b[first] ?? 0) - Number(a[first] ?? 0));
      tables.push(
        `<h3>${escapeXml(words(key))}</h3>${table(
          ["", ...columns.map(words)],
          entries.map(([name, v]) => [name, ...columns.map((c) => v[c])]),
        )}`,
      );
    } else {
      cards.push(
        `<div class="card"><div class="cv">${escapeXml(formatValue(value))}</div><div class="ck">${escapeXml(words(key))}</div></div>`,
      );
    }
  }
  return `<section id="metrics"><h2>Metrics</h2><div class="cards">${cards.join("")}</div>${connectionTable}${tables.join("")}</section>`;
}

/** What the connections did, per kind of client actor (from the history's connection lines; nothing in datagram mode). */
export function renderConnectionTable(connections: readonly ConnectionStats[]): string {
  if (connections.length === 0) return "";
  const rows = connections.map((c) => [
    c.kind,
    c.actors,
    c.opened,
    c.broken,
    c.reset,
    c.requestTimeouts,
    c.connectTimeouts,
    c.messagesLost,
    c.longestOutageUs === null ? "-" : formatDuration(c.longestOutageUs),
  ]);
  return `<h3>connections, by kind of client</h3>${table(
    [
      "client kind",
      "actors",
      "opened",
      "broken by a fault",
      "reset by the server",
      "closed: a request timed out",
      "connect timed out",
      "messages lost with a broken one",
      "longest down",
    ],
    rows,
    "metrics connections",
  )}`;
}

/** The faults and the timer expiries as tables (the timeline draws them; these list them). */
export function renderFaultTables(faults: readonly FaultBand[], timers: readonly TimerExpiry[]): string {
  const faultRows = faults
    .slice(0, MAX_ROWS)
    .map((f) => [f.name, f.kind, `${formatSpan(f.fromUs, f.toUs)}${f.declared ? "" : " (inferred)"}`, f.detail, affectedText(f.affected)]);
  const timerRows = timers
    .slice(0, MAX_ROWS)
    .map((t) => [
      formatSeconds(t.tUs),
      t.kind,
      t.actor ?? "",
      t.memberId,
      t.groupId,
      t.memberEpoch ?? "",
      t.sinceUs === null ? "" : `last poll ${formatSeconds(t.sinceUs)}`,
    ]);
  return [
    `<section id="faults"><h2>Faults and timer expiries</h2>`,
    faults.length === 0
      ? `<p class="muted">No message faults or network partitions.</p>`
      : table(["fault", "kind", "window", "what it does", "what it did"], faultRows),
    timers.length === 0
      ? `<p class="muted">No member was removed and no poll timer expired.</p>`
      : `<h3>Removals and timer expiries${timers.length > MAX_ROWS ? ` (first ${MAX_ROWS} of ${timers.length})` : ""}</h3>${table(["time", "why", "member", "member id", "group", "epoch", ""], timerRows)}`,
    "</section>",
  ].join("");
}
