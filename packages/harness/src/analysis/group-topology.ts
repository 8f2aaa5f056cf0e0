import { getOrCreate, type JsonValue, type TopicPartition, tpKey } from "@kcsim/protocol";
import type { SimulationSpec } from "../kernel/simulation-spec.js";

/** A consumer group as the spec defines it: its member actors and the partitions they subscribe to. */
export interface GroupTopology {
  readonly groupId: string;
  readonly members: readonly string[];
  /** Subscribed partitions as `topic-partition` keys, sorted. */
  readonly partitions: readonly string[];
  readonly maxPollIntervalMs: ReadonlyMap<string, number>;
  readonly sessionTimeoutMs: number;
  readonly rebalanceTimeoutMs: number;
  readonly heartbeatIntervalMs: number;
}

const MEMBER_KINDS = new Set(["consumer", "classic-consumer", "kafkajs-consumer"]);
/** Kinds that run the classic protocol, whose session timeout is their own (consumer-protocol sessions are the broker's). */
const CLASSIC_KINDS = new Set(["classic-consumer", "kafkajs-consumer"]);

function field(config: JsonValue, name: string): JsonValue | undefined {
  return typeof config === "object" && config !== null && !Array.isArray(config) ? (config as Record<string, JsonValue>)[name] : undefined;
}

function numberSetting(settings: JsonValue | undefined, name: string, fallback: number): number {
  const value = field(settings ?? null, name);
  return typeof value === "number" ? value : fallback;
}

/** The partition keys a member subscribes to, as `topic-partition` keys. */
function subscribedPartitions(subscription: readonly JsonValue[], topics: readonly JsonValue[]): string[] {
  const subscribed = new Set(subscription);
  const keys: string[] = [];
  for (const topic of topics) {
    const name = field(topic, "name");
    const count = field(topic, "partitions");
    if (typeof name === "string" && typeof count === "number" && subscribed.has(name)) {
      for (let p = 0; p < count; p++) keys.push(tpKey(name, p));
    }
  }
  return keys;
}

/** The topics part of subscription keys: one string per topics list (members of a group share one list, or equal ones). */
type TopicsKeys = WeakMap<readonly JsonValue[], string>;

/** A key that is equal for members subscribing alike to the same topics (most of a group's members). */
function subscriptionKey(subscription: readonly JsonValue[], topics: readonly JsonValue[], topicsKeys: TopicsKeys): string {
  const names = subscription.map((name) => JSON.stringify(name)).join(",");
  let counts = topicsKeys.get(topics);
  if (counts === undefined) {
    counts = topics
      .map((topic) => `${JSON.stringify(field(topic, "name") ?? null)}:${JSON.stringify(field(topic, "partitions") ?? null)}`)
      .join(",");
    topicsKeys.set(topics, counts);
  }
  return `${names}|${counts}`;
}

/** Each spec's groups, read once: several checkers and the metrics ask, and a big group takes a while to read. */
const topologiesOf = new WeakMap<SimulationSpec, readonly GroupTopology[]>();

/** Reads the groups of a run from its member actors' configs (group.id, subscription, topics); the same array for the same spec. */
export function groupTopologies(spec: SimulationSpec): readonly GroupTopology[] {
  let topologies = topologiesOf.get(spec);
  if (topologies === undefined) {
    topologies = readGroupTopologies(spec);
    topologiesOf.set(spec, topologies);
  }
  return topologies;
}

function readGroupTopologies(spec: SimulationSpec): readonly GroupTopology[] {
  const topicsKeys: TopicsKeys = new WeakMap();
  const groups = new Map<
    string,
    {
      members: string[];
      partitions: Set<string>;
      subscriptionsSeen: Set<string>;
      maxPoll: Map<string, number>;
      session: number;
      rebalance: number;
    }
  >();
  let brokerSession = 45_000;
  let brokerHeartbeat = 5_000;
  for (const actor of spec.actors) {
    if (actor.kind === "group-coordinator") {
      const broker = field(actor.config, "broker");
      brokerSession = numberSetting(broker, "group.consumer.session.timeout.ms", brokerSession);
      brokerHeartbeat = numberSetting(broker, "group.consumer.heartbeat.interval.ms", brokerHeartbeat);
    }
    if (!MEMBER_KINDS.has(actor.kind)) continue;
    const consumer = field(actor.config, "consumer");
    const groupId = field(consumer ?? null, "group.id");
    if (typeof groupId !== "string") continue;
    const group = getOrCreate(groups, groupId, () => ({
      members: [] as string[],
      partitions: new Set<string>(),
      subscriptionsSeen: new Set<string>(),
      maxPoll: new Map<string, number>(),
      session: 0,
      rebalance: 0,
    }));
    group.members.push(actor.id);
    const maxPoll = numberSetting(consumer, "max.poll.interval.ms", 300_000);
    group.maxPoll.set(actor.id, maxPoll);
    group.rebalance = Math.max(group.rebalance, maxPoll);
    group.session = Math.max(group.session, CLASSIC_KINDS.has(actor.kind) ? numberSetting(consumer, "session.timeout.ms", 45_000) : 0);
    const subscription = field(actor.config, "subscription");
    const topics = field(actor.config, "topics");
    if (Array.isArray(subscription) && Array.isArray(topics)) {
      // A thousand members subscribing alike add their 10,000 partitions once, not a thousand times.
      const key = subscriptionKey(subscription, topics, topicsKeys);
      if (!group.subscriptionsSeen.has(key)) {
        group.subscriptionsSeen.add(key);
        for (const partition of subscribedPartitions(subscription, topics)) group.partitions.add(partition);
      }
    }
  }
  return [...groups].map(([groupId, g]) => ({
    groupId,
    members: g.members,
    partitions: [...g.partitions].sort(),
    maxPollIntervalMs: g.maxPoll,
    sessionTimeoutMs: Math.max(g.session, brokerSession),
    rebalanceTimeoutMs: g.rebalance,
    heartbeatIntervalMs: brokerHeartbeat,
  }));
}

export type { TopicPartition };
