import type { Micros } from "@kcsim/protocol";
import type { ConnectionMark, ConnectionOutage, ConnectionTimeline, ConnectionTrouble } from "./report-data.js";
import { escapeXml } from "./svg-markup.js";
import { formatDuration, formatSeconds, formatSpan } from "./time-format.js";
import type { Glyph, TimelineCanvas } from "./timeline-canvas.js";

/** Each trouble in the words of the legend. */
export const TROUBLE_WORDS: Readonly<Record<ConnectionTrouble, string>> = {
  break: "connection broken by a fault",
  reset: "connection reset",
  close: "closed: request timed out",
  "connect-timeout": "connect timed out",
};

export const troubleGlyph = (what: ConnectionTrouble): Glyph => `conn-${what}`;

/** `member-1 → coordinator-0 "coordinator"`: a client's connection to a server, by name when it has one. */
function connectionName(client: string, peer: string, connection: string): string {
  return `${client} → ${peer}${connection === "" ? "" : ` "${connection}"`}`;
}

function readyAgain(fromUs: Micros, readyUs: Micros | null): string {
  return readyUs === null
    ? "not ready again before the run ended or the client went down"
    : `ready again at ${formatSeconds(readyUs)} (down ${formatDuration(readyUs - fromUs)})`;
}

/** What a connection mark's tooltip says: which connection, what happened and why, when each end noticed, what it cost. */
export function connectionMarkTip(client: string, mark: ConnectionMark): string {
  const which = `${connectionName(client, mark.peer, mark.connection)} (generation ${mark.gen})`;
  const parts = [`${formatSeconds(mark.tUs)} · ${which}`];
  switch (mark.what) {
    case "break":
      parts.push(`broken by ${mark.reason ?? "a fault"}`);
      if (mark.noticedUs !== null)
        parts.push(`${client} noticed at ${formatSeconds(mark.noticedUs[0])}, ${mark.peer} at ${formatSeconds(mark.noticedUs[1])}`);
      parts.push(`${mark.lost} message${mark.lost === 1 ? "" : "s"} lost with it`);
      break;
    case "reset":
      parts.push(`reset${mark.reason === null ? "" : `: ${mark.reason}`}`);
      break;
    case "close":
      parts.push(`closed by ${client}${mark.reason === null ? "" : `: ${mark.reason}`}`);
      break;
    case "connect-timeout":
      parts.push(`connect timed out${mark.reason === null ? "" : `: ${mark.reason}`}`);
      break;
  }
  parts.push(readyAgain(mark.tUs, mark.readyAgainUs));
  return parts.join(" · ");
}

/** What an outage's tooltip says. */
export function connectionOutageTip(client: string, outage: ConnectionOutage): string {
  const cause = `${outage.cause}${outage.reason === null ? "" : ` (${outage.reason})`}`;
  const attempts =
    outage.failedAttempts === 0 ? "" : ` · ${outage.failedAttempts} more failed attempt${outage.failedAttempts === 1 ? "" : "s"}`;
  const end = outage.reconnected ? `ready again after ${formatDuration(outage.toUs - outage.fromUs)}` : "not ready again";
  return `${connectionName(client, outage.peer, outage.connection)} down after ${cause} · ${formatSpan(outage.fromUs, outage.toUs)} · ${end}${attempts}`;
}

/**
 * One client's connection trouble on its row: each outage as a thin bar
 * (`barY`, `barHeight`), each trouble as a glyph at `markY`.
 */
export function drawConnections(
  canvas: TimelineCanvas,
  timeline: ConnectionTimeline,
  barY: number,
  barHeight: number,
  markY: number,
): void {
  for (const outage of timeline.outages)
    canvas.rect(
      outage.fromUs,
      outage.toUs,
      barY,
      barHeight,
      `conn-down${outage.reconnected ? "" : " open"}`,
      connectionOutageTip(timeline.actor, outage),
    );
  for (const mark of timeline.marks) {
    const glyph = troubleGlyph(mark.what);
    canvas.glyph(
      mark.tUs,
      markY,
      glyph,
      `conn ${glyph}`,
      connectionMarkTip(timeline.actor, mark),
      ` data-peer="${escapeXml(mark.peer)}" data-what="${mark.what}"`,
    );
  }
}
