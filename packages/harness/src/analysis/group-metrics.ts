import type { Micros } from "@kcsim/protocol";
import type { HistoryEvent } from "../history/history-event.js";
import type { SimulationSpec } from "../kernel/simulation-spec.js";
import { type GroupTopology, groupTopologies } from "./group-topology.js";
import { type EventFollower, HistoryPass } from "./history-pass.js";
import { observationOf } from "./observations.js";
import { OWNERSHIP_EVENTS, type OwnershipTimeline, sharedOwnership, type UnownedCount } from "./ownership-timeline.js";

/**
 * How a consumer group fared: its rebalances, how long it took to settle
 * after each change, and how much of it stood still. "Settled" means the
 * coordinator's group is STABLE (assignment epoch caught up with the group
 * epoch) and every subscribed partition has a live owner. A disruption
 * starts when a settled group stops being so and ends when it has been
 * settled again for a second (its time to stable runs to the start of that
 * second). Unowned time is counted from the moment the group first settled,
 * so the initial join does not drown out the disruptions that follow.
 */
export interface GroupMetrics {
  readonly groupId: string;
  readonly members: number;
  readonly partitions: number;
  /** When the group first settled (ms), or null if it never did. */
  readonly firstSettledMs: number | null;
  /** Disruptions after the group first settled (a cooperative rebalance's two rounds are one). */
  readonly rebalances: number;
  /** Group epoch (KIP-848) or generation (classic) bumps after the group first settled: cooperative takes two per change. */
  readonly rounds: number;
  /** Time from each disruption's start to the group settling again, ms. */
  readonly timeToStableMs: readonly number[];
  readonly maxTimeToStableMs: number;
  /** Most partitions without a live owner at once, after the group first settled. */
  readonly peakUnowned: number;
  /** Partition-seconds without a live owner, after the group first settled. */
  readonly unownedPartitionSeconds: number;
  /** Members whose owned set went empty while they stayed in the group, after it first settled (a stop-the-world pause). */
  readonly pausedMembers: number;
  readonly heartbeatsPerMemberPerMinute: number;
}

const HEARTBEATS = new Set(["ConsumerGroupHeartbeatRequest", "HeartbeatRequest"]);
/**
 * How long a group must stay settled for a disruption to count as over:
 * a cooperative rebalance settles for an instant between its two rounds
 * (the old owners still hold the moving partitions until they revoke them).
 */
const QUIET_US = 1_000_000;
const round = (value: number, digits = 3) => Math.round(value * 10 ** digits) / 10 ** digits;

/**
 * The events that can change a group's metrics: heartbeats (sends), the group's state and whatever moves
 * ownership. Between two of them the group stands still, so its time integrals add up the same without
 * the events in between (see finish for the last stretch).
 */
const GROUP_METRICS_EVENTS: readonly string[] = ["send", "gc.group", ...OWNERSHIP_EVENTS];

/** One group's metrics, followed event by event. */
export class GroupMetricsFollower implements EventFollower {
  readonly reads = GROUP_METRICS_EVENTS;
  readonly #group: GroupTopology;
  readonly #members: ReadonlySet<string>;
  readonly #timeline: OwnershipTimeline;
  /** The pass it follows: when its history's last event was. */
  readonly #pass: HistoryPass;
  #stable = false;
  #groupEpoch = -1;
  #settledAt: Micros | null = null;
  #changeAt: Micros | null = null;
  #settledSince: Micros | null = null;
  #rounds = 0;
  #changes = 0;
  readonly #timeToStable: number[] = [];
  /** Unowned partitions after the last event this follower saw (the timeline's count has already moved on to this event). */
  #unowned: number;
  readonly #unownedNow: UnownedCount;
  #lastT: Micros = 0;
  #unownedUs = 0;
  #peak = 0;
  readonly #paused = new Set<string>();
  #heartbeats = 0;
  readonly #aliveSince = new Map<string, Micros>();
  #memberUs = 0;

  /** `timeline` must have applied each event before this follower sees it (on `pass`, where it follows). */
  constructor(group: GroupTopology, timeline: OwnershipTimeline, pass: HistoryPass) {
    this.#group = group;
    this.#members = new Set(group.members);
    this.#timeline = timeline;
    this.#pass = pass;
    this.#unowned = group.partitions.length;
    this.#unownedNow = timeline.watchUnowned(group.partitions);
  }

  accept(event: HistoryEvent): void {
    const members = this.#members;
    const timeline = this.#timeline;
    // Only states that last count: several events at one instant pass through transient values.
    if (this.#settledAt !== null && event.t > this.#lastT) {
      this.#unownedUs += this.#unowned * (event.t - this.#lastT);
      this.#peak = Math.max(this.#peak, this.#unowned);
    }
    this.#lastT = event.t;
    if (event.ev === "send" && members.has(event.from) && HEARTBEATS.has(event.type)) this.#heartbeats++;
    if (event.ev === "life" && members.has(event.actor)) {
      if (event.what === "start" || event.what === "restart") this.#aliveSince.set(event.actor, event.t);
      if ((event.what === "crash" || event.what === "stop") && this.#aliveSince.has(event.actor)) {
        this.#memberUs += event.t - (this.#aliveSince.get(event.actor) as Micros);
        this.#aliveSince.delete(event.actor);
      }
    }
    const owned = observationOf(event, "member.owned");
    if (owned !== undefined && event.ev === "obs" && this.#settledAt !== null && members.has(event.actor)) {
      // A member leaving the group is not pausing; one revoking (or losing) everything while staying is.
      if (Object.keys(owned.owned).length === 0 && owned.cause !== "leave" && timeline.isAlive(event.actor)) this.#paused.add(event.actor);
    }
    const g = observationOf(event, "gc.group");
    if (g !== undefined && g.groupId === this.#group.groupId) {
      if (g.groupEpoch > this.#groupEpoch && this.#groupEpoch >= 0 && this.#settledAt !== null) this.#rounds++;
      this.#groupEpoch = Math.max(this.#groupEpoch, g.groupEpoch);
      this.#stable = g.state === "STABLE" && g.groupEpoch === g.assignmentEpoch;
    }
    this.#unowned = this.#unownedNow.count;
    const settled = this.#stable && this.#unowned === 0;
    if (settled && this.#settledAt === null) this.#settledAt = event.t;
    if (this.#changeAt !== null && this.#settledSince !== null && event.t - this.#settledSince >= QUIET_US) {
      this.#timeToStable.push((this.#settledSince - this.#changeAt) / 1000);
      this.#changeAt = null;
    }
    if (settled) this.#settledSince ??= event.t;
    else {
      this.#settledSince = null;
      if (this.#settledAt !== null && this.#changeAt === null) {
        this.#changes++;
        this.#changeAt = event.t;
      }
    }
  }

  /** The metrics of a run that ended at `endUs` (its duration, or the moment it was interrupted). */
  finish(endUs: Micros): GroupMetrics {
    const group = this.#group;
    const timeToStable = [...this.#timeToStable];
    let unownedUs = this.#unownedUs;
    let peak = this.#peak;
    if (this.#settledAt !== null) {
      unownedUs += this.#unowned * (endUs - this.#lastT);
      // The last state lasted if the history went on after it (with events this follower does not read).
      if (this.#pass.instant > this.#lastT) peak = Math.max(peak, this.#unowned);
    }
    if (this.#changeAt !== null && this.#settledSince !== null) timeToStable.push((this.#settledSince - this.#changeAt) / 1000);
    let memberUs = this.#memberUs;
    for (const since of this.#aliveSince.values()) memberUs += endUs - since;
    return {
      groupId: group.groupId,
      members: group.members.length,
      partitions: group.partitions.length,
      firstSettledMs: this.#settledAt === null ? null : this.#settledAt / 1000,
      rebalances: this.#changes,
      rounds: this.#rounds,
      timeToStableMs: timeToStable,
      maxTimeToStableMs: timeToStable.length === 0 ? 0 : Math.max(...timeToStable),
      peakUnowned: peak,
      unownedPartitionSeconds: round(unownedUs / 1e6),
      pausedMembers: this.#paused.size,
      heartbeatsPerMemberPerMinute: memberUs === 0 ? 0 : round(this.#heartbeats / (memberUs / 60e6), 2),
    };
  }
}

/** The metrics of every group of a spec, one follower each on `pass` (after its shared ownership timeline). */
export function followGroupMetrics(pass: HistoryPass): GroupMetricsFollower[] {
  const timeline = pass.shared(sharedOwnership);
  return groupTopologies(pass.spec).map((group) => {
    const follower = new GroupMetricsFollower(group, timeline, pass);
    pass.follow(follower);
    return follower;
  });
}

export function groupMetrics(events: readonly HistoryEvent[], spec: SimulationSpec): GroupMetrics[] {
  const pass = new HistoryPass(spec);
  const groups = followGroupMetrics(pass);
  pass.acceptAll(events);
  return groups.map((group) => group.finish(spec.durationUs));
}
