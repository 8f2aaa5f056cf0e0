import { getOrCreate, type Micros } from "@kcsim/protocol";
import { groupTopologies } from "../analysis/group-topology.js";
import { observationOf } from "../analysis/observations.js";
import { type Checker, ViolationList } from "./checker.js";

/** How late an expiry may be observed after it is due (the member's timer granularity). */
const TOLERANCE_US = 10_000;
/**
 * Client states in which the member's poll timer is checked. Kafka checks it
 * in the heartbeat path, after skipping members that are not heartbeating
 * (FENCED, UNSUBSCRIBED, STALE, FATAL) or leaving; the classic client checks
 * it in PREPARING_REBALANCE, COMPLETING_REBALANCE and STABLE.
 */
const CHECKED_STATES = new Set(["JOINING", "RECONCILING", "ACKNOWLEDGING", "STABLE", "PREPARING_REBALANCE", "COMPLETING_REBALANCE"]);

interface Interval {
  readonly from: Micros;
  readonly to: Micros;
}

type StateChange =
  | { readonly t: Micros; readonly index: number; readonly state: string }
  | { readonly t: Micros; readonly index: number; readonly known: boolean };

interface MemberTrack {
  polls: Micros[];
  timeouts: { t: Micros; lastPollUs: Micros; index: number }[];
  /** Change points in history order: a new client state, or whether a coordinator is known. */
  changes: StateChange[];
  /** Intervals when the process was not running (crashed) or frozen (paused). */
  down: Interval[];
  frozen: Interval[];
}

/** The last of the ascending times `times` before `t` (a binary search: polls run to tens of thousands). */
function lastBefore(times: readonly Micros[], t: Micros): Micros | undefined {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((times[mid] as Micros) < t) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? undefined : times[lo - 1];
}

const overlaps = (intervals: readonly Interval[], from: Micros, to: Micros) => intervals.some((i) => i.from < to && i.to > from);
const inside = (intervals: readonly Interval[], t: Micros) => intervals.some((i) => i.from <= t && t < i.to);

/**
 * When the expiry of the poll gap starting at `from` is due: the first
 * moment from `from + max` on at which the member checks its poll timer (it
 * is in a checked state and knows its coordinator), before `until`; null
 * when no such moment comes.
 */
function expiryDue(track: MemberTrack, from: Micros, max: Micros, until: Micros): Micros | null {
  const deadline = from + max;
  let state = "UNSUBSCRIBED";
  let known = false;
  const apply = (change: StateChange) => {
    if ("state" in change) state = change.state;
    else known = change.known;
  };
  const checked = () => CHECKED_STATES.has(state) && known;
  const changes = track.changes;
  // At the deadline itself, what happened in that instant before the member noticed the expiry (a
  // session check that drops the coordinator comes first, as in Kafka's heartbeat thread), but not what
  // the expiry itself causes.
  const noticedAt = track.timeouts.find((x) => x.t === deadline)?.index ?? Number.POSITIVE_INFINITY;
  let i = 0;
  for (; i < changes.length; i++) {
    const change = changes[i] as StateChange;
    if (change.t > deadline || (change.t === deadline && change.index > noticedAt)) break;
    apply(change);
  }
  if (deadline >= until) return null;
  if (checked()) return deadline;
  // Later, change by change in history order: a coordinator found and the expiry it lets the member notice
  // share one instant, so the state is judged after each change, not after the whole instant.
  for (; i < changes.length && (changes[i] as StateChange).t < until; i++) {
    apply(changes[i] as StateChange);
    if (checked()) return (changes[i] as StateChange).t;
  }
  return null;
}

/**
 * DESIGN.md rule 8: a member is expelled for poll inactivity exactly when
 * its poll gap exceeds max.poll.interval.ms, never otherwise. Every
 * `member.poll-timeout` must follow the member's real last poll by at least
 * the interval. Every gap between polls longer than the interval must hold
 * exactly one expiry, observed when it is due: at lastPoll + max, or, as in
 * Kafka, as soon as the member is back checking its poll timer (it knows
 * its coordinator and is heartbeating) if it was not at that moment. A
 * whole-process pause over the due time excuses lateness, and the race at
 * its end (the resumed application may poll before the expiry is noticed);
 * a crash ends the gap.
 */
export const pollExpiry: Checker = {
  name: "poll-expiry",
  description: "a member is expelled for poll inactivity exactly when its poll gap exceeds max.poll.interval.ms",
  check(events, spec) {
    const violations = new ViolationList();
    const maxPoll = new Map<string, number>();
    for (const group of groupTopologies(spec)) for (const [member, value] of group.maxPollIntervalMs) maxPoll.set(member, value * 1000);
    const tracks = new Map<string, MemberTrack>();
    const track = (actor: string): MemberTrack =>
      getOrCreate(tracks, actor, () => ({ polls: [], timeouts: [], changes: [], down: [], frozen: [] }));
    const openSince = new Map<string, Micros>();
    const close = (actor: string, what: "down" | "frozen", t: Micros) => {
      const since = openSince.get(`${actor}/${what}`);
      if (since === undefined) return;
      track(actor)[what].push({ from: since, to: t });
      openSince.delete(`${actor}/${what}`);
    };
    events.forEach((event, index) => {
      if (event.ev === "life" && maxPoll.has(event.actor)) {
        if (event.what === "crash" || event.what === "stop") {
          openSince.set(`${event.actor}/down`, event.t);
          // A new process starts with no coordinator and no state.
          track(event.actor).changes.push({ t: event.t, index, known: false }, { t: event.t, index, state: "UNSUBSCRIBED" });
        }
        if (event.what === "restart") close(event.actor, "down", event.t);
        if (event.what === "pause") openSince.set(`${event.actor}/frozen`, event.t);
        if (event.what === "resume") close(event.actor, "frozen", event.t);
        return;
      }
      if (event.ev !== "obs" || !maxPoll.has(event.actor)) return;
      if (observationOf(event, "member.poll") !== undefined) track(event.actor).polls.push(event.t);
      const timeout = observationOf(event, "member.poll-timeout");
      if (timeout !== undefined) track(event.actor).timeouts.push({ t: event.t, lastPollUs: timeout.lastPollUs, index });
      const state = observationOf(event, "member.state");
      if (state !== undefined) track(event.actor).changes.push({ t: event.t, index, state: state.to });
      const coordinator = observationOf(event, "member.coordinator");
      if (coordinator !== undefined) track(event.actor).changes.push({ t: event.t, index, known: coordinator.coordinator !== null });
    });
    for (const [key, from] of openSince) {
      const [actor, what] = key.split("/") as [string, "down" | "frozen"];
      track(actor)[what].push({ from, to: Number.POSITIVE_INFINITY });
    }
    for (const [actor, t] of tracks) {
      const max = maxPoll.get(actor) as number;
      for (const timeout of t.timeouts) {
        const last = lastBefore(t.polls, timeout.t);
        if (last === undefined || last !== timeout.lastPollUs) {
          violations.add(
            timeout.t,
            `${actor} expired for poll inactivity with lastPollUs ${timeout.lastPollUs}, but its last poll was at ${last ?? "never"}`,
            [timeout.index],
          );
        } else if (timeout.t - last < max) {
          violations.add(
            timeout.t,
            `${actor} expired ${timeout.t - last} us after its last poll, before max.poll.interval.ms (${max / 1000} ms)`,
            [timeout.index],
          );
        }
      }
      t.polls.forEach((from, i) => {
        const next = t.polls[i + 1] ?? spec.durationUs + 1;
        if (next - from <= max) return;
        const crash = t.down.find((d) => d.from >= from && d.from < next);
        const until = Math.min(next, crash?.from ?? Number.POSITIVE_INFINITY, spec.durationUs);
        const due = expiryDue(t, from, max, until);
        const inGap = t.timeouts.filter((x) => x.lastPollUs === from && x.t > from && x.t <= next);
        if (due === null) {
          if (inGap.length > 0)
            violations.add(inGap[0]?.t ?? from, `${actor} expired for poll inactivity while it was not checking its poll timer`, [
              inGap[0]?.index ?? 0,
            ]);
          return;
        }
        if (due + TOLERANCE_US > spec.durationUs) return; // the run ended before the expiry could be observed
        const frozenAtDue = inside(t.frozen, due) || overlaps(t.frozen, due, due + TOLERANCE_US);
        if (inGap.length > 1 || (inGap.length === 0 && !frozenAtDue)) {
          violations.add(
            due,
            `${actor} went ${Math.min(next, spec.durationUs) - from} us without polling (max.poll.interval.ms ${max / 1000} ms) and was expired ${inGap.length} times`,
          );
          return;
        }
        const expiry = inGap[0];
        if (expiry !== undefined && !frozenAtDue && (expiry.t < due || expiry.t > due + TOLERANCE_US)) {
          violations.add(expiry.t, `${actor}'s poll-timeout came at ${expiry.t} us; it was due at ${due} us`, [expiry.index]);
        }
      });
    }
    violations.items.sort((a, b) => a.t - b.t);
    return violations.result();
  },
};
