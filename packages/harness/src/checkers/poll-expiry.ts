import { getOrCreate, type Micros } from "@kcsim/protocol";
import { groupTopologies } from "../analysis/group-topology.js";
import { observationOf } from "../analysis/observations.js";
import { type Checker, ViolationList } from "./checker.js";

/** How late an expiry may be observed after lastPoll + max.poll.interval.ms (the member's timer granularity). */
const TOLERANCE_US = 10_000;
/** Client states in which the member is in the group, so its poll timer runs. */
const IN_GROUP = new Set(["JOINING", "RECONCILING", "ACKNOWLEDGING", "STABLE", "FENCED", "PREPARING_REBALANCE", "COMPLETING_REBALANCE"]);
// (Classic members: PREPARING_REBALANCE, COMPLETING_REBALANCE and STABLE are in the group; UNJOINED is not.)

interface MemberTrack {
  polls: Micros[];
  timeouts: { t: Micros; lastPollUs: Micros; index: number }[];
  states: { t: Micros; state: string }[];
  /** Intervals when the process was not running (crashed) or frozen (paused). */
  down: { from: Micros; to: Micros }[];
  frozen: { from: Micros; to: Micros }[];
}

function stateAt(track: MemberTrack, t: Micros): string {
  let state = "UNSUBSCRIBED";
  for (const s of track.states) {
    if (s.t > t) break;
    state = s.state;
  }
  return state;
}

const overlaps = (intervals: { from: Micros; to: Micros }[], from: Micros, to: Micros) => intervals.some((i) => i.from < to && i.to > from);

/**
 * DESIGN.md rule 8: a member is expelled for poll inactivity exactly when
 * its poll gap exceeds max.poll.interval.ms, never otherwise. Every
 * `member.poll-timeout` must follow the member's real last poll by at least
 * the interval (and at most a timer tick more, unless the process was
 * frozen then); every gap between polls longer than the interval, while the
 * member was in the group and its process ran, must hold exactly one.
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
      getOrCreate(tracks, actor, () => ({ polls: [], timeouts: [], states: [], down: [], frozen: [] }));
    const openSince = new Map<string, Micros>();
    events.forEach((event, index) => {
      if (event.ev === "life" && maxPoll.has(event.actor)) {
        const key = (what: string) => `${event.actor}/${what}`;
        if (event.what === "crash" || event.what === "stop") openSince.set(key("down"), event.t);
        if (event.what === "restart" && openSince.has(key("down"))) {
          track(event.actor).down.push({ from: openSince.get(key("down")) as number, to: event.t });
          openSince.delete(key("down"));
        }
        if (event.what === "pause") openSince.set(key("frozen"), event.t);
        if (event.what === "resume" && openSince.has(key("frozen"))) {
          track(event.actor).frozen.push({ from: openSince.get(key("frozen")) as number, to: event.t });
          openSince.delete(key("frozen"));
        }
        return;
      }
      if (event.ev !== "obs" || !maxPoll.has(event.actor)) return;
      if (observationOf(event, "member.poll") !== undefined) track(event.actor).polls.push(event.t);
      const timeout = observationOf(event, "member.poll-timeout");
      if (timeout !== undefined) track(event.actor).timeouts.push({ t: event.t, lastPollUs: timeout.lastPollUs, index });
      const state = observationOf(event, "member.state");
      if (state !== undefined) track(event.actor).states.push({ t: event.t, state: state.to });
    });
    for (const [key, from] of openSince) {
      const [actor, what] = key.split("/") as [string, string];
      (what === "down" ? track(actor).down : track(actor).frozen).push({ from, to: Number.POSITIVE_INFINITY });
    }
    for (const [actor, t] of tracks) {
      const max = maxPoll.get(actor) as number;
      for (const timeout of t.timeouts) {
        const last = [...t.polls].reverse().find((p) => p < timeout.t);
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
        } else if (timeout.t - last > max + TOLERANCE_US && !overlaps(t.frozen, last + max, timeout.t)) {
          violations.add(timeout.t, `${actor} expired ${timeout.t - last} us after its last poll, late by ${timeout.t - last - max} us`, [
            timeout.index,
          ]);
        }
      }
      const gaps: [Micros, Micros][] = [];
      t.polls.forEach((p, i) => {
        gaps.push([p, t.polls[i + 1] ?? spec.durationUs + 1]);
      });
      for (const [from, to] of gaps) {
        const expiry = from + max;
        if (to <= expiry + TOLERANCE_US || expiry > spec.durationUs) continue;
        if (overlaps(t.down, from, Math.min(to, expiry + TOLERANCE_US))) continue;
        if (!IN_GROUP.has(stateAt(t, expiry))) continue;
        const inGap = t.timeouts.filter((x) => x.lastPollUs === from && x.t > from && x.t <= to);
        if (inGap.length !== 1) {
          violations.add(
            expiry,
            `${actor} went ${Math.min(to, spec.durationUs) - from} us without polling (max.poll.interval.ms ${max / 1000} ms) and was expired ${inGap.length} times`,
          );
        }
      }
    }
    return violations.result();
  },
};
