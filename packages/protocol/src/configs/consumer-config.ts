import { type ConfigDef, ConfigError, resolveConfig } from "./config-def.js";

const INT_MAX = 2147483647;

/**
 * The consumer settings the simulation uses, named as Kafka names them, with
 * Kafka's defaults (ConsumerConfig / CommonClientConfigs; spec 4.3, 5, 6).
 */
export interface ConsumerConfig {
  "group.id": string;
  "group.instance.id": string | null;
  "group.protocol": string;
  "group.remote.assignor": string | null;
  "client.id": string;
  "client.rack": string;
  "session.timeout.ms": number;
  "heartbeat.interval.ms": number;
  "max.poll.interval.ms": number;
  "max.poll.records": number;
  "partition.assignment.strategy": readonly string[];
  "enable.auto.commit": boolean;
  "auto.commit.interval.ms": number;
  "auto.offset.reset": string;
  "fetch.min.bytes": number;
  "fetch.max.wait.ms": number;
  "fetch.max.bytes": number;
  "max.partition.fetch.bytes": number;
  "isolation.level": string;
  "request.timeout.ms": number;
  "default.api.timeout.ms": number;
  "retry.backoff.ms": number;
  "retry.backoff.max.ms": number;
  "reconnect.backoff.ms": number;
  "reconnect.backoff.max.ms": number;
  "metadata.max.age.ms": number;
  /** Not a Kafka setting: see CONSUMER_CONFIG_DEF. */
  "kcsim.reconciliation.skip.released.partitions": boolean;
}

export const CONSUMER_CONFIG_DEF: ConfigDef<ConsumerConfig> = {
  "group.id": { type: "string", default: "", doc: "The consumer group this consumer belongs to." },
  "group.instance.id": { type: "string", default: null, nullable: true, doc: "Static membership id (KIP-345); null for a dynamic member." },
  "group.protocol": {
    type: "string",
    default: "classic",
    validValues: ["classic", "consumer"],
    doc: "Rebalance protocol: the classic JoinGroup/SyncGroup one or KIP-848's consumer protocol.",
  },
  "group.remote.assignor": {
    type: "string",
    default: null,
    nullable: true,
    doc: "Server-side assignor requested under group.protocol=consumer; null lets the broker choose.",
  },
  "client.id": { type: "string", default: "", doc: "Client id sent in request headers." },
  "client.rack": { type: "string", default: "", doc: "Rack of the consumer." },
  "session.timeout.ms": { type: "int", default: 45000, min: 1, doc: "Classic protocol session timeout." },
  "heartbeat.interval.ms": { type: "int", default: 3000, min: 1, doc: "Classic protocol heartbeat interval." },
  "max.poll.interval.ms": {
    type: "int",
    default: 300000,
    min: 1,
    doc: "Maximum delay between poll() calls; sent as the rebalance timeout.",
  },
  "max.poll.records": { type: "int", default: 500, min: 1, doc: "Maximum records returned by one poll()." },
  "partition.assignment.strategy": {
    type: "list",
    default: ["range", "cooperative-sticky"],
    validValues: ["range", "roundrobin", "sticky", "cooperative-sticky"],
    doc: "Client-side assignors, in preference order (classic protocol).",
  },
  "enable.auto.commit": { type: "boolean", default: true, doc: "Commit offsets periodically in the background of poll()." },
  "auto.commit.interval.ms": { type: "int", default: 5000, min: 0, doc: "Auto-commit interval." },
  "auto.offset.reset": {
    type: "string",
    default: "latest",
    validValues: ["earliest", "latest", "none"],
    doc: "Where to start without a valid committed offset.",
  },
  "fetch.min.bytes": { type: "int", default: 1, min: 0, doc: "Minimum bytes a fetch waits for." },
  "fetch.max.wait.ms": { type: "int", default: 500, min: 0, doc: "Maximum time the broker holds a fetch waiting for fetch.min.bytes." },
  "fetch.max.bytes": { type: "int", default: 52428800, min: 0, doc: "Maximum bytes per fetch response." },
  "max.partition.fetch.bytes": { type: "int", default: 1048576, min: 0, doc: "Maximum bytes per partition per fetch." },
  "isolation.level": {
    type: "string",
    default: "read_uncommitted",
    validValues: ["read_uncommitted", "read_committed"],
    doc: "Whether to read only committed transactional data.",
  },
  "request.timeout.ms": { type: "int", default: 30000, min: 0, doc: "How long a request waits for its response." },
  "default.api.timeout.ms": { type: "int", default: 60000, min: 0, doc: "Timeout of blocking consumer APIs (commitSync, close)." },
  "retry.backoff.ms": { type: "long", default: 100, min: 0, doc: "Initial retry backoff." },
  "retry.backoff.max.ms": { type: "long", default: 1000, min: 0, doc: "Maximum retry backoff (exponential, x2)." },
  "reconnect.backoff.ms": { type: "long", default: 50, min: 0, doc: "Initial reconnect backoff." },
  "reconnect.backoff.max.ms": { type: "long", default: 1000, min: 0, doc: "Maximum reconnect backoff." },
  "metadata.max.age.ms": { type: "long", default: 300000, min: 0, doc: "Forced metadata refresh period." },
  "kcsim.reconciliation.skip.released.partitions": {
    type: "boolean",
    default: false,
    doc:
      "Simulator-only, not in Kafka (group.protocol=consumer): when a newer target assignment arrived while a reconciliation " +
      "was in flight, the reconciliation assigns only the partitions that newer target still holds. false is Kafka's behaviour, " +
      "which lets a slow reconciliation install a partition the coordinator has already released to another member.",
  },
};

/**
 * Resolves a consumer config from overrides. Under group.protocol=consumer the
 * client rejects classic-only settings, and under classic it rejects
 * group.remote.assignor (spec 8, [4.x]).
 */
export function resolveConsumerConfig(overrides: unknown): ConsumerConfig {
  const config = resolveConfig("consumer", CONSUMER_CONFIG_DEF, overrides);
  const given = (overrides ?? {}) as Record<string, unknown>;
  if (config["group.protocol"] === "consumer") {
    for (const name of ["partition.assignment.strategy", "session.timeout.ms", "heartbeat.interval.ms"]) {
      if (name in given) throw new ConfigError(`consumer config '${name}' is not supported with group.protocol=consumer`);
    }
  } else if (config["group.remote.assignor"] !== null) {
    throw new ConfigError("consumer config 'group.remote.assignor' is only supported with group.protocol=consumer");
  }
  if (config["max.poll.interval.ms"] > INT_MAX) throw new ConfigError("consumer config 'max.poll.interval.ms' is too large");
  return config;
}
