import { type PartitionsByTopic, topicPartitionsOf, tpKey } from "@kcsim/protocol";

/** A coordinator's or client's partitions by topic as the stories' partition keys ("swarm-4"). */
export function keysOf(partitions: PartitionsByTopic): string[] {
  return [...topicPartitionsOf(partitions)].map(({ topic, partition }) => tpKey(topic, partition));
}
