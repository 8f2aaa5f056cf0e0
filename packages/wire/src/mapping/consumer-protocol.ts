import {
  type ConsumerProtocolAssignment,
  type ConsumerProtocolSubscription,
  decodeAssignment,
  decodeSubscription,
  encodeAssignment,
  encodeSubscription,
} from "@kcsim/protocol";
import { Reader } from "../io/reader.js";
import { Writer } from "../io/writer.js";
import { array, bytes, field, int32, nullableField, string, struct } from "../schema/index.js";

/**
 * The embedded consumer protocol in Kafka's own binary form (a version
 * INT16, then ConsumerProtocolSubscription / ConsumerProtocolAssignment at
 * that version, v0-3, none flexible): what real clients put in JoinGroup's
 * protocol metadata and SyncGroup's assignments. kcsim's simulated members
 * carry the same fields msgpack-encoded (@kcsim/protocol consumer-protocol),
 * so a group that mixes real and simulated members needs the translation
 * below in both directions. A newer version is read with the v3 layout, as
 * Kafka's ConsumerProtocol does.
 */
const TopicPartition = struct("TopicPartition", { topic: field(string, "0+"), partitions: field(array(int32), "0+") });

const Subscription = struct("ConsumerProtocolSubscription", {
  topics: field(array(string), "0+"),
  userData: nullableField(bytes, "0+", "0+"),
  ownedPartitions: field(array(TopicPartition), "1+", { ignorable: true }),
  generationId: field(int32, "2+", { default: -1, ignorable: true }),
  rackId: nullableField(string, "3+", "3+", { ignorable: true }),
});

const Assignment = struct("ConsumerProtocolAssignment", {
  assignedPartitions: field(array(TopicPartition), "0+"),
  userData: nullableField(bytes, "0+", "0+"),
});

const MAX_KNOWN_VERSION = 3;

/**
 * Reads at the declared version (capped at 3); Kafka ignores trailing bytes
 * here (newer versions append fields). If that fails, lower layouts are
 * tried: KafkaJS 2.2.4 declares v1 but writes the v0 layout (no owned
 * partitions), which Kafka's Java client would reject.
 */
function readVersioned<T>(
  type: { read(reader: Reader, ctx: { version: number; flexible: boolean }): T | null },
  bytes: Uint8Array,
): { version: number; value: T } | undefined {
  if (bytes.length < 2) return undefined;
  const version = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getInt16(0);
  if (version < 0) return undefined;
  for (let layout = Math.min(version, MAX_KNOWN_VERSION); layout >= 0; layout--) {
    try {
      const value = type.read(new Reader(bytes, 2), { version: layout, flexible: false });
      if (value !== null) return { version, value };
    } catch {
      // try the next lower layout
    }
  }
  return undefined;
}

/** Kafka-binary subscription bytes as kcsim's structure, or undefined if they are not one. */
export function subscriptionFromKafka(metadata: Uint8Array): ConsumerProtocolSubscription | undefined {
  const read = readVersioned(Subscription, metadata);
  if (read === undefined) return undefined;
  const { version, value } = read;
  return {
    version,
    topics: value.topics,
    userData: value.userData === null ? null : new Uint8Array(value.userData),
    ownedPartitions: value.ownedPartitions.map((tp) => ({ topic: tp.topic, partitions: tp.partitions })),
    generationId: value.generationId,
    rackId: value.rackId,
  };
}

export function subscriptionToKafka(subscription: ConsumerProtocolSubscription): Uint8Array {
  const version = subscription.version;
  const writer = new Writer().int16(version);
  Subscription.write(
    writer,
    {
      topics: [...subscription.topics],
      userData: subscription.userData,
      ownedPartitions: subscription.ownedPartitions.map((tp) => ({ topic: tp.topic, partitions: [...tp.partitions] })),
      generationId: subscription.generationId,
      rackId: subscription.rackId,
    },
    { version: Math.min(version, MAX_KNOWN_VERSION), flexible: false },
  );
  return writer.finish();
}

export function assignmentFromKafka(bytes: Uint8Array): ConsumerProtocolAssignment | undefined {
  const read = readVersioned(Assignment, bytes);
  if (read === undefined) return undefined;
  return {
    version: read.version,
    assignedPartitions: read.value.assignedPartitions.map((tp) => ({ topic: tp.topic, partitions: tp.partitions })),
    userData: read.value.userData === null ? null : new Uint8Array(read.value.userData),
  };
}

export function assignmentToKafka(assignment: ConsumerProtocolAssignment): Uint8Array {
  const writer = new Writer().int16(assignment.version);
  Assignment.write(
    writer,
    {
      assignedPartitions: assignment.assignedPartitions.map((tp) => ({ topic: tp.topic, partitions: [...tp.partitions] })),
      userData: assignment.userData,
    },
    { version: Math.min(assignment.version, MAX_KNOWN_VERSION), flexible: false },
  );
  return writer.finish();
}

/**
 * Translations of opaque protocol bytes at the group boundary. Bytes that
 * do not decode pass through unchanged (the coordinator never reads them;
 * a leader that cannot read them fails as it would against Kafka), and so
 * does an empty assignment (Kafka's "no assignment").
 */
export const consumerProtocolBytes = {
  subscriptionToKcsim(bytes: Uint8Array): Uint8Array {
    const subscription = bytes.length === 0 ? undefined : subscriptionFromKafka(bytes);
    return subscription === undefined ? bytes : encodeSubscription(subscription);
  },
  subscriptionToKafka(bytes: Uint8Array): Uint8Array {
    if (bytes.length === 0) return bytes;
    try {
      return subscriptionToKafka(decodeSubscription(bytes));
    } catch {
      return bytes;
    }
  },
  assignmentToKcsim(bytes: Uint8Array): Uint8Array {
    const assignment = bytes.length === 0 ? undefined : assignmentFromKafka(bytes);
    return assignment === undefined ? bytes : encodeAssignment(assignment);
  },
  assignmentToKafka(bytes: Uint8Array): Uint8Array {
    if (bytes.length === 0) return bytes;
    try {
      return assignmentToKafka(decodeAssignment(bytes));
    } catch {
      return bytes;
    }
  },
};
