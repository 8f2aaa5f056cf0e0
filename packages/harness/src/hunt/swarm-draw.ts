import { type JsonValue, pick, randomInt, type UniformSource } from "@kcsim/protocol";
import type { ScenarioFile } from "../scenario/scenario-schema.js";

/**
 * What a swarm hunt draws from each seed, the whole system as well as its
 * faults (swarm testing: every seed a different system):
 * - `group` (`kcsim hunt --swarm`): one consumer group on synthetic
 *   records, so the coordinator and the consumer's group protocol are
 *   what is hunted, at a tenth of a second of CPU a seed;
 * - `data` (`kcsim hunt --swarm-data`): the same kind of group reading
 *   through the real fetcher what producers wrote to three brokers
 *   (replication factor 3, min.insync.replicas 2, acks=all), so fetch
 *   sessions, positions and resets, leader failover and the producer are
 *   hunted too, under every group protocol; a second or two a seed;
 * - `migration` (`kcsim hunt --swarm-migration`): the group swarm's group
 *   with some of its members replaced, one at a time, by processes that
 *   speak the other protocol, so the coordinator converts the group online
 *   (a classic group upgraded to the consumer protocol, or a KIP-848 group
 *   downgraded to a classic one) and serves it mixed in between.
 */
export type Swarm = keyof typeof SWARM_NAMES;

/**
 * Each swarm's name: its `kcsim hunt` flag without the dashes, the name of
 * the scenarios it draws, and so its hunts' label.
 */
export const SWARM_NAMES = { group: "swarm", data: "swarm-data", migration: "swarm-migration" } as const;

export const SWARMS = Object.keys(SWARM_NAMES) as readonly Swarm[];

/** The drawn system and the parameters a failing seed reports. */
export interface DrawnSystem {
  readonly scenario: ScenarioFile;
  readonly parameters: Record<string, JsonValue>;
}

/** The group's shape, drawn the same way for both swarms. */
interface GroupShape {
  readonly protocol: "eager" | "cooperative" | "consumer";
  readonly members: number;
  readonly partitions: number;
  readonly isStatic: boolean;
  readonly autoCommit: boolean;
  readonly classicAssignor: string;
  readonly remoteAssignor: string;
  readonly sessionTimeoutMs: number;
  readonly maxPollMs: number;
}

/**
 * Draws a group's shape. The order of the draws is part of what a seed
 * means (a swarm seed in a bug report must draw the same system again), so
 * it stays as the first swarm drew it.
 */
function drawGroupShape(r: UniformSource, most: { members: number; partitions: number }): GroupShape {
  const protocol = pick(r, ["eager", "cooperative", "consumer"] as const);
  const members = randomInt(r, 2, most.members);
  const partitions = randomInt(r, 2, most.partitions);
  const isStatic = r() < 0.3;
  const autoCommit = r() < 0.7;
  const classicAssignor = protocol === "eager" ? pick(r, ["range", "roundrobin", "sticky"]) : "cooperative-sticky";
  const remoteAssignor = pick(r, ["uniform", "range"]);
  const sessionTimeoutMs = pick(r, [10_000, 20_000, 45_000]);
  const maxPollMs = pick(r, [15_000, 30_000, 60_000]);
  return { protocol, members, partitions, isStatic, autoCommit, classicAssignor, remoteAssignor, sessionTimeoutMs, maxPollMs };
}

/** The consumer settings a shape implies: its protocol's assignor and timeouts. */
function consumerSettings(shape: GroupShape): Record<string, JsonValue> {
  const consumer: Record<string, JsonValue> = { "max.poll.interval.ms": shape.maxPollMs, "enable.auto.commit": shape.autoCommit };
  if (shape.protocol === "consumer") consumer["group.remote.assignor"] = shape.remoteAssignor;
  else {
    consumer["partition.assignment.strategy"] = [shape.classicAssignor];
    consumer["session.timeout.ms"] = shape.sessionTimeoutMs;
    consumer["heartbeat.interval.ms"] = Math.round(shape.sessionTimeoutMs / 5);
  }
  return consumer;
}

/** Shorter KIP-848 session timeouts than the broker default, within the bounds a broker may be given. */
function coordinatorSettings(shape: GroupShape): Record<string, JsonValue> {
  return {
    "group.consumer.min.session.timeout.ms": 10_000,
    "group.consumer.session.timeout.ms": shape.sessionTimeoutMs,
    "group.consumer.min.heartbeat.interval.ms": 1_000,
    "group.consumer.heartbeat.interval.ms": Math.max(1_000, Math.round(shape.sessionTimeoutMs / 5)),
  };
}

/** The group's own fields: its members, their protocol and subscription (the topic "swarm"). */
function groupOf(shape: GroupShape) {
  return { groupId: "swarm", protocol: shape.protocol, members: shape.members, static: shape.isStatic, subscription: ["swarm"] };
}

function shapeParameters(shape: GroupShape): Record<string, JsonValue> {
  return {
    protocol: shape.protocol,
    assignor: shape.protocol === "consumer" ? shape.remoteAssignor : shape.classicAssignor,
    members: shape.members,
    partitions: shape.partitions,
    static: shape.isStatic,
    autoCommit: shape.autoCommit,
    sessionTimeoutMs: shape.sessionTimeoutMs,
    maxPollIntervalMs: shape.maxPollMs,
  };
}

/** `--swarm`: a consumer group of 2 to 12 members on 2 to 48 synthetic partitions. */
function drawGroupSwarm(r: UniformSource): DrawnSystem {
  const shape = drawGroupShape(r, { members: 12, partitions: 48 });
  const scenario: ScenarioFile = {
    name: SWARM_NAMES.group,
    durationMs: 300_000,
    cluster: { coordinators: 1, topics: [{ name: "swarm", partitions: shape.partitions }], broker: coordinatorSettings(shape) },
    groups: [
      {
        ...groupOf(shape),
        staggerMs: randomInt(r, 0, 500),
        consumer: consumerSettings(shape),
        app: { processingMsPerRecord: pick(r, [0.5, 1, 5]), commit: shape.autoCommit ? "auto" : "sync-after-batch" },
        source: { kind: "synthetic", recordsPerSecondPerPartition: pick(r, [2, 10]) },
      },
    ],
  };
  return { scenario, parameters: shapeParameters(shape) };
}

/**
 * `--swarm-data`: a group of 2 to 8 members reading 2 to 32 partitions
 * through the real fetcher, written by 1 to 3 producers with acks=all to
 * three brokers (replication factor 3, min.insync.replicas 2), which is
 * the setting under which Kafka promises that an acknowledged record
 * survives any one broker's crash. Producers stop at 200 s, so by the end
 * every acknowledged record must have been consumed (no-loss) with its
 * offsets contiguous and every duplicate explained by a rebalance or a
 * reset.
 */
function drawDataSwarm(r: UniformSource): DrawnSystem {
  const shape = drawGroupShape(r, { members: 8, partitions: 32 });
  // Sized so that the group can keep up, and catch up after the faults heal: at most 150 records a second in
  // all, the hottest partition (100 Zipf keys) about a third of it, each record processed in at most 2 ms, and
  // at least 256 KiB a partition per fetch. A consumer fetches a partition again only once the application
  // has taken what it buffered, so its next fetch to that broker often waits out fetch.max.wait.ms without
  // that partition (Kafka's Fetcher does the same): 4 KiB a fetch of 2 KB records drains 3 or 4 records a
  // second, and a first draw that allowed it failed no-loss on a partition that could never catch up.
  const producers = randomInt(r, 1, 3);
  const recordsPerSecond = pick(r, [5, 20, 50]);
  const keyed = r() < 0.7;
  const keyCount = pick(r, [100, 10_000]);
  const keyDist = pick(r, ["uniform", "zipf"] as const);
  const meanBytes = pick(r, [100, 1_000]);
  const lingerMs = pick(r, [0, 5, 50]);
  const idempotent = r() < 0.7;
  const inFlight = pick(r, [1, 5]);
  const maxPollRecords = pick(r, [20, 500]);
  const fetchMaxWaitMs = pick(r, [100, 500]);
  const fetchMinBytes = pick(r, [1, 4_096]);
  const maxPartitionFetchBytes = pick(r, [262_144, 1_048_576]);
  const autoCommitIntervalMs = pick(r, [1_000, 5_000]);
  const processingMsPerRecord = pick(r, [0.1, 0.5, 2]);
  const callbackMs = pick(r, [0, 10, 200]);
  const staggerMs = randomInt(r, 0, 500);
  const scenario: ScenarioFile = {
    name: SWARM_NAMES.data,
    durationMs: 300_000,
    cluster: {
      coordinators: 1,
      brokers: 3,
      topics: [{ name: "swarm", partitions: shape.partitions, replicationFactor: 3 }],
      broker: { ...coordinatorSettings(shape), "min.insync.replicas": 2 },
    },
    producers: [
      {
        count: producers,
        producer: {
          acks: "all",
          "linger.ms": lingerMs,
          "enable.idempotence": idempotent,
          "max.in.flight.requests.per.connection": inFlight,
        },
        workload: {
          topic: "swarm",
          recordsPerSecond,
          keys: keyed ? { count: keyCount, dist: keyDist, ...(keyDist === "zipf" ? { exponent: 1 } : {}) } : null,
          valueBytes: { dist: "exponential", meanBytes },
          stopAtMs: 200_000,
        },
      },
    ],
    groups: [
      {
        ...groupOf(shape),
        staggerMs,
        consumer: {
          ...consumerSettings(shape),
          "auto.offset.reset": "earliest",
          "auto.commit.interval.ms": autoCommitIntervalMs,
          "max.poll.records": maxPollRecords,
          "fetch.max.wait.ms": fetchMaxWaitMs,
          "fetch.min.bytes": fetchMinBytes,
          "max.partition.fetch.bytes": maxPartitionFetchBytes,
        },
        app: {
          processingMsPerRecord,
          revokeCallbackMs: callbackMs,
          assignCallbackMs: callbackMs,
          commit: shape.autoCommit ? "auto" : "sync-after-batch",
        },
        source: { kind: "fetch" },
      },
    ],
  };
  return {
    scenario,
    parameters: {
      ...shapeParameters(shape),
      producers,
      recordsPerSecond,
      keys: keyed ? `${keyCount} ${keyDist}` : "none",
      meanValueBytes: meanBytes,
      lingerMs,
      idempotent,
      maxInFlight: inFlight,
      maxPollRecords,
      fetchMaxWaitMs,
      fetchMinBytes,
      maxPartitionFetchBytes,
      processingMsPerRecord,
      callbackMs,
    },
  };
}

/**
 * `--swarm-migration`: the group swarm's group (drawn the same way, so its
 * protocol is the one the group starts under) with 1 to all of its members
 * replaced by processes of the other protocol (a classic group's by KIP-848
 * consumers, a KIP-848 group's by classic consumers of either flavour)
 * between 10 and 110 s, while the faults are on. Kafka's default migration
 * policy (bidirectional) converts the group online at the first
 * replacement, and back again if the last member of the new protocol
 * leaves. The faults fall on the original members only (a hunt's fault
 * schedule names the members a group starts with).
 */
function drawMigrationSwarm(r: UniformSource): DrawnSystem {
  const { scenario, parameters } = drawGroupSwarm(r);
  const group = scenario.groups?.[0];
  if (group === undefined) throw new Error("the group swarm drew no group");
  const to: "eager" | "cooperative" | "consumer" = group.protocol === "consumer" ? pick(r, ["eager", "cooperative"] as const) : "consumer";
  const count = randomInt(r, 1, group.members);
  // Which members, in the order they are replaced, and when: one at a time, as a rolling upgrade goes.
  const order = Array.from({ length: group.members }, (_, i) => i + 1);
  for (let i = order.length - 1; i > 0; i--) {
    const j = randomInt(r, 0, i);
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  const times = Array.from({ length: count }, () => randomInt(r, 10_000, 110_000)).sort((a, b) => a - b);
  const replacements = times.map((atMs, i) => ({ member: order[i] as number, atMs, protocol: to }));
  return {
    scenario: { ...scenario, name: SWARM_NAMES.migration, groups: [{ ...group, replacements }] },
    parameters: { ...parameters, replacedBy: to, replaced: replacements.map((x) => `member-${x.member} at ${x.atMs} ms`) },
  };
}

/** Draws the system of one swarm seed. */
export function drawSwarmSystem(r: UniformSource, swarm: Swarm): DrawnSystem {
  if (swarm === "group") return drawGroupSwarm(r);
  return swarm === "data" ? drawDataSwarm(r) : drawMigrationSwarm(r);
}

/** The `kcsim hunt` flag of a swarm. */
export function swarmFlag(swarm: Swarm): string {
  return `--${SWARM_NAMES[swarm]}`;
}
