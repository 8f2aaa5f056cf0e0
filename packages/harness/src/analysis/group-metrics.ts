import type { Micros } from "@kcsim/protocol";
import type { HistoryEvent } from "../history/history-event.js";
import type { SimulationSpec } from "../kernel/simulation-spec.js";
import { type GroupTopology, groupTopologies } from "./group-topology.js";
import { observationOf } from "./observations.js";
import { OwnershipTimeline } from "./ownership-timeline.js";

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

function metricsFor(group: GroupTopology, events: readonly HistoryEvent[], spec: SimulationSpec): GroupMetrics {
  const members = new Set(group.members);
  const timeline = new OwnershipTimeline();
  let stable = false;
  let groupEpoch = -1;
  let settledAt: Micros | null = null;
  let changeAt: Micros | null = null;
  let settledSince: Micros | null = null;
  let rounds = 0;
  let changes = 0;
  const timeToStable: number[] = [];
  let unowned = group.partitions.length;
  let countedAt = -1;
  let lastT: Micros = 0;
  let unownedUs = 0;
  let peak = 0;
  const paused = new Set<string>();
  let heartbeats = 0;
  const aliveSince = new Map<string, Micros>();
  let memberUs = 0;

  for (const event of events) {
    // Only states that last count: several events at one instant pass through transient values.
    if (settledAt !== null && event.t > lastT) {
      unownedUs += unowned * (event.t - lastT);
      peak = Math.max(peak, unowned);
    }
    lastT = event.t;
    if (event.ev === "send" && members.has(event.from) && HEARTBEATS.has(event.type)) heartbeats++;
    if (event.ev === "life" && members.has(event.actor)) {
      if (event.what === "start" || event.what === "restart") aliveSince.set(event.actor, event.t);
      if ((event.what === "crash" || event.what === "stop") && aliveSince.has(event.actor)) {
        memberUs += event.t - (aliveSince.get(event.actor) as Micros);
        aliveSince.delete(event.actor);
      }
    }
    timeline.apply(event);
    const owned = observationOf(event, "member.owned");
    if (owned !== undefined && event.ev === "obs" && settledAt !== null && members.has(event.actor)) {
      // A member leaving the group is not pausing; one revoking (or losing) everything while staying is.
      if (Object.keys(owned.owned).length === 0 && owned.cause !== "leave" && timeline.isAlive(event.actor)) paused.add(event.actor);
    }
    const g = observationOf(event, "gc.group");
    if (g !== undefined && g.groupId === group.groupId) {
      if (g.groupEpoch > groupEpoch && groupEpoch >= 0 && settledAt !== null) rounds++;
      groupEpoch = Math.max(groupEpoch, g.groupEpoch);
      stable = g.state === "STABLE" && g.groupEpoch === g.assignmentEpoch;
    }
    // Counting is O(partitions): redo it only when ownership moved (most events are records and polls).
    if (timeline.version !== countedAt) {
      unowned = timeline.unownedCount(group.partitions);
      countedAt = timeline.version;
    }
    const settled = stable && unowned === 0;
    if (settled && settledAt === null) settledAt = event.t;
    if (changeAt !== null && settledSince !== null && event.t - settledSince >= QUIET_US) {
      timeToStable.push((settledSince - changeAt) / 1000);
      changeAt = null;
    }
    if (settled) settledSince ??= event.t;
    else {
      settledSince = null;
      if (settledAt !== null && changeAt === null) {
        changes++;
        changeAt = event.t;
      }
    }
  }
  if (settledAt !== null) unownedUs += unowned * (spec.durationUs - lastT);
  if (changeAt !== null && settledSince !== null) timeToStable.push((settledSince - changeAt) / 1000);
  for (const since of aliveSince.values()) memberUs += spec.durationUs - since;
  return {
    groupId: group.groupId,
    members: group.members.length,
    partitions: group.partitions.length,
    firstSettledMs: settledAt === null ? null : settledAt / 1000,
    rebalances: changes,
    rounds,
    timeToStableMs: timeToStable,
    maxTimeToStableMs: timeToStable.length === 0 ? 0 : Math.max(...timeToStable),
    peakUnowned: peak,
    unownedPartitionSeconds: round(unownedUs / 1e6),
    pausedMembers: paused.size,
    heartbeatsPerMemberPerMinute: memberUs === 0 ? 0 : round(heartbeats / (memberUs / 60e6), 2),
  };
}

export function groupMetrics(events: readonly HistoryEvent[], spec: SimulationSpec): GroupMetrics[] {
  return groupTopologies(spec).map((group) => metricsFor(group, events, spec));
}
