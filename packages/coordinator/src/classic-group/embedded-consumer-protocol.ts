import {
  CodecError,
  type ConsumerProtocolAssignment,
  type ConsumerProtocolSubscription,
  decodeAssignment,
  decodeSubscription,
  encodeAssignment,
  type PartitionsByTopic,
  partitionsByTopic,
  type TopicPartition,
  type TopicPartitionList,
} from "@kcsim/protocol";
import type { MetadataImage } from "../metadata/metadata-image.js";
import { normalizeAssignment, type TopicIdPartitions } from "../topic-id-partitions.js";

/**
 * The embedded consumer protocol (spec 4.1) as the coordinator reads and
 * writes it: subscriptions in JoinGroup metadata, assignments in SyncGroup.
 * To a classic group these are opaque bytes; the coordinator decodes them
 * only to observe assignments, to convert groups and to serve classic
 * members of consumer groups.
 */

/** The decoded subscription, or null when the bytes are not a ConsumerProtocolSubscription. */
export function subscriptionOf(metadata: Uint8Array): ConsumerProtocolSubscription | null {
  try {
    return decodeSubscription(metadata);
  } catch (error) {
    if (error instanceof CodecError) return null;
    throw error;
  }
}

/** The decoded assignment; an empty byte string is an empty assignment; null when the bytes do not decode. */
export function assignmentOf(assignment: Uint8Array): ConsumerProtocolAssignment | null {
  if (assignment.length === 0) return { version: 0, assignedPartitions: [], userData: null };
  try {
    return decodeAssignment(assignment);
  } catch (error) {
    if (error instanceof CodecError) return null;
    throw error;
  }
}

function topicPartitionsOfList(list: TopicPartitionList): TopicPartition[] {
  return list.flatMap(({ topic, partitions }) => partitions.map((partition) => ({ topic, partition })));
}

/** The partitions of a classic assignment by topic name ({} when it is empty or does not decode). */
export function assignedPartitionsOf(assignment: Uint8Array): PartitionsByTopic {
  const decoded = assignmentOf(assignment);
  return decoded === null ? {} : partitionsByTopic(topicPartitionsOfList(decoded.assignedPartitions));
}

/** Topic-name partitions as topic-id partitions; topics missing from the image are dropped (Kafka's `toTopicPartitions`). */
export function toTopicIdPartitions(list: TopicPartitionList, image: MetadataImage): TopicIdPartitions[] {
  const byId: TopicIdPartitions[] = [];
  for (const { topic, partitions } of list) {
    const known = image.topic(topic);
    if (known !== undefined && partitions.length > 0) byId.push({ topicId: known.id, partitions: [...partitions] });
  }
  return normalizeAssignment(byId);
}

/** Topic-id partitions as a ConsumerProtocolAssignment's list (topics by name, sorted; unknown ids dropped). */
export function toTopicPartitionList(assignment: readonly TopicIdPartitions[], image: MetadataImage): TopicPartitionList {
  const byName = new Map<string, number[]>();
  for (const { topicId, partitions } of assignment) {
    const topic = image.topicById(topicId);
    if (topic === undefined || partitions.length === 0) continue;
    byName.set(topic.name, [...(byName.get(topic.name) ?? []), ...partitions]);
  }
  return [...byName.keys()].sort().map((topic) => ({ topic, partitions: [...new Set(byName.get(topic))].sort((a, b) => a - b) }));
}

/**
 * Serializes an assignment in the version of the member's subscription
 * (Kafka's `ConsumerProtocol.serializeAssignment(..., deserializeVersion(metadata))`).
 */
export function encodeConsumerAssignment(assignedPartitions: TopicPartitionList, subscriptionMetadata: Uint8Array): Uint8Array {
  const version = subscriptionOf(subscriptionMetadata)?.version ?? 0;
  return encodeAssignment({ version, assignedPartitions, userData: null });
}
