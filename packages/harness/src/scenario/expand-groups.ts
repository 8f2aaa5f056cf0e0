import { type JsonValue, resolveBrokerConfig, topicIdFor } from "@kcsim/protocol";
import { KAFKAJS_CONSUMER_KIND } from "../kafkajs/kafkajs-consumer-actor.js";
import type { ActorSpec } from "../kernel/simulation-spec.js";
import type { ClusterSpec, GroupSpec, ProducerGroupSpec, ScenarioFile } from "./scenario-schema.js";

/** Actor kinds the cluster and groups expand into. */
export const COORDINATOR_KIND = "group-coordinator";
export const CONSUMER_KIND = "consumer";
export const CLASSIC_CONSUMER_KIND = "classic-consumer";
export const BROKER_KIND = "broker";
export const CONTROLLER_KIND = "controller";
export const PRODUCER_KIND = "producer";
export const TRANSACTION_COORDINATOR_KIND = "transaction-coordinator";
export const CONTROLLER_ID = "controller";

export type GroupProtocol = "consumer" | "eager" | "cooperative";

export function coordinatorIds(cluster: ClusterSpec): string[] {
  return Array.from({ length: cluster.coordinators ?? 1 }, (_, i) => `coordinator-${i}`);
}

export function clusterTopics(cluster: ClusterSpec): { name: string; id: string; partitions: number }[] {
  return cluster.topics.map((t) => ({ name: t.name, id: t.id ?? topicIdFor(t.name), partitions: t.partitions }));
}

export function brokerIds(cluster: ClusterSpec): string[] {
  return Array.from({ length: cluster.brokers ?? 0 }, (_, i) => `broker-${i}`);
}

export function transactionCoordinatorIds(cluster: ClusterSpec): string[] {
  return Array.from({ length: cluster.transactionCoordinators ?? 0 }, (_, i) => `txn-coordinator-${i}`);
}

/**
 * The `txnCoordinators` field of the group coordinators' and brokers' configs: they verify transactional writes
 * with the transaction coordinators (KIP-890), which exist only beside data brokers.
 */
function verificationField(cluster: ClusterSpec): { txnCoordinators?: string[] } {
  const transactionCoordinators = transactionCoordinatorIds(cluster);
  return transactionCoordinators.length > 0 && brokerIds(cluster).length > 0 ? { txnCoordinators: transactionCoordinators } : {};
}

/**
 * The cluster's finalized transaction.version feature for the actors that act on it: the producers and the
 * consumers' transactional outputs (Kafka's clients read it from ApiVersions) and the transaction
 * coordinators (for the aborts they start themselves). Nothing for the default, 0, so that configs and
 * histories of scenarios that do not set it are as they were.
 */
function transactionVersionField(cluster: ClusterSpec): { transactionVersion?: number } {
  const level = cluster.features?.["transaction.version"] ?? 0;
  return level === 0 ? {} : { transactionVersion: level };
}

/**
 * The transaction coordinators: each knows all of them (transactional ids
 * are spread over them), the data brokers (markers go to the partition
 * leaders) and the group coordinators (markers for transactional offsets).
 */
function expandTransactionCoordinators(cluster: ClusterSpec): ActorSpec[] {
  const ids = transactionCoordinatorIds(cluster);
  const config = {
    broker: (cluster.broker ?? {}) as JsonValue,
    txnCoordinators: ids,
    brokers: brokerIds(cluster),
    groupCoordinators: coordinatorIds(cluster),
    topics: clusterTopics(cluster),
    ...transactionVersionField(cluster),
  };
  return ids.map((id) => ({ id, kind: TRANSACTION_COORDINATOR_KIND, config, startAtUs: 0 }));
}

/** A producer's settings and transaction wiring: a transactional one gets a transactional.id of its own and the coordinators. */
function producerConfig(group: ProducerGroupSpec, id: string, number: number, cluster: ClusterSpec): Record<string, JsonValue> {
  const producer = { ...(group.producer ?? {}) } as Record<string, JsonValue>;
  if (group.transaction === undefined) return { producer };
  const given = producer["transactional.id"];
  producer["transactional.id"] = typeof given === "string" && given !== "" ? `${given}-${number}` : id;
  return {
    producer,
    transactionCoordinators: transactionCoordinatorIds(cluster),
    transaction: group.transaction as JsonValue,
    ...transactionVersionField(cluster),
  };
}

/** The data brokers, their controller and the producers of a scenario. */
function expandDataPath(scenario: ScenarioFile, cluster: ClusterSpec): ActorSpec[] {
  const ids = brokerIds(cluster);
  if (ids.length === 0) return [];
  const brokers = ids.map((host, nodeId) => ({ nodeId, host }));
  const topics = cluster.topics.map((t) => ({
    name: t.name,
    id: t.id ?? topicIdFor(t.name),
    partitions: t.partitions,
    replicationFactor: t.replicationFactor ?? Math.min(3, ids.length),
  }));
  const broker = (cluster.broker ?? {}) as JsonValue;
  const coordinators = coordinatorIds(cluster);
  const verification = verificationField(cluster);
  const actors: ActorSpec[] = [
    { id: CONTROLLER_ID, kind: CONTROLLER_KIND, config: { brokers, topics, broker, coordinators }, startAtUs: 0 },
  ];
  ids.forEach((id, brokerId) => {
    actors.push({
      id,
      kind: BROKER_KIND,
      config: { brokerId, controller: CONTROLLER_ID, brokers, topics, broker, ...verification },
      startAtUs: 0,
    });
  });
  const producerTopics = topics.map(({ name, id, partitions }) => ({ name, id, partitions }));
  for (const group of scenario.producers ?? []) {
    const prefix = group.idPrefix ?? "producer-";
    for (let i = 1; i <= (group.count ?? 1); i++) {
      const id = `${prefix}${i}`;
      actors.push({
        id,
        kind: PRODUCER_KIND,
        config: { bootstrap: ids, topics: producerTopics, workload: group.workload as JsonValue, ...producerConfig(group, id, i, cluster) },
        startAtUs: Math.round((group.startAtMs ?? 0) * 1000),
      });
    }
  }
  actors.push(...expandTransactionCoordinators(cluster));
  return actors;
}

/** The member actors of a group that run (not those it leaves out), in order, with their numbers and start times. */
export function groupMembers(group: GroupSpec): { id: string; number: number; startAtMs: number }[] {
  const left = new Set(group.withoutMembers ?? []);
  return groupMemberNumbering(group).filter((member) => !left.has(member.number));
}

/** Every member number a group's plan names (starting members, then joins), those it leaves out included. */
export function groupMemberNumbering(group: GroupSpec): { id: string; number: number; startAtMs: number }[] {
  const prefix = group.idPrefix ?? "member-";
  const start = group.startAtMs ?? 0;
  const out: { id: string; number: number; startAtMs: number }[] = [];
  for (let i = 1; i <= group.members; i++)
    out.push({ id: `${prefix}${i}`, number: i, startAtMs: start + (i - 1) * (group.staggerMs ?? 0) });
  let next = group.members + 1;
  for (const join of group.joins ?? []) {
    for (let k = 0; k < join.count; k++, next++) out.push({ id: `${prefix}${next}`, number: next, startAtMs: join.atMs });
  }
  return out;
}

/** The classic assignor list each classic flavour implies (spec 4.4), unless the scenario names its own. */
const CLASSIC_ASSIGNORS: Record<Exclude<GroupProtocol, "consumer">, string[]> = {
  eager: ["range"],
  cooperative: ["cooperative-sticky"],
};

/** Settings one protocol's client rejects (spec 8): dropped when a group runs under the other. */
const CLASSIC_ONLY = ["partition.assignment.strategy", "session.timeout.ms", "heartbeat.interval.ms"];
const CONSUMER_ONLY = ["group.remote.assignor"];

/** A replacement member: the member number it replaces, when, and under which protocol. */
interface MemberPlan {
  readonly id: string;
  readonly number: number;
  readonly startAtMs: number;
  readonly protocol: GroupProtocol;
}

/** Every member actor of a group, replacements included, with the protocol each speaks. */
function memberPlans(group: GroupSpec, protocol: GroupProtocol): MemberPlan[] {
  const plans: MemberPlan[] = groupMembers(group).map((m) => ({ ...m, protocol }));
  for (const replacement of group.replacements ?? []) {
    const original = plans.find((p) => p.number === replacement.member);
    if (original === undefined) continue;
    // The new process starts half a second after the old one closed.
    plans.push({ id: `${original.id}-r`, number: original.number, startAtMs: replacement.atMs + 500, protocol: replacement.protocol });
  }
  return plans;
}

/** The consumer settings of one member under one protocol. */
function consumerSettings(group: GroupSpec, plan: MemberPlan, explicitProtocol: boolean): Record<string, unknown> {
  const override = group.overrides?.find((o) => o.member === plan.number);
  const consumer: Record<string, unknown> = {
    ...(group.consumer ?? {}),
    ...(override?.consumer ?? {}),
    "group.id": group.groupId,
    "client.id": plan.id,
    "group.protocol": plan.protocol === "consumer" ? "consumer" : "classic",
  };
  for (const name of plan.protocol === "consumer" ? CLASSIC_ONLY : CONSUMER_ONLY) delete consumer[name];
  if (group.static) consumer["group.instance.id"] = plan.id.replace(/-r$/, "");
  if (plan.protocol !== "consumer" && (explicitProtocol || consumer["partition.assignment.strategy"] === undefined)) {
    consumer["partition.assignment.strategy"] = CLASSIC_ASSIGNORS[plan.protocol];
  }
  return consumer;
}

/** The nemesis steps a group's plan implies: each replaced member closes at its replacement time. */
export function groupNemesis(scenario: ScenarioFile): { atMs: number; actor: string }[] {
  const steps: { atMs: number; actor: string }[] = [];
  for (const group of scenario.groups ?? []) {
    const members = groupMembers(group);
    for (const replacement of group.replacements ?? []) {
      const original = members.find((m) => m.number === replacement.member);
      if (original !== undefined) steps.push({ atMs: replacement.atMs, actor: original.id });
    }
  }
  return steps;
}

/**
 * Expands a scenario's cluster, producers and groups into actor specs: one
 * group-coordinator actor per coordinator, the data brokers with their
 * controller, the producers, the transaction coordinators, one consumer actor per member
 * (KIP-848 "consumer" or "classic-consumer" depending on the protocol,
 * which `protocolOverride` replaces for every group).
 */
export function expandGroups(scenario: ScenarioFile, protocolOverride?: GroupProtocol): ActorSpec[] {
  const cluster = scenario.cluster;
  if (cluster === undefined) return [];
  const coordinators = coordinatorIds(cluster);
  const topics = clusterTopics(cluster);
  const transactionCoordinators = transactionCoordinatorIds(cluster);
  const verification = verificationField(cluster);
  const actors: ActorSpec[] = coordinators.map((id) => ({
    id,
    kind: COORDINATOR_KIND,
    config: { broker: (cluster.broker ?? {}) as JsonValue, topics, coordinators, ...verification },
    startAtUs: 0,
  }));
  actors.push(...expandDataPath(scenario, cluster));
  const brokers = brokerIds(cluster);
  for (const group of scenario.groups ?? []) {
    if (group.client === "kafkajs") {
      actors.push(...expandKafkaJSGroup(group, cluster));
      continue;
    }
    const protocol = protocolOverride ?? group.protocol ?? "consumer";
    for (const member of memberPlans(group, protocol)) {
      const override = group.overrides?.find((o) => o.member === member.number);
      const consumer = consumerSettings(group, member, protocolOverride !== undefined);
      actors.push({
        id: member.id,
        kind: member.protocol === "consumer" ? CONSUMER_KIND : CLASSIC_CONSUMER_KIND,
        config: {
          consumer: consumer as JsonValue,
          bootstrap: coordinators,
          subscription: group.subscription,
          topics,
          app: { ...(group.app ?? {}), ...(override?.app ?? {}) } as JsonValue,
          // A "fetch" source reads from the data brokers through the real fetcher.
          source: (group.source?.kind === "fetch" ? { ...group.source, brokers } : (group.source ?? { kind: "synthetic" })) as JsonValue,
          // For a transactional consume-process-produce output.
          ...(transactionCoordinators.length > 0 ? { transactionCoordinators, ...transactionVersionField(cluster) } : {}),
        },
        startAtUs: Math.round(member.startAtMs * 1000),
      });
    }
  }
  return actors;
}

/** KafkaJS 2.2.4's consumer defaults the group topology needs (src/consumer/index.js). */
const KAFKAJS_SESSION_TIMEOUT_MS = 30_000;
const KAFKAJS_REBALANCE_TIMEOUT_MS = 60_000;

/**
 * The members of a `"client": "kafkajs"` group: KafkaJS consumers reaching
 * the brokers as broker-i:9092 through their in-simulation sockets, with
 * the group's `kafkajs` options. Their `consumer` settings carry the
 * group's id and timeouts by Kafka's names too, for the checkers' group
 * topology.
 */
function expandKafkaJSGroup(group: GroupSpec, cluster: ClusterSpec): ActorSpec[] {
  const brokers = brokerIds(cluster);
  const settings = resolveBrokerConfig(cluster.broker ?? {});
  const topics = clusterTopics(cluster);
  const kafkajs = (group.kafkajs ?? {}) as Record<string, JsonValue>;
  const wire = {
    nodes: brokers.map((broker, nodeId) => ({ nodeId, host: broker, port: 9092, broker })),
    coordinators: coordinatorIds(cluster),
    controller: CONTROLLER_ID,
    topics: topics.map(({ name, id }) => ({ name, id })),
    clusterId: "kcsim",
    autoCreateTopics: settings["auto.create.topics.enable"],
    offsetsTopicPartitions: settings["offsets.topic.num.partitions"],
    records: "application",
  };
  return groupMembers(group).map((member) => ({
    id: member.id,
    kind: KAFKAJS_CONSUMER_KIND,
    config: {
      groupId: group.groupId,
      subscription: group.subscription,
      kafkajs,
      app: (group.app ?? {}) as JsonValue,
      wire,
      consumer: {
        "group.id": group.groupId,
        "client.id": member.id,
        "session.timeout.ms": typeof kafkajs.sessionTimeout === "number" ? kafkajs.sessionTimeout : KAFKAJS_SESSION_TIMEOUT_MS,
        "max.poll.interval.ms": typeof kafkajs.rebalanceTimeout === "number" ? kafkajs.rebalanceTimeout : KAFKAJS_REBALANCE_TIMEOUT_MS,
      },
      topics,
    },
    startAtUs: Math.round(member.startAtMs * 1000),
  }));
}
