import type { JsonValue } from "@kcsim/protocol";
import { type ClientAssignorName, clientAssignor } from "../assignors/client-assignors.js";
import type { ConsumerPartitionAssignor } from "../assignors/consumer-partition-assignor.js";
import { chooseRebalanceProtocol, type RebalanceProtocol } from "../assignors/rebalance-protocol.js";
import { type ConsumerMemberConfig, ConsumerMemberConfigError, parseConsumerMemberConfig } from "../consumer/consumer-member-config.js";

/** A classic consumer's config: the consumer actor's shape, plus what its assignors imply. */
export interface ClassicMemberConfig extends ConsumerMemberConfig {
  /** partition.assignment.strategy, in preference order. */
  readonly assignors: readonly ConsumerPartitionAssignor[];
  /** The highest rebalance protocol all of them support. */
  readonly rebalanceProtocol: RebalanceProtocol;
}

/**
 * Validates a "classic-consumer" actor's JSON config (the consumer actor's
 * shape, with group.protocol "classic") and what Kafka's classic client
 * checks when it starts: heartbeat.interval.ms below session.timeout.ms
 * (`Heartbeat`), and assignors sharing a rebalance protocol
 * (`ConsumerCoordinator`). Throws a ConsumerMemberConfigError naming the field.
 */
export function parseClassicMemberConfig(json: JsonValue): ClassicMemberConfig {
  const config = parseConsumerMemberConfig(json, "classic");
  const consumer = config.consumer;
  if (consumer["heartbeat.interval.ms"] >= consumer["session.timeout.ms"]) {
    throw new ConsumerMemberConfigError(
      `consumer member config: 'consumer.heartbeat.interval.ms' must be lower than session.timeout.ms (${consumer["heartbeat.interval.ms"]} >= ${consumer["session.timeout.ms"]})`,
    );
  }
  const assignors = consumer["partition.assignment.strategy"].map((name) => clientAssignor(name as ClientAssignorName));
  let rebalanceProtocol: RebalanceProtocol;
  try {
    rebalanceProtocol = chooseRebalanceProtocol(assignors);
  } catch (error) {
    throw new ConsumerMemberConfigError(
      `consumer member config: 'consumer.partition.assignment.strategy' ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return { ...config, assignors, rebalanceProtocol };
}
