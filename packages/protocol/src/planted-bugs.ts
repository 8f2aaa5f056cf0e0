/**
 * The registry of planted bugs: named, deliberate deviations from Kafka's
 * behaviour, each guarded by one `if (bugs.has(...))` in the real code path
 * of one actor kind. They exist to prove that the checkers and the hunt
 * catch real protocol bugs: `kcsim hunt --bug NAME` must find each one with
 * the named checker. A scenario enables them with its `bugs` field; each
 * actor of the bug's kind gets them in its config (`plantedBugs`).
 */
export interface PlantedBugInfo {
  readonly name: string;
  /** One line: what the code does wrong, against what Kafka does. */
  readonly description: string;
  /** The actor kind whose code holds the deviation. */
  readonly kind: "group-coordinator" | "consumer" | "broker";
  /** The checker expected to catch it. */
  readonly checker: string;
  /** The recommended hunt target: a scenario in scenarios/ (without .json). */
  readonly scenario: string;
  /** Hunt it with the scenario's own faults (`--as-written`) rather than drawn ones. */
  readonly asWritten: boolean;
}

export const PLANTED_BUGS = [
  {
    name: "assign-before-revoke",
    description:
      "the coordinator takes a revocation as acknowledged at once, freeing the partition for its new owner before the old owner let go",
    kind: "group-coordinator",
    checker: "single-owner",
    scenario: "coordinator-failover",
    asWritten: false,
  },
  {
    name: "skip-fencing-on-session-expiry",
    description: "an expired session does not fence the member: a dead member keeps its partitions for ever",
    kind: "group-coordinator",
    checker: "converges",
    scenario: "session-timeout",
    asWritten: false,
  },
  {
    name: "accept-stale-commit",
    description: "OffsetCommit from a member at a stale member epoch is accepted instead of STALE_MEMBER_EPOCH",
    kind: "group-coordinator",
    checker: "no-zombie-commits",
    scenario: "coordinator-failover",
    asWritten: false,
  },
  {
    name: "static-rejoin-bumps-epoch",
    description: "a static member rejoining under its instance id bumps the group epoch (a needless rebalance)",
    kind: "group-coordinator",
    checker: "static-replacement-no-bump",
    scenario: "static-restart",
    asWritten: true,
  },
  {
    name: "forget-timers-after-failover",
    description: "a restarted coordinator does not re-arm session and rebalance timers for the members it loaded",
    kind: "group-coordinator",
    checker: "converges",
    scenario: "failover-member-loss",
    asWritten: true,
  },
  {
    name: "keep-partitions-after-fenced",
    description: "a member told FENCED_MEMBER_EPOCH / UNKNOWN_MEMBER_ID keeps consuming its partitions instead of losing them",
    kind: "consumer",
    checker: "single-owner",
    scenario: "session-timeout",
    asWritten: true,
  },
  {
    name: "stale-member-keeps-heartbeating",
    description: "a member past max.poll.interval.ms keeps heartbeating instead of leaving the group as STALE",
    kind: "consumer",
    checker: "poll-expiry",
    scenario: "max-poll-stale",
    asWritten: true,
  },
  {
    name: "ack-before-replication",
    description: "a partition leader answers acks=all produce requests before the ISR has replicated the records",
    kind: "broker",
    checker: "no-loss",
    scenario: "leader-crash-acks-all",
    asWritten: true,
  },
] as const satisfies readonly PlantedBugInfo[];

export type PlantedBugName = (typeof PLANTED_BUGS)[number]["name"];

export const PLANTED_BUG_NAMES: readonly PlantedBugName[] = PLANTED_BUGS.map((bug) => bug.name);

export function isPlantedBugName(name: string): name is PlantedBugName {
  return (PLANTED_BUG_NAMES as readonly string[]).includes(name);
}

export function plantedBugInfo(name: PlantedBugName): PlantedBugInfo {
  return PLANTED_BUGS.find((bug) => bug.name === name) as PlantedBugInfo;
}

/** The actor config field that carries the bugs an actor plants. */
export const PLANTED_BUGS_FIELD = "plantedBugs";
