import { getOrCreate, type Micros } from "@kcsim/protocol";
import { groupTopologies } from "../analysis/group-topology.js";
import { MemberClock } from "../analysis/member-clock.js";
import { knownObservation } from "../analysis/observations.js";
import type { HistoryEvent } from "../history/history-event.js";
import { streamingChecker, ViolationList } from "./checker.js";

/** The actor kinds with a poll timer: kcsim's KIP-848 and classic consumers. */
const POLL_TIMER_KINDS = new Set(["consumer", "classic-consumer"]);

/** How late an expiry may be observed after it is due (the member's timer granularity). */
const TOLERANCE_US = 10_000;
/**
 * Client states in which the member's poll timer is checked. Kafka checks it
 * in the heartbeat path, after skipping members that are not heartbeating
 * (FENCED, UNSUBSCRIBED, STALE, FATAL) or leaving; the classic client's
 * heartbeat thread checks it in COMPLETING_REBALANCE and STABLE (it
 * disables itself in UNJOINED and PREPARING_REBALANCE).
 */
const CHECKED_STATES = new Set(["JOINING", "RECONCILING", "ACKNOWLEDGING", "STABLE", "COMPLETING_REBALANCE"]);

interface Interval {
  readonly from: Micros;
  readonly to: Micros;
}

/** A change point, in history order: a new client state, whether a coordinator is known, or a step of the member's clock. */
type Change =
  | { readonly t: Micros; readonly index: number; readonly state: string }
  | { readonly t: Micros; readonly index: number; readonly known: boolean }
  | { readonly t: Micros; readonly index: number; readonly offset: Micros };

interface MemberTrack {
  /** Each restart of the poll timer ("poll"): when (virtual), its history index, and the member's own clock then. */
  pollTimes: Micros[];
  pollIndices: number[];
  pollClocks: Micros[];
  /** The most its clock had read by each poll: the poll timer's time then may be anything from its clock up to this. */
  pollHighs: Micros[];
  /** Each expiry, with the most the member's clock had read by then (what its poll timer's time is at most). */
  timeouts: { t: Micros; high: Micros; lastPollUs: Micros; index: number }[];
  changes: Change[];
  /** Instants at which the member visibly ran (it observed or sent something); every run ends with a poll-timer check. */
  activations: Micros[];
  /** The history index of the member's first event at each of those instants. */
  activationIndices: number[];
  clock: MemberClock;
  /** Intervals when the process was not running (crashed) or frozen (paused). */
  down: Interval[];
  frozen: Interval[];
}

/** The index of the last of the ascending times `times` before `t` (a binary search: polls run to tens of thousands), or -1. */
function lastIndexBefore(times: readonly Micros[], t: Micros): number {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((times[mid] as Micros) < t) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

const overlaps = (intervals: readonly Interval[], from: Micros, to: Micros) => intervals.some((i) => i.from < to && i.to > from);
const inside = (intervals: readonly Interval[], t: Micros) => intervals.some((i) => i.from <= t && t < i.to);

/** A member's state as its change points replay it. */
class Replay {
  #state = "UNSUBSCRIBED";
  #known = false;
  offset: Micros = 0;

  apply(change: Change): void {
    if ("state" in change) this.#state = change.state;
    else if ("known" in change) this.#known = change.known;
    else this.offset = change.offset;
  }

  /** Whether the member checks its poll timer: a checked state and a known coordinator. */
  get checked(): boolean {
    return CHECKED_STATES.has(this.#state) && this.#known;
  }
}

/**
 * The history index of the poll-timeout observed at `t`, if any: what
 * happened in that instant before the member noticed the expiry counts (a
 * session check that drops the coordinator comes first, as in Kafka's
 * heartbeat thread), what the expiry itself causes does not.
 */
function noticedAt(track: MemberTrack, t: Micros): number {
  return track.timeouts.find((x) => x.t === t)?.index ?? Number.POSITIVE_INFINITY;
}

/**
 * The earliest moment the expiry of poll number `poll` may be noticed: the
 * first moment before `until` at which the member checks its poll timer
 * and its own clock has reached `deadline` (its clock at the poll plus
 * max.poll.interval.ms). The own clock is virtual time plus the member's
 * offset, so a forward step brings the moment earlier, a backward step
 * later. Null when no such moment comes. At `until` itself an expiry
 * noticed before the event at history index `untilIndex` still counts (the
 * next poll can come in the very instant of the expiry, after it).
 */
function earliestExpiry(track: MemberTrack, poll: number, deadline: Micros, until: Micros, untilIndex: number): Micros | null {
  const fromIndex = track.pollIndices[poll] as number;
  const replay = new Replay();
  const changes = track.changes;
  let i = 0;
  for (; i < changes.length && (changes[i] as Change).index < fromIndex; i++) replay.apply(changes[i] as Change);
  let at = track.pollTimes[poll] as Micros;
  for (;;) {
    const next = changes[i];
    if (replay.checked) {
      // Checked from `at` on: due when the own clock reaches the deadline, unless a change comes first
      // (changes in the very instant are applied first, up to the expiry noticed there).
      const due = Math.max(at, deadline - replay.offset);
      if (next === undefined || due < next.t || (due === next.t && next.index > noticedAt(track, due)))
        return due < until || (due === until && noticedAt(track, due) < untilIndex) ? due : null;
    }
    // Later, change by change in history order: a coordinator found and the expiry it lets the member notice
    // share one instant, so the state is judged after each change, not after the whole instant.
    if (next === undefined || next.t > until || (next.t === until && next.index > untilIndex)) return null;
    replay.apply(next);
    at = next.t;
    i++;
  }
}

/** Whether the member checks its poll timer at the end of instant `t` (its changes up to an expiry there, if any). */
function checkedAt(track: MemberTrack, t: Micros): boolean {
  const replay = new Replay();
  const notice = noticedAt(track, t);
  for (const change of track.changes) {
    if (change.t > t || (change.t === t && change.index > notice)) break;
    replay.apply(change);
  }
  return replay.checked;
}

/**
 * The latest moment an expiry that may come from `earliest` on may be
 * noticed. The member checks its poll timer each time it runs, and
 * between runs it sleeps on a timer armed (in virtual time, like the
 * monotonic wait of Kafka's network thread) for its own-clock deadline.
 * So it notices at the first of:
 * - that timer, armed at its last run before `earliest`; a clock step
 *   since then moved the deadline but not the timer, so the timer rings
 *   at `deadline` minus the offset of that run (the smallest offset since
 *   the last visible run bounds it);
 * - its first visible run from `earliest` on while it checks the timer.
 * Runs that leave no trace in the history can only make it earlier, never
 * earlier than `earliest`. Without a clock step this is `earliest` itself.
 * The timer's ring is a run like the others: if what the member takes in
 * that instant stops it checking (a request that timed out in the same
 * wait loses its coordinator; Kafka's network thread fails timed-out
 * requests when its wait ends, before its next round of request managers
 * looks at the poll timer), its first chance is its next run while it
 * checks, and Infinity if none comes.
 */
function latestExpiry(track: MemberTrack, earliest: Micros, deadline: Micros): Micros {
  const activations = track.activations;
  const ring = timerRing(track, earliest, deadline);
  let k = lastIndexBefore(activations, earliest) + 1;
  for (; k < activations.length && (activations[k] as Micros) < ring; k++) {
    const run = activations[k] as Micros;
    if (checkedAt(track, run)) return Math.max(earliest, run);
  }
  if (ring <= earliest || checkedAt(track, ring)) return Math.max(earliest, ring);
  for (; k < activations.length; k++) {
    const run = activations[k] as Micros;
    if (run > ring && checkedAt(track, run)) return run;
  }
  return Number.POSITIVE_INFINITY;
}

/** When the timer the member armed at its last run before `earliest` rings (see latestExpiry). */
function timerRing(track: MemberTrack, earliest: Micros, deadline: Micros): Micros {
  const armedAt = track.activations[lastIndexBefore(track.activations, earliest)] ?? earliest;
  return deadline - track.clock.minOffsetBetween(armedAt, earliest);
}

/**
 * Whether the member's first chance to notice an expiry (`latest`, see latestExpiry) is the very poll that ends
 * its gap: that poll's instant (`until`), with no run of the member in it before the poll's event (history index
 * `untilIndex`), and its timer ringing only after it. The poll's own run restarts the timer before its check, so
 * the member had no chance in this gap.
 */
function firstChanceIsTheEndingPoll(track: MemberTrack, latest: Micros, ring: Micros, until: Micros, untilIndex: number): boolean {
  if (latest !== until || ring <= until) return false;
  const k = lastIndexBefore(track.activations, until) + 1;
  return track.activations[k] === until && (track.activationIndices[k] as number) >= untilIndex;
}

/**
 * A member is expelled for poll inactivity exactly when its poll gap
 * exceeds max.poll.interval.ms, never otherwise. A "poll" here is a restart
 * of its poll timer, as Kafka's clients restart it: at the top of each pass
 * of poll()'s loop (`member.poll-timer-reset`; a poll() that waits for
 * records passes again at least every heartbeat interval, so a long poll()
 * on an idle topic never expires), when a classic member's JoinGroup is
 * answered, and when the consumer is made; not when poll() returns. The gap is
 * measured on the member's own clock, as Kafka's poll `Timer` reads the
 * wall clock (`Time.SYSTEM.milliseconds()`): a clock stepped forward
 * expires it early, one stepped back late. Every `member.poll-timeout`
 * must carry the poll timer's time at its real last poll (the member's
 * clock then, or, just after a backward step, up to the most the clock had
 * read: `Timer.update` never goes back) and come at least the interval
 * after it on that clock. Every gap between polls that
 * reaches the interval on the member's clock must hold exactly one expiry,
 * observed when it is due: when the clock reaches lastPoll + max, or, as
 * in Kafka, as soon as the member is back checking its poll timer (it
 * knows its coordinator and is heartbeating) if it was not at that moment;
 * after a clock step, no later than the member's first chance to notice
 * (see `latestExpiry`), and not at all when that chance is the poll that
 * ends the gap (its run restarts the timer before checking it). A whole-process pause over the due time excuses
 * lateness, and the race at its end (the resumed application may poll
 * before the expiry is noticed); a crash ends the gap.
 */
export const pollExpiry = streamingChecker({
  name: "poll-expiry",
  description: "a member is expelled for poll inactivity exactly when its poll gap, on its own clock, exceeds max.poll.interval.ms",
  judge(pass) {
    const spec = pass.spec;
    // kcsim's own consumers: a KafkaJS consumer has no poll timer (no max.poll.interval.ms).
    const ownConsumers = new Set(spec.actors.filter((a) => POLL_TIMER_KINDS.has(a.kind)).map((a) => a.id));
    const maxPoll = new Map<string, number>();
    for (const group of groupTopologies(spec))
      for (const [member, value] of group.maxPollIntervalMs) if (ownConsumers.has(member)) maxPoll.set(member, value * 1000);
    // Only member actors (those with a max.poll.interval.ms) get a track.
    const tracks = new Map<string, MemberTrack>();
    const newTrack = (): MemberTrack => ({
      pollTimes: [],
      pollIndices: [],
      pollClocks: [],
      pollHighs: [],
      timeouts: [],
      changes: [],
      activations: [],
      activationIndices: [],
      clock: new MemberClock(),
      down: [],
      frozen: [],
    });
    const track = (actor: string): MemberTrack => getOrCreate(tracks, actor, newTrack);
    /** A member's track, or undefined for any other actor: one map lookup for an event of a member seen before. */
    const memberTrack = (actor: string): MemberTrack | undefined => tracks.get(actor) ?? (maxPoll.has(actor) ? track(actor) : undefined);
    /** The member's poll timer (re)starts at `t`: a pass of poll()'s loop, a JoinGroup answered, or the consumer being made. */
    const pollTimerStarted = (member: MemberTrack, t: Micros, index: number) => {
      member.pollTimes.push(t);
      member.pollIndices.push(index);
      member.pollClocks.push(t + member.clock.current);
      member.pollHighs.push(member.clock.highWaterAt(t));
    };
    const ran = (member: MemberTrack, t: Micros, index: number) => {
      if (member.activations[member.activations.length - 1] === t) return;
      member.activations.push(t);
      member.activationIndices.push(index);
    };
    const openSince = new Map<string, Micros>();
    const close = (actor: string, what: "down" | "frozen", t: Micros) => {
      const since = openSince.get(`${actor}/${what}`);
      if (since === undefined) return;
      track(actor)[what].push({ from: since, to: t });
      openSince.delete(`${actor}/${what}`);
    };
    const accept = (event: HistoryEvent, index: number) => {
      if (event.ev === "send") {
        const member = memberTrack(event.from);
        if (member !== undefined) ran(member, event.t, index);
        return;
      }
      if (event.ev === "life" && maxPoll.has(event.actor)) {
        const member = track(event.actor);
        if (event.what === "crash" || event.what === "stop") {
          // A process that dies while paused is paused no more: its restart runs, and no resume is recorded.
          close(event.actor, "frozen", event.t);
          openSince.set(`${event.actor}/down`, event.t);
          // A new process starts with no coordinator and no state (but its host's clock keeps its offset).
          member.changes.push({ t: event.t, index, known: false }, { t: event.t, index, state: "UNSUBSCRIBED" });
        }
        if (event.what === "restart") close(event.actor, "down", event.t);
        // A consumer made (at start, or again at a restart) starts its poll timer then: Kafka's classic Heartbeat
        // and the KIP-848 HeartbeatRequestManager create their poll timer in their constructors.
        if (event.what === "start" || event.what === "restart") pollTimerStarted(member, event.t, index);
        if (event.what === "pause") openSince.set(`${event.actor}/frozen`, event.t);
        if (event.what === "resume") close(event.actor, "frozen", event.t);
        if (event.what === "clock-step") {
          member.clock.step(event.t, index, Number(event.detail ?? 0));
          member.changes.push({ t: event.t, index, offset: member.clock.current });
        }
        return;
      }
      if (event.ev !== "obs") return;
      const member = memberTrack(event.actor);
      if (member === undefined) return;
      ran(member, event.t, index);
      const o = knownObservation(event);
      switch (o.type) {
        // The top of each pass of poll()'s loop restarts the timer (and a classic member's JoinGroup answered);
        // a poll()'s return does not.
        case "member.poll-timer-reset":
          pollTimerStarted(member, event.t, index);
          return;
        case "member.poll-timeout":
          member.timeouts.push({ t: event.t, high: member.clock.highWaterAt(event.t), lastPollUs: o.lastPollUs, index });
          return;
        case "member.state":
          member.changes.push({ t: event.t, index, state: o.to });
          return;
        case "member.coordinator":
          member.changes.push({ t: event.t, index, known: o.coordinator !== null });
          return;
      }
    };
    const finish = () => {
      const violations = new ViolationList();
      for (const [key, from] of openSince) {
        const [actor, what] = key.split("/") as [string, "down" | "frozen"];
        track(actor)[what].push({ from, to: Number.POSITIVE_INFINITY });
      }
      for (const [actor, t] of tracks) {
        const max = maxPoll.get(actor) as number;
        const stepped = t.clock.stepped;
        const onItsClock = (virtual: Micros, clock: Micros) => (clock === virtual ? "" : ` (virtual ${virtual})`);
        for (const timeout of t.timeouts) {
          const k = lastIndexBefore(t.pollTimes, timeout.t);
          const last = t.pollClocks[k];
          const lastHigh = t.pollHighs[k] as Micros;
          // The poll timer's time at the poll: the member's clock, or more if its clock was stepped back (Timer.update).
          if (last === undefined || timeout.lastPollUs < last || timeout.lastPollUs > lastHigh) {
            violations.add(
              timeout.t,
              `${actor} expired for poll inactivity with lastPollUs ${timeout.lastPollUs}, but its last poll was at ${last === undefined ? "never" : `${last}${lastHigh > last ? `..${lastHigh}` : ""} on its own clock${onItsClock(t.pollTimes[k] as Micros, last)}`}`,
              [timeout.index],
            );
          } else if (timeout.high - timeout.lastPollUs < max) {
            violations.add(
              timeout.t,
              `${actor} expired ${timeout.high - timeout.lastPollUs} us after its last poll${stepped ? " on its own clock" : ""}, before max.poll.interval.ms (${max / 1000} ms)`,
              [timeout.index],
            );
          }
        }
        t.pollTimes.forEach((from, i) => {
          const next = t.pollTimes[i + 1] ?? spec.durationUs + 1;
          // A quick pass over short gaps: no stretch of virtual time gains more than the forward steps on the own clock.
          if (next - from + t.clock.forwardUs <= max) return;
          const fromClock = t.pollClocks[i] as Micros;
          const fromHigh = t.pollHighs[i] as Micros;
          const inGap = t.timeouts.filter((x) => x.lastPollUs >= fromClock && x.lastPollUs <= fromHigh && x.t > from && x.t <= next);
          // The deadline is on the poll timer's time: the expiry's lastPollUs says which; without one, judge by the
          // latest the timer may have started at (a poll just after a backward step starts it at the clock's high-water mark).
          const deadline = (inGap[0]?.lastPollUs ?? fromHigh) + max;
          const crash = t.down.find((d) => d.from >= from && d.from < next);
          const until = Math.min(next, crash?.from ?? Number.POSITIVE_INFINITY, spec.durationUs);
          // The gap ends at the next poll, in history order: an expiry noticed in that very instant but before it
          // belongs to this gap (the coordinator found again, the expiry, the leave failing a blocked commitSync, and
          // the application's next poll() all in one instant).
          const endsAtPoll = until === next && next <= spec.durationUs && (crash === undefined || crash.from > next);
          const due = earliestExpiry(t, i, deadline, until, endsAtPoll ? (t.pollIndices[i + 1] as number) : -1);
          if (due === null) {
            if (inGap.length > 0)
              violations.add(inGap[0]?.t ?? from, `${actor} expired for poll inactivity while it was not checking its poll timer`, [
                inGap[0]?.index ?? 0,
              ]);
            return;
          }
          const latest = stepped ? latestExpiry(t, due, deadline) : due;
          // The member's first chance to notice came only after the gap had ended (see latestExpiry): nothing is due here.
          if (inGap.length === 0 && latest > until) return;
          if (latest + TOLERANCE_US > spec.durationUs) return; // the run ended before the expiry could be observed
          // The member's first chance to notice may be the very poll that ends the gap: that poll restarts the timer
          // before the run's poll-timer check, so no expiry is due in this gap.
          if (
            stepped &&
            endsAtPoll &&
            inGap.length === 0 &&
            firstChanceIsTheEndingPoll(t, latest, timerRing(t, due, deadline), until, t.pollIndices[i + 1] as number)
          )
            return;
          const frozenAtDue = inside(t.frozen, due) || overlaps(t.frozen, due, latest + TOLERANCE_US);
          if (inGap.length > 1 || (inGap.length === 0 && !frozenAtDue)) {
            violations.add(
              due,
              `${actor} went ${Math.min(next, spec.durationUs) - from} us without polling (max.poll.interval.ms ${max / 1000} ms) and was expired ${inGap.length} times`,
            );
            return;
          }
          const expiry = inGap[0];
          if (expiry !== undefined && !frozenAtDue && (expiry.t < due || expiry.t > latest + TOLERANCE_US)) {
            const when = latest === due ? `at ${due} us` : `between ${due} and ${latest} us (its clock was stepped)`;
            violations.add(expiry.t, `${actor}'s poll-timeout came at ${expiry.t} us; it was due ${when}`, [expiry.index]);
          }
        });
      }
      violations.items.sort((a, b) => a.t - b.t);
      return violations.result();
    };
    // Sends and process events of members, and their observations (each one a moment the member ran).
    return { reads: ["send", "life", "obs"], accept, finish };
  },
});
