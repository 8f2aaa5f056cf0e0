import { type ConfigDef, ConfigError, resolveConfig } from "./config-def.js";

const INT_MAX = 2147483647;

/**
 * Broker settings: the group coordinator (GroupCoordinatorConfig, spec 1.9),
 * offsets, classic groups, fetch sessions and fetch sizing (spec 6), and the
 * transaction coordinator (spec 7). Named and defaulted as Kafka does.
 */
export interface BrokerConfig {
  "group.consumer.session.timeout.ms": number;
  "group.consumer.min.session.timeout.ms": number;
  "group.consumer.max.session.timeout.ms": number;
  "group.consumer.heartbeat.interval.ms": number;
  "group.consumer.min.heartbeat.interval.ms": number;
  "group.consumer.max.heartbeat.interval.ms": number;
  "group.consumer.max.size": number;
  "group.consumer.assignors": readonly string[];
  "group.consumer.migration.policy": string;
  "group.coordinator.rebalance.protocols": readonly string[];
  "group.coordinator.append.linger.ms": number;
  "kcsim.group.consumer.rejoin.at.epoch.zero": boolean;
  "offsets.topic.num.partitions": number;
  "offsets.topic.replication.factor": number;
  "offsets.commit.timeout.ms": number;
  "offsets.retention.minutes": number;
  "offset.metadata.max.bytes": number;
  "group.min.session.timeout.ms": number;
  "group.max.session.timeout.ms": number;
  "group.initial.rebalance.delay.ms": number;
  "group.max.size": number;
  "max.incremental.fetch.session.cache.slots": number;
  "fetch.max.bytes": number;
  "message.max.bytes": number;
  "min.insync.replicas": number;
  "replica.lag.time.max.ms": number;
  "replica.fetch.wait.max.ms": number;
  "replica.fetch.min.bytes": number;
  "replica.fetch.max.bytes": number;
  "replica.fetch.response.max.bytes": number;
  "replica.fetch.backoff.ms": number;
  "replica.socket.timeout.ms": number;
  "replica.high.watermark.checkpoint.interval.ms": number;
  "log.segment.bytes": number;
  "log.roll.ms": number;
  "log.retention.ms": number;
  "log.retention.bytes": number;
  "log.retention.check.interval.ms": number;
  "broker.heartbeat.interval.ms": number;
  "broker.session.timeout.ms": number;
  "controller.socket.timeout.ms": number;
  "transaction.max.timeout.ms": number;
  "transaction.abort.timed.out.transaction.cleanup.interval.ms": number;
  "transaction.state.log.num.partitions": number;
  "transactional.id.expiration.ms": number;
  "transaction.remove.expired.transaction.cleanup.interval.ms": number;
  "transaction.partition.verification.enable": boolean;
  "add.partitions.to.txn.retry.backoff.ms": number;
  "add.partitions.to.txn.retry.backoff.max.ms": number;
  "request.timeout.ms": number;
  "auto.create.topics.enable": boolean;
  "num.partitions": number;
  "default.replication.factor": number;
}

export const BROKER_CONFIG_DEF: ConfigDef<BrokerConfig> = {
  "group.consumer.session.timeout.ms": {
    type: "int",
    default: 45000,
    min: 1,
    doc: "Consumer-protocol session timeout (bounded by the min/max settings).",
  },
  "group.consumer.min.session.timeout.ms": {
    type: "int",
    default: 45000,
    min: 1,
    doc: "Lower bound of consumer-protocol session timeouts.",
  },
  "group.consumer.max.session.timeout.ms": {
    type: "int",
    default: 60000,
    min: 1,
    doc: "Upper bound of consumer-protocol session timeouts.",
  },
  "group.consumer.heartbeat.interval.ms": {
    type: "int",
    default: 5000,
    min: 1,
    doc: "Consumer-protocol heartbeat interval given to members.",
  },
  "group.consumer.min.heartbeat.interval.ms": {
    type: "int",
    default: 5000,
    min: 1,
    doc: "Lower bound of consumer-protocol heartbeat intervals.",
  },
  "group.consumer.max.heartbeat.interval.ms": {
    type: "int",
    default: 15000,
    min: 1,
    doc: "Upper bound of consumer-protocol heartbeat intervals.",
  },
  "group.consumer.max.size": { type: "int", default: INT_MAX, min: 1, doc: "Maximum members of a consumer group." },
  "group.consumer.assignors": {
    type: "list",
    default: ["uniform", "range"],
    validValues: ["uniform", "range"],
    doc: "Server-side assignors; the first is the default.",
  },
  "group.consumer.migration.policy": {
    type: "string",
    default: "bidirectional",
    validValues: ["bidirectional", "upgrade", "downgrade", "disabled"],
    doc: "Online classic <-> consumer group conversions allowed.",
  },
  "group.coordinator.rebalance.protocols": {
    type: "list",
    default: ["classic", "consumer"],
    validValues: ["classic", "consumer", "share", "streams"],
    doc: "Rebalance protocols the coordinator serves.",
  },
  "group.coordinator.append.linger.ms": { type: "int", default: 10, min: 0, doc: "Time the coordinator lingers to batch record appends." },
  "kcsim.group.consumer.rejoin.at.epoch.zero": {
    type: "boolean",
    default: false,
    doc:
      "Simulator-only switch for a later Kafka: a consumer-protocol heartbeat at member epoch 0 whose member id the group " +
      "still holds passes the member epoch check and rejoins (KAFKA-19233, merged January 2026). false is Kafka 4.0's " +
      "behaviour: the coordinator fences it (epoch 0 is below the stored epoch and not its previous one) until the old " +
      "member leaves or its session expires.",
  },
  "offsets.topic.num.partitions": { type: "int", default: 50, min: 1, doc: "Partitions of __consumer_offsets." },
  "offsets.topic.replication.factor": { type: "int", default: 3, min: 1, doc: "Replication factor of __consumer_offsets." },
  "offsets.commit.timeout.ms": { type: "int", default: 5000, min: 1, doc: "Commit wait for the offsets append." },
  "offsets.retention.minutes": { type: "int", default: 10080, min: 1, doc: "Retention of committed offsets of empty groups." },
  "offset.metadata.max.bytes": { type: "int", default: 4096, min: 0, doc: "Maximum size of commit metadata." },
  "group.min.session.timeout.ms": { type: "int", default: 6000, min: 0, doc: "Classic: minimum session timeout." },
  "group.max.session.timeout.ms": { type: "int", default: 1800000, min: 0, doc: "Classic: maximum session timeout." },
  "group.initial.rebalance.delay.ms": {
    type: "int",
    default: 3000,
    min: 0,
    doc: "Classic: delay of the first rebalance of an empty group.",
  },
  "group.max.size": { type: "int", default: INT_MAX, min: 1, doc: "Classic: maximum members of a group." },
  "max.incremental.fetch.session.cache.slots": { type: "int", default: 1000, min: 0, doc: "Fetch sessions cached (KIP-227)." },
  "fetch.max.bytes": { type: "int", default: 57671680, min: 1024, doc: "Broker cap on bytes per fetch response." },
  "message.max.bytes": {
    type: "int",
    default: 1048588,
    min: 0,
    doc: "Largest record batch a partition accepts (MESSAGE_TOO_LARGE above).",
  },
  "min.insync.replicas": {
    type: "int",
    default: 1,
    min: 1,
    doc: "ISR size an acks=all produce needs (NOT_ENOUGH_REPLICAS below), and below which the high watermark stays put.",
  },
  "replica.lag.time.max.ms": {
    type: "long",
    default: 30000,
    min: 1,
    doc: "A follower not caught up with the leader's log end for this long leaves the ISR.",
  },
  "replica.fetch.wait.max.ms": { type: "int", default: 500, min: 0, doc: "Max wait of a follower's fetch on the leader." },
  "replica.fetch.min.bytes": { type: "int", default: 1, min: 0, doc: "Min bytes a follower's fetch waits for." },
  "replica.fetch.max.bytes": { type: "int", default: 1048576, min: 0, doc: "Bytes per partition a follower fetches." },
  "replica.fetch.response.max.bytes": { type: "int", default: 10485760, min: 0, doc: "Bytes per response a follower fetches." },
  "replica.fetch.backoff.ms": { type: "int", default: 1000, min: 0, doc: "Follower backoff after a fetch error." },
  "replica.socket.timeout.ms": { type: "int", default: 30000, min: 1, doc: "Timeout of a follower's requests to its leader." },
  "replica.high.watermark.checkpoint.interval.ms": {
    type: "long",
    default: 5000,
    min: 1,
    doc: "How often high watermarks are written to durable storage.",
  },
  "log.segment.bytes": { type: "int", default: 1073741824, min: 14, doc: "Size at which a log segment is rolled." },
  "log.roll.ms": { type: "long", default: 604800000, min: 1, doc: "Age at which a log segment is rolled (log.roll.hours = 168)." },
  "log.retention.ms": {
    type: "long",
    default: 604800000,
    min: -1,
    doc: "Age after which closed segments are deleted (-1: never; log.retention.hours = 168).",
  },
  "log.retention.bytes": {
    type: "long",
    default: -1,
    min: -1,
    doc: "Partition size above which the oldest segments are deleted (-1: no limit).",
  },
  "log.retention.check.interval.ms": { type: "long", default: 300000, min: 1, doc: "How often retention runs." },
  "broker.heartbeat.interval.ms": {
    type: "int",
    default: 2000,
    min: 1,
    doc: "KRaft: interval between a broker's heartbeats to the controller.",
  },
  "broker.session.timeout.ms": {
    type: "int",
    default: 9000,
    min: 1,
    doc: "KRaft: a broker whose heartbeats stop for this long is fenced by the controller.",
  },
  "controller.socket.timeout.ms": { type: "int", default: 30000, min: 1, doc: "Timeout of a broker's requests to the controller." },
  "transaction.max.timeout.ms": { type: "int", default: 900000, min: 1, doc: "Maximum transaction timeout a producer may ask for." },
  "transaction.abort.timed.out.transaction.cleanup.interval.ms": {
    type: "int",
    default: 10000,
    min: 1,
    doc: "How often expired transactions are aborted.",
  },
  "transaction.state.log.num.partitions": {
    type: "int",
    default: 50,
    min: 1,
    doc: "Partitions of __transaction_state; transactional id t belongs to partition abs(t.hashCode()) % this.",
  },
  "transactional.id.expiration.ms": {
    type: "int",
    default: 604800000,
    min: 1,
    doc: "A transactional id without a transaction status update for this long is expired (its state removed).",
  },
  "transaction.remove.expired.transaction.cleanup.interval.ms": {
    type: "int",
    default: 3600000,
    min: 1,
    doc: "How often expired transactional ids are removed.",
  },
  "transaction.partition.verification.enable": {
    type: "boolean",
    default: true,
    doc: "KIP-890 part 1: a transactional write to a partition where its producer has no transaction open is first checked with the transaction coordinator (AddPartitionsToTxn, verifyOnly).",
  },
  "add.partitions.to.txn.retry.backoff.ms": {
    type: "int",
    default: 20,
    min: 1,
    doc: "Transaction version 2: how long a partition leader waits before asking the transaction coordinator again to add a partition it answered CONCURRENT_TRANSACTIONS (the previous transaction still ending).",
  },
  "add.partitions.to.txn.retry.backoff.max.ms": {
    type: "int",
    default: 100,
    min: 0,
    doc: "Transaction version 2: how long a partition leader keeps retrying that add (at most request.timeout.ms) before it answers the producer CONCURRENT_TRANSACTIONS.",
  },
  "request.timeout.ms": {
    type: "int",
    default: 30000,
    min: 0,
    doc: "Timeout of a broker's inter-broker requests (the transaction coordinator's WriteTxnMarkers and Metadata requests).",
  },
  "auto.create.topics.enable": {
    type: "boolean",
    default: true,
    doc: "A Metadata request from a real client (kcsim serve) that names an unknown topic creates it, when the request allows it.",
  },
  "num.partitions": {
    type: "int",
    default: 1,
    min: 1,
    doc: "Partitions of an auto-created topic, and of a CreateTopics request that asks -1.",
  },
  "default.replication.factor": {
    type: "int",
    default: 1,
    min: 1,
    doc: "Replicas of an auto-created topic, and of a CreateTopics request that asks -1 (capped at the brokers there are).",
  },
};

/** Resolves broker settings and checks the cross-setting rules of GroupCoordinatorConfig. */
export function resolveBrokerConfig(overrides: unknown): BrokerConfig {
  const c = resolveConfig("broker", BROKER_CONFIG_DEF, overrides);
  const between = (name: keyof BrokerConfig, min: keyof BrokerConfig, max: keyof BrokerConfig) => {
    const value = c[name] as number;
    if (value < (c[min] as number) || value > (c[max] as number)) {
      throw new ConfigError(`broker config '${name}' = ${value} must be within [${c[min]}, ${c[max]}] ('${min}', '${max}')`);
    }
  };
  between("group.consumer.session.timeout.ms", "group.consumer.min.session.timeout.ms", "group.consumer.max.session.timeout.ms");
  between("group.consumer.heartbeat.interval.ms", "group.consumer.min.heartbeat.interval.ms", "group.consumer.max.heartbeat.interval.ms");
  if (c["group.consumer.heartbeat.interval.ms"] >= c["group.consumer.session.timeout.ms"]) {
    throw new ConfigError("broker config 'group.consumer.heartbeat.interval.ms' must be less than 'group.consumer.session.timeout.ms'");
  }
  if (c["group.consumer.assignors"].length === 0) throw new ConfigError("broker config 'group.consumer.assignors' must not be empty");
  return c;
}
