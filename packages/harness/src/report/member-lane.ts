import type { Micros } from "@kcsim/protocol";
import { drawConnections } from "./connection-marks.js";
import { drawProcess } from "./fault-lane.js";
import { packLanes } from "./lane-packing.js";
import type { ConnectionTimeline, MemberTimeline, TimerExpiry } from "./report-data.js";
import { stateClass } from "./report-palette.js";
import { formatDuration, formatSeconds, formatSpan } from "./time-format.js";
import type { TimelineCanvas } from "./timeline-canvas.js";

const MEMBER_ROW = 36;
const CLIENT_TOP = 3;
const CLIENT_HEIGHT = 15;
const SERVER_TOP = 20;
const SERVER_HEIGHT = 12;
/** Where the poll gap (no poll() before a poll timeout) runs: just under the coordinator's strip. */
const POLL_GAP_Y = 34;
/** The connection strip under the others (only when some member had connection trouble): outages as a bar, trouble as marks. */
const CONNECTION_STRIP = 10;
const CONNECTION_TOP = 35;
const CONNECTION_BAR = 4;

/** A violating event to ring on its member's row. */
export interface EventMark {
  readonly tUs: Micros;
  readonly tip: string;
  /** The violation it belongs to (clicking it opens that violation's explanation). */
  readonly violation: number;
}

export interface MemberLaneInput {
  readonly members: readonly MemberTimeline[];
  /** The colour class of each member actor (`m0`, ...). */
  readonly colourOf: ReadonlyMap<string, string>;
  readonly timers: readonly TimerExpiry[];
  /** Violating events by the actor they are about. */
  readonly eventMarks: ReadonlyMap<string, readonly EventMark[]>;
  /** Connection trouble by client actor. */
  readonly connections: ReadonlyMap<string, ConnectionTimeline>;
}

export function timerTip(timer: TimerExpiry): string {
  const who = timer.actor ?? `member id ${timer.memberId}`;
  if (timer.kind === "poll-timeout") {
    const gap =
      timer.sinceUs === null ? "" : `: no poll() for ${formatDuration(timer.tUs - timer.sinceUs)} (since ${formatSeconds(timer.sinceUs)})`;
    return `${formatSeconds(timer.tUs)} · ${who}: max.poll.interval.ms expired${gap}`;
  }
  const epoch = timer.memberEpoch === null ? "" : ` at member epoch ${timer.memberEpoch}`;
  return `${formatSeconds(timer.tUs)} · coordinator removed ${who}${epoch}: ${timer.kind}`;
}

/**
 * The member lane: per member, its client state machine (member.state,
 * with the member epoch) over the coordinator's view of it (gc.member
 * state and epoch), its process faults (down, paused, application thread
 * paused), its lifecycle events, its timer expiries and removals, and,
 * in a strip of its own, its connections' breaks, resets and timeouts with
 * the spans they were down.
 */
export function drawMemberLane(canvas: TimelineCanvas, input: MemberLaneInput): void {
  const withConnections = input.members.some((m) => input.connections.has(m.actor));
  canvas.section(
    "Members",
    `upper strip: client state and member epoch (member.state) · lower strip: the coordinator's view (gc.member)${withConnections ? " · bottom: connections down, and why" : ""}`,
  );
  const timersByActor = new Map<string, TimerExpiry[]>();
  for (const timer of input.timers)
    if (timer.actor !== null) timersByActor.set(timer.actor, [...(timersByActor.get(timer.actor) ?? []), timer]);
  input.members.forEach((member, i) => {
    const colour = input.colourOf.get(member.actor) ?? "m0";
    canvas.row("mrow", { "data-member": member.actor, "data-colour": colour }, () =>
      drawMember(canvas, input, member, i, timersByActor, withConnections ? MEMBER_ROW + CONNECTION_STRIP : MEMBER_ROW),
    );
  });
}

function drawMember(
  canvas: TimelineCanvas,
  input: MemberLaneInput,
  member: MemberTimeline,
  i: number,
  timersByActor: ReadonlyMap<string, readonly TimerExpiry[]>,
  rowHeight: number,
): void {
  const y = canvas.y;
  if (i % 2 === 1) canvas.rect(0, canvas.durationUs, y, rowHeight, "stripe");
  const sub = [member.groupId, member.protocol].filter((s) => s !== null && s !== "").join(" · ");
  canvas.rowLabel(member.actor, y, rowHeight, { swatch: input.colourOf.get(member.actor) ?? "m0", sub });

  for (const s of member.states) {
    const tip = `${member.actor}: ${s.state} · member epoch ${s.memberEpoch} · ${formatSpan(s.fromUs, s.toUs)}`;
    canvas.rect(s.fromUs, s.toUs, y + CLIENT_TOP, CLIENT_HEIGHT, `seg ${stateClass(s.state)}`, tip);
    canvas.text(s.fromUs, s.toUs, y + CLIENT_TOP + 11, `${s.state} e${s.memberEpoch}`);
  }

  const { lanes, count } = packLanes(member.serverStates);
  const laneHeight = SERVER_HEIGHT / count;
  member.serverStates.forEach((s, j) => {
    const top = y + SERVER_TOP + (lanes[j] ?? 0) * laneHeight;
    const pending = s.pendingRevocation > 0 ? `, ${s.pendingRevocation} pending revocation` : "";
    const tip = `coordinator: ${member.actor} (member id ${s.memberId}) ${s.state} · member epoch ${s.memberEpoch} · ${s.assigned} assigned${pending} · ${formatSpan(s.fromUs, s.toUs)}`;
    canvas.rect(s.fromUs, s.toUs, top, laneHeight - 0.5, `seg ${stateClass(s.state, true)}`, tip);
    if (count === 1)
      canvas.text(
        s.fromUs,
        s.toUs,
        top + 9,
        `e${s.memberEpoch} · ${s.assigned}p${s.pendingRevocation > 0 ? ` -${s.pendingRevocation}` : ""}`,
        "lbl sm",
      );
  });

  drawProcess(canvas, member.process, y + 1, MEMBER_ROW - 2, y + CLIENT_TOP + CLIENT_HEIGHT / 2);

  for (const timer of timersByActor.get(member.actor) ?? []) {
    if (timer.kind === "poll-timeout") {
      if (timer.sinceUs !== null) canvas.hline(timer.sinceUs, timer.tUs, y + POLL_GAP_Y, "pollgap", timerTip(timer));
      canvas.glyph(timer.tUs, y + CLIENT_TOP + CLIENT_HEIGHT / 2, "poll", "timer timer-poll", timerTip(timer));
    } else {
      const glyph = timer.timeout ? "timeout" : "leave";
      canvas.glyph(timer.tUs, y + SERVER_TOP + SERVER_HEIGHT / 2, glyph, `timer timer-${glyph}`, timerTip(timer));
    }
  }

  const connections = input.connections.get(member.actor);
  if (connections !== undefined && rowHeight > MEMBER_ROW) {
    const mid = y + CONNECTION_TOP + CONNECTION_STRIP / 2;
    drawConnections(canvas, connections, mid - CONNECTION_BAR / 2, CONNECTION_BAR, mid);
  }

  for (const mark of input.eventMarks.get(member.actor) ?? [])
    canvas.glyph(mark.tUs, y + MEMBER_ROW / 2, "ring", "evmark", mark.tip, ` data-explain="${mark.violation}"`);
  canvas.y += rowHeight;
}
