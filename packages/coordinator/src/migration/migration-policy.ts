import type { BrokerConfig } from "@kcsim/protocol";

/**
 * `group.consumer.migration.policy` (Kafka's `ConsumerGroupMigrationPolicy`):
 * which online conversions of non-empty groups are allowed. Empty groups
 * convert either way whatever the policy.
 */
type MigrationPolicy = "bidirectional" | "upgrade" | "downgrade" | "disabled";

function policyOf(broker: BrokerConfig): MigrationPolicy {
  const policy = broker["group.consumer.migration.policy"];
  return policy === "upgrade" || policy === "downgrade" || policy === "disabled" ? policy : "bidirectional";
}

/** A non-empty classic group may become a consumer group when a consumer-protocol member joins. */
export function isUpgradeEnabled(broker: BrokerConfig): boolean {
  const policy = policyOf(broker);
  return policy === "bidirectional" || policy === "upgrade";
}

/** A consumer group whose last consumer-protocol member leaves may become a classic group. */
export function isDowngradeEnabled(broker: BrokerConfig): boolean {
  const policy = policyOf(broker);
  return policy === "bidirectional" || policy === "downgrade";
}

/** No conversion at all: groups stay single-protocol (mixed groups are refused, KAFKA-20640). */
export function isMigrationDisabled(broker: BrokerConfig): boolean {
  return policyOf(broker) === "disabled";
}
