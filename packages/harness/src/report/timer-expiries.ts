import { observationOf } from "../analysis/observations.js";
import type { HistoryEvent } from "../history/history-event.js";
import type { MemberDirectory } from "./member-directory.js";
import type { TimerExpiry } from "./report-data.js";

/** Removal reasons that are a timer running out (the others are requests: leave, static replacement, conversion). */
const TIMEOUTS = new Set(["session-timeout", "rebalance-timeout", "sync-timeout", "join-timeout", "poll-timeout"]);

/**
 * Members leaving their group, timers first: the coordinator's removals
 * (gc.member-removed: session, rebalance, join and sync timeouts, and
 * leaves and replacements) and the clients' own max.poll.interval.ms
 * expiries (member.poll-timeout, with when its poll timer last restarted).
 */
export class TimerExpiries {
  readonly #found: Omit<TimerExpiry, "actor">[] = [];
  /** poll-timeout is the client's own observation: its actor is known at once. */
  readonly #actorOf = new Map<number, string>();

  accept(event: HistoryEvent): void {
    const removed = observationOf(event, "gc.member-removed");
    if (removed !== undefined) {
      this.#found.push({
        tUs: event.t,
        kind: removed.reason,
        groupId: removed.groupId,
        memberId: removed.memberId,
        timeout: TIMEOUTS.has(removed.reason),
        memberEpoch: removed.memberEpoch,
        sinceUs: null,
      });
      return;
    }
    const poll = observationOf(event, "member.poll-timeout");
    if (poll !== undefined && event.ev === "obs") {
      this.#actorOf.set(this.#found.length, event.actor);
      this.#found.push({
        tUs: event.t,
        kind: "poll-timeout",
        groupId: poll.groupId,
        memberId: poll.memberId,
        timeout: true,
        memberEpoch: null,
        sinceUs: poll.lastPollUs,
      });
    }
  }

  finish(directory: MemberDirectory): TimerExpiry[] {
    return this.#found.map((found, i) => ({ ...found, actor: this.#actorOf.get(i) ?? directory.actorOf(found.memberId) }));
  }
}
