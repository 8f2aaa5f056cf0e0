import type { TopicMetadata } from "../assignors/subscribed-topic-describer.js";
import type { MetadataImage } from "../metadata/metadata-image.js";
import type { ConsumerGroupPartitionMetadataValue } from "../records/coordinator-record.js";

/**
 * A consumer group's subscription metadata (Kafka's
 * `ConsumerGroup.subscriptionMetadata`): id, name and partition count of
 * every subscribed topic that exists, in metadata-image order (the explicit
 * topic order the assignors get). Persisted as the PartitionMetadata record.
 */
export type SubscriptionMetadata = readonly TopicMetadata[];

export const NO_SUBSCRIPTION_METADATA: SubscriptionMetadata = [];

/** The metadata of the subscribed topics that exist in the image. */
export function computeSubscriptionMetadata(subscribedTopicNames: Iterable<string>, image: MetadataImage): SubscriptionMetadata {
  const topics: TopicMetadata[] = [];
  for (const name of subscribedTopicNames) {
    const topic = image.topic(name);
    if (topic !== undefined) topics.push({ topicId: topic.id, name: topic.name, numPartitions: topic.partitions });
  }
  if (topics.length === 0) return NO_SUBSCRIPTION_METADATA;
  return topics.sort((a, b) => image.rankOf(a.name) - image.rankOf(b.name));
}

/** Equality as maps by topic name (order aside). */
export function sameSubscriptionMetadata(a: SubscriptionMetadata, b: SubscriptionMetadata): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  const byName = new Map(b.map((topic) => [topic.name, topic]));
  for (const topic of a) {
    const other = byName.get(topic.name);
    if (other === undefined || other.topicId !== topic.topicId || other.numPartitions !== topic.numPartitions) return false;
  }
  return true;
}

export function partitionMetadataValue(metadata: SubscriptionMetadata): ConsumerGroupPartitionMetadataValue {
  return {
    topics: metadata.map((topic) => ({
      topicId: topic.topicId,
      topicName: topic.name,
      numPartitions: topic.numPartitions,
      partitionMetadata: [],
    })),
  };
}

export function subscriptionMetadataOf(value: ConsumerGroupPartitionMetadataValue): SubscriptionMetadata {
  if (value.topics.length === 0) return NO_SUBSCRIPTION_METADATA;
  return value.topics.map((topic) => ({ topicId: topic.topicId, name: topic.topicName, numPartitions: topic.numPartitions }));
}
