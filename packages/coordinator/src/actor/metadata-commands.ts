import { type ControlCommand, topicIdFor } from "@kcsim/protocol";
import type { MetadataImage, TopicImage } from "../metadata/metadata-image.js";

/**
 * The metadata control commands (what a KRaft controller would publish):
 * - `{"command":"add-partitions","topic":"T1","partitions":12}`: the topic
 *   now has 12 partitions (Kafka's CreatePartitions count: the new total,
 *   larger than the current one);
 * - `{"command":"create-topic","name":"T2","id":"…","partitions":6}`: a
 *   new topic (`id` defaults to topicIdFor(name)).
 * Returns the topic as it must be afterwards, null for a command that is
 * not a metadata command, or throws RangeError for a bad one.
 */
export function topicChangeOf(command: ControlCommand, image: MetadataImage): TopicImage | null {
  switch (command.command) {
    case "add-partitions": {
      const { topic, partitions } = command;
      if (typeof topic !== "string") throw new RangeError(`add-partitions: 'topic' must be a topic name, got ${JSON.stringify(topic)}`);
      const existing = image.topic(topic);
      if (existing === undefined) throw new RangeError(`add-partitions: unknown topic ${topic}`);
      if (typeof partitions !== "number" || !Number.isInteger(partitions) || partitions <= existing.partitions) {
        throw new RangeError(
          `add-partitions: 'partitions' must be the new partition count of ${topic}, an integer above ${existing.partitions}, got ${JSON.stringify(partitions)}`,
        );
      }
      return { name: topic, id: existing.id, partitions };
    }
    case "create-topic": {
      const { name, id, partitions } = command;
      if (typeof name !== "string" || name.length === 0)
        throw new RangeError(`create-topic: 'name' must be a topic name, got ${JSON.stringify(name)}`);
      if (image.topic(name) !== undefined) throw new RangeError(`create-topic: topic ${name} already exists`);
      if (id !== undefined && (typeof id !== "string" || id.length === 0))
        throw new RangeError(`create-topic: 'id' must be a topic id, got ${JSON.stringify(id)}`);
      const topicId = typeof id === "string" ? id : topicIdFor(name);
      if (image.topicById(topicId) !== undefined) throw new RangeError(`create-topic: topic id ${topicId} is already used`);
      if (typeof partitions !== "number" || !Number.isInteger(partitions) || partitions < 1) {
        throw new RangeError(`create-topic: 'partitions' must be a positive integer, got ${JSON.stringify(partitions)}`);
      }
      return { name, id: topicId, partitions };
    }
    default:
      return null;
  }
}
